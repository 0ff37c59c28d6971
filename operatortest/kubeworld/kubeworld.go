package kubeworld

import (
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlsim/ctrlsim/kcm"
	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/rng"
)

// KubeletProcess is the name of the kubelet model's process.
const KubeletProcess = "kubelet"

// DefaultNodes are the nodes of a world that names none.
var DefaultNodes = []string{"node-1", "node-2"}

// SetupControllers registers the replicaset, deployment, job, statefulset and
// endpointslice controllers on p's manager, with p's clock and event
// recorders named as upstream's (replicaset-controller, ...).
func SetupControllers(p *process.Process) error {
	return SetupControllersFor(p, nil)
}

// Model is one workload model of kube-controller-manager: its name and the
// kinds its controllers watch (Triggers), whose objects are all that can make
// it act.
type Model struct {
	Name     string
	Triggers []schema.GroupKind
	// Hosted names kube-controller-manager's own controller (package kcm)
	// that runs in its place in a testing/synctest bubble (operatortest's
	// worlds); setup, the model, runs outside one (nil: nothing).
	Hosted string
	setup  func(p *process.Process) error
}

var (
	podKind         = schema.GroupKind{Kind: "Pod"}
	replicaSetKind  = schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	deploymentKind  = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	jobKind         = schema.GroupKind{Group: "batch", Kind: "Job"}
	statefulSetKind = schema.GroupKind{Group: "apps", Kind: "StatefulSet"}
	serviceKind     = schema.GroupKind{Kind: "Service"}
	sliceKind       = schema.GroupKind{Group: "discovery.k8s.io", Kind: "EndpointSlice"}
	claimKind       = schema.GroupKind{Kind: "PersistentVolumeClaim"}
	volumeKind      = schema.GroupKind{Kind: "PersistentVolume"}
)

// KubeletTriggers are the kinds the kubelet model watches.
var KubeletTriggers = []schema.GroupKind{podKind}

// Models are the workload models SetupControllers registers, in its order,
// each with the kinds its controllers watch (TestModelTriggersAreTheKindsTheirControllersWatch
// pins them to the models' Controllers).
func Models() []Model {
	return []Model{
		{Name: "replicaset", Triggers: []schema.GroupKind{replicaSetKind, podKind}, Hosted: kcm.ReplicaSet, setup: func(p *process.Process) error {
			return (&kube.ReplicaSetController{Client: p.Manager().GetClient(), Clock: p.Clock(), Recorder: p.GetEventRecorderFor("replicaset-controller")}).SetupWithManager(p.Manager())
		}},
		{Name: "deployment", Triggers: []schema.GroupKind{deploymentKind, replicaSetKind, podKind}, Hosted: kcm.Deployment, setup: func(p *process.Process) error {
			return (&kube.DeploymentController{Client: p.Manager().GetClient(), Clock: p.Clock(), Recorder: p.GetEventRecorderFor("deployment-controller")}).SetupWithManager(p.Manager())
		}},
		{Name: "job", Triggers: []schema.GroupKind{jobKind, podKind}, Hosted: kcm.Job, setup: func(p *process.Process) error {
			return (&kube.JobController{Client: p.Manager().GetClient(), Clock: p.Clock(), Recorder: p.GetEventRecorderFor("job-controller")}).SetupWithManager(p.Manager())
		}},
		{Name: "statefulset", Triggers: []schema.GroupKind{statefulSetKind, podKind}, Hosted: kcm.StatefulSet, setup: func(p *process.Process) error {
			mgr := p.Manager()
			return (&kube.StatefulSetController{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: p.Clock(), Recorder: p.GetEventRecorderFor("statefulset-controller")}).SetupWithManager(mgr)
		}},
		{Name: "endpointslice", Triggers: []schema.GroupKind{serviceKind, podKind, sliceKind}, setup: func(p *process.Process) error {
			return (&kube.EndpointSliceController{Client: p.Manager().GetClient(), Recorder: p.GetEventRecorderFor("endpointslice-controller")}).SetupWithManager(p.Manager())
		}},
		{Name: "pvcprotection", Triggers: []schema.GroupKind{claimKind}, Hosted: kcm.PVCProtection},
		{Name: "pvprotection", Triggers: []schema.GroupKind{volumeKind}, Hosted: kcm.PVProtection},
	}
}

// SetupControllersFor registers, of SetupControllers' models, those with a
// kind that holds says the world may hold (nil: every model). In a
// testing/synctest bubble, given the kinds (holds not nil), a model with a
// Hosted controller is replaced by kube-controller-manager's own (kcm.Setup,
// one informer factory for all): the ReplicaSet, Deployment, Job and
// StatefulSet controllers, and the PVC- and PV-protection controllers, which
// have no model. A model none of
// whose watched kinds ever has an object never reconciles: leaving it out
// changes nothing but the start-up (operatortest starts only what a world
// needs).
func SetupControllersFor(p *process.Process, holds func(schema.GroupKind) bool) error {
	var hosted []string
	for _, m := range Models() {
		// Only for the kinds a world is known to hold: a run with every model
		// (holds nil: operatortest's probe of the kinds a world holds) runs
		// the models, since a hosted controller's WaitForCacheSync polls on
		// the bubble's clock and keeps a world whose manager's Setup never
		// returns from ever deadlocking (kcm's Known gaps).
		if m.Hosted != "" && kcm.Available(p) && holds != nil {
			hosted = append(hosted, m.Hosted)
			continue
		}
		if holds != nil && !slices.ContainsFunc(m.Triggers, holds) {
			continue
		}
		if m.setup == nil {
			continue
		}
		if err := m.setup(p); err != nil {
			return err
		}
	}
	if len(hosted) == 0 {
		return nil
	}
	// Hosted controllers start by their own Triggers (kcm.Controllers): the
	// StatefulSet controller only where StatefulSets may be, not wherever
	// pods are (its informers cost a world that has none).
	return kcm.Setup(p, func(c kcm.Controller) bool {
		return slices.Contains(hosted, c.Name) && (holds == nil || kcm.Triggered(holds)(c))
	})
}

// Delays bound the kubelet's draws.
type Delays struct {
	// Schedule is the most time from a pod's creation to its binding
	// (default 1s); Start from binding to running containers (default 5s,
	// at least 1s); Run how long the containers of a pod that does not
	// restart run when no annotation says (default 5s to 30s); Stop the most
	// a deleted pod's process takes to exit on SIGTERM, and a preStop hook
	// other than a sleep to run (default 5s each, as a real process and hook
	// take seconds, whatever the grace period).
	Schedule, Start, Run, Stop time.Duration
	// IgnoresSIGTERM, if set, names the containers whose process ignores
	// SIGTERM: a deleted pod with one stops only at its grace period's end
	// (kube.Kubelet.IgnoresSIGTERM).
	IgnoresSIGTERM func(pod *corev1.Pod, c corev1.Container) bool
	// Seed, when set, is the seed of the draws instead of the plan's: the
	// pods' durations are the environment (how long a pod's work takes),
	// and operatortest gives two schedules of one workload the same
	// environment (operatortest/random.go).
	Seed *uint64
}

// Kubelet is the kubelet process of a run of pl over nodes (nil:
// DefaultNodes). Build it for each run: it holds the run's draws.
func Kubelet(pl *plan.Plan, nodes []string, d Delays) process.Spec {
	if nodes == nil {
		nodes = DefaultNodes
	}
	if d.Schedule == 0 {
		d.Schedule = time.Second
	}
	if d.Start == 0 {
		d.Start = 5 * time.Second
	}
	if d.Run == 0 {
		d.Run = 30 * time.Second
	}
	if d.Stop == 0 {
		d.Stop = 5 * time.Second
	}
	seed := pl.Seed
	if d.Seed != nil {
		seed = *d.Seed
	}
	draws := podDraws{src: rng.New(seed), ids: map[types.UID]string{}, seen: map[string]int{}}
	var start *time.Time
	return process.Spec{Name: KubeletProcess, Setup: func(p *process.Process) error {
		if start == nil {
			t := p.Clock().Now() // the kubelet boots at the run's start
			start = &t
		}
		k := &kube.Kubelet{Client: p.GetClient(), Clock: p.Clock(), Recorder: p.GetEventRecorderFor("kubelet"), Nodes: nodes, Healed: p.Healed,
			IgnoresSIGTERM: d.IgnoresSIGTERM,
			Delay: func(pod *corev1.Pod, step string) time.Duration {
				stream := draws.of(pod, step)
				switch step {
				case "schedule":
					return stream.Duration(0, d.Schedule)
				case "start":
					return stream.Duration(time.Second, max(d.Start, time.Second))
				case "stop", "prestop":
					return stream.Duration(0, d.Stop)
				}
				return stream.Duration(5*time.Second, max(d.Run, 5*time.Second))
			},
			Fault: func(_ *corev1.Pod, n int) kube.PodFault {
				for _, f := range pl.Faults {
					if f.Pod == n {
						switch f.Kind {
						case plan.NotReady:
							return kube.PodNeverReady
						case plan.CrashLoop:
							return kube.PodCrashLoop
						case plan.PodFail:
							return kube.PodFail
						}
					}
				}
				return ""
			},
		}
		for _, f := range pl.Faults {
			if f.Kind == plan.NodeLost {
				k.Lost = append(k.Lost, kube.NodeLoss{Node: f.Node, At: start.Add(f.At)})
			}
		}
		p.Manager().AddScheduled(func() []process.Scheduled { return scheduledStops(k) })
		return k.SetupWithManager(p.Manager())
	}}
}

// scheduledStops are the kubelet's scheduled stops as the process's
// scheduled work: a run is judged after them (cluster.Phases.Scheduled).
func scheduledStops(k *kube.Kubelet) []process.Scheduled {
	var out []process.Scheduled
	for _, s := range k.Stops() {
		what := "its containers exit on SIGTERM"
		if s.Kill {
			what = "its containers are killed (137) at its grace period's end"
		}
		out = append(out, process.Scheduled{Controller: "kubelet", Kind: "Pod", Key: s.Pod.String(), What: what, At: s.At})
	}
	return out
}

// podDraws are the kubelet's draws, a stream per pod and step: a pod's
// durations are its own (how long its work takes), whatever order the
// kubelet meets pods in and whatever else it drew before. A pod is named by
// its namespace, its name (a generated name by its generateName: the suffix
// is the apiserver's random draw) and how many pods of that name it met
// before it ("ops/backup-946684860-#1", "default/web-0#2" for a re-created
// StatefulSet pod), so that two runs of one workload that create the same
// pods, in whatever interleaving, draw the same durations for them.
type podDraws struct {
	src  *rng.Source
	ids  map[types.UID]string
	seen map[string]int
}

func (d *podDraws) of(pod *corev1.Pod, step string) *rng.Stream {
	id, ok := d.ids[pod.UID]
	if !ok {
		base := pod.Namespace + "/" + pod.Name
		if g := pod.GenerateName; g != "" && strings.HasPrefix(pod.Name, g) {
			base = pod.Namespace + "/" + g
		}
		d.seen[base]++
		id = base + "#" + strconv.Itoa(d.seen[base])
		d.ids[pod.UID] = id
	}
	return d.src.Stream("kubelet/" + id + "/" + step)
}
