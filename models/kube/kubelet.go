package kube

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Pod annotations the Kubelet reads: what the pod's containers do. A pod
// template carries them to the pods of a Deployment or a Job.
const (
	// AnnotationRun is how long the containers run before they exit (a Go
	// duration). Without it, containers whose first container's command or
	// arguments run "sleep N" run N seconds; otherwise the containers of a
	// pod with restartPolicy Always run until the pod is deleted, and those
	// of other pods run for a drawn time (Kubelet.Delay "run").
	AnnotationRun = "kubelet.ctrlsim.io/run"
	// AnnotationExitCode is the code the containers exit with (default 0).
	AnnotationExitCode = "kubelet.ctrlsim.io/exit-code"
	// AnnotationNeverReady, "true", keeps the containers running but never
	// ready (a readiness probe that never passes).
	AnnotationNeverReady = "kubelet.ctrlsim.io/never-ready"
)

// PodFault is what a plan fault does to one pod. A fault lasts until the
// fault phase ends (Kubelet.Healed), as a real fault stops: a pod bound after
// it gets none; a PodNeverReady container becomes ready at its first readiness
// probe from then on; a PodCrashLoop container's runs that start from then on
// (after its current back-off) run as they would have; PodFail is a one-shot
// exit and has nothing to end (a failed pod stays failed).
type PodFault string

// The pod faults.
const (
	// PodNeverReady: the containers run and never become ready.
	PodNeverReady PodFault = "notready"
	// PodCrashLoop: the containers exit with code 1 each time they have run
	// (AnnotationRun, or a drawn time); with restartPolicy Always or OnFailure
	// they restart after the kubelet's back-off (CrashLoopBackOff).
	PodCrashLoop PodFault = "crashloop"
	// PodFail: the containers exit with code 1 once; a pod with restartPolicy
	// Never fails, others restart and then run as they would have.
	PodFail PodFault = "podfail"
)

// Kubelet timing (pkg/kubelet, pkg/controller/nodelifecycle and the
// DefaultTolerationSeconds admission plugin).
const (
	// CrashLoopBackOffInitial and CrashLoopBackOffMax bound the kubelet's
	// restart back-off (MaxContainerBackOff, initial 10s).
	CrashLoopBackOffInitial = 10 * time.Second
	CrashLoopBackOffMax     = 300 * time.Second
	// NodeMonitorGracePeriod is the node lifecycle controller's
	// --node-monitor-grace-period: a node silent this long is NotReady and
	// its pods are marked not ready.
	NodeMonitorGracePeriod = 50 * time.Second
	// NotReadyTolerationSeconds is the toleration the DefaultTolerationSeconds
	// admission plugin gives pods for the not-ready and unreachable taints:
	// their pods are evicted this long after the taint.
	NotReadyTolerationSeconds = 300 * time.Second
	// ReadinessProbePeriod is a readiness probe's default periodSeconds
	// (SetDefaults_Probe): a container a PodNeverReady fault keeps not ready
	// is probed this often from its start, and the first probe after the
	// fault phase passes.
	ReadinessProbePeriod = 10 * time.Second
	// StatusSyncPeriod is the kubelet status manager's syncPeriod
	// (pkg/kubelet/status/status_manager.go): a lost node's kubelet, back at
	// the end of the fault phase, writes its pods' status again within it.
	StatusSyncPeriod = 10 * time.Second
)

// NodeLoss is a node lost at a time: its kubelet stops, its pods are marked
// not ready after NodeMonitorGracePeriod and deleted NotReadyTolerationSeconds
// later. The node comes back when the fault phase ends (Kubelet.Healed): the
// pods evicted stay deleted, the others' Ready condition is written again by
// their kubelet within StatusSyncPeriod, and the scheduler binds to it again.
type NodeLoss struct {
	Node string
	At   time.Time
}

// Kubelet plays the kube-scheduler, the kubelets of Nodes and the pod side of
// the node lifecycle controller, as one reconciler of Pods:
//
//   - a pod without a node is bound to a live node (round robin) after the
//     "schedule" delay; the binding sets spec.nodeName and the PodScheduled
//     condition;
//   - the node's kubelet then writes the pod's status as
//     pkg/kubelet/status/generate.go and kubelet_pods.go generateAPIPodStatus
//     do: phase Pending, startTime, hostIP(s), podIP(s), the conditions
//     PodReadyToStartContainers, Initialized, Ready, ContainersReady (with
//     reasons ContainersNotReady, PodCompleted, PodFailed and upstream's
//     messages) and PodScheduled, and a status per container (waiting
//     ContainerCreating, running, terminated Completed or Error, restartCount,
//     lastState);
//   - after the "start" delay the containers run and are ready (phase
//     Running), unless AnnotationNeverReady or a PodNeverReady fault;
//   - containers that exit (AnnotationRun, AnnotationExitCode, the "run"
//     delay of pods that do not restart, PodFail and PodCrashLoop faults)
//     restart after the back-off (waiting CrashLoopBackOff) under
//     restartPolicy Always, or OnFailure with a non-zero code; otherwise the
//     pod ends Succeeded (every container exited 0) or Failed;
//   - a deleted pod (Terminating: deletionTimestamp and a grace period) has
//     its containers stopped (terminate): running ones run their preStop
//     hooks (a sleep its time, any other the "prestop" delay), then exit on
//     SIGTERM after the "stop" delay, or at the grace period's end where a
//     container ignores SIGTERM (IgnoresSIGTERM); others stop at once; the
//     grace period cuts the stop; they exit 0 if they stopped before
//     the grace period ran out and are killed (137) at its end; the phase is
//     then Succeeded or Failed, and the kubelet deletes the pod with grace 0
//     (the apiserver removes it, once its finalizers are gone); until the
//     stop comes, Stops reports it (work a host waits for before it judges
//     a run). A pod deleted with grace 0 and held by its finalizers has its
//     containers killed at once;
//   - pods on a lost node (Lost) keep their status until
//     NodeMonitorGracePeriod after the loss, then their Ready condition turns
//     False (MarkPodsNotReady, event NodeNotReady), and
//     NotReadyTolerationSeconds later they are deleted (taint eviction, event
//     TaintManagerEviction); a lost node's deleted pods stay Terminating (no
//     kubelet stops them, and the pod garbage collector force-deletes only
//     those of out-of-service or absent nodes) until the node is back, when
//     its kubelet stops them at its next status sync;
//   - the faults end with the fault phase (Healed; see PodFault and NodeLoss).
type Kubelet struct {
	// Client reads pods from the cache and writes them.
	Client client.Client
	// Clock gives the times of the status and of the steps.
	Clock clock.Clock
	// Recorder, if set, records events.
	Recorder record.EventRecorder
	// Nodes are the node names; nil means one node, "node-1".
	Nodes []string
	// Lost are the nodes lost, with the time of the loss.
	Lost []NodeLoss
	// Delay, if set, draws the duration of a step of pod's life: "schedule"
	// (creation to binding), "start" (binding to running containers), "run"
	// (how long the containers of a pod that does not restart run when no
	// annotation says), "prestop" (how long a deleted pod's preStop hooks
	// other than a sleep run), "stop" (how long its running processes take
	// to exit on SIGTERM, after the hooks). Nil: 0s, 1s, 10s, 0s and 0s.
	// The stop is cut at the grace period.
	Delay func(pod *corev1.Pod, step string) time.Duration
	// IgnoresSIGTERM, if set, reports the containers whose process ignores
	// SIGTERM: a deleted pod with one stops only when its grace period runs
	// out (SIGKILL, exit 137). Nil: every process exits on SIGTERM, as a
	// process with a handler or the default action does.
	IgnoresSIGTERM func(pod *corev1.Pod, c corev1.Container) bool
	// Fault, if set, is the fault of the n-th pod the kubelet binds (counted
	// from 1), or "".
	Fault func(pod *corev1.Pod, n int) PodFault
	// Healed, if set, reports whether the fault phase has ended, and when:
	// the faults (Fault, Lost) end then. Nil: they last the whole run.
	Healed func() (time.Time, bool)

	mu         sync.Mutex
	pods       map[string]*podPlan // by uid
	bound      int
	nextIP     map[string]int
	registered bool
}

// register is the kubelets' node registration (pkg/kubelet/kubelet_node_status.go
// registerWithAPIServer): a Node object for each node that has none, at the
// first pod the kubelet handles (upstream: at start); the endpointslice controller leaves out pods whose Node it
// cannot find. Only the name is modelled: no labels, capacity or conditions.
func (k *Kubelet) register(ctx context.Context) error {
	k.mu.Lock()
	done := k.registered
	k.mu.Unlock()
	if done {
		return nil
	}
	for _, n := range k.nodes() {
		if err := k.Client.Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: n}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	k.mu.Lock()
	k.registered = true
	k.mu.Unlock()
	return nil
}

// podPlan is what the kubelet decided for one pod when it first saw it.
type podPlan struct {
	schedule, start, run time.Duration
	runs                 bool // the containers exit after run
	exitCode             int32
	neverReady           bool
	fault                PodFault
	// stopping is when the kubelet began to stop the pod's containers (it
	// saw the deletion on a live node), and stop the time they take.
	stopping *time.Time
	stop     time.Duration
	// ignoresTerm: a running container ignores SIGTERM (Kubelet.IgnoresSIGTERM).
	ignoresTerm bool
	// stopCode is the exit code of the containers the deletion stopped:
	// 137 (killed; the default), 0 when they exited before the grace period ran out.
	stopCode int32
	// key is the pod's namespace/name, and stopAt when the stop is due while
	// the kubelet waits for it (Stops); zero once it came, or the pod went.
	key    types.NamespacedName
	stopAt time.Time
}

// ScheduledStop is a deleted pod's stop the kubelet has scheduled: its
// containers stop At, killed (SIGKILL, 137) at the grace period's end, or
// exiting on SIGTERM before it.
type ScheduledStop struct {
	Pod  types.NamespacedName
	At   time.Time
	Kill bool
}

// Stops are the stops the kubelet has scheduled and not yet made, by pod:
// work a real kubelet does at its time whatever else happens, so that a
// run judged before it judges a pod still in its grace period
// (sim/cluster's Phases.Scheduled waits for it).
func (k *Kubelet) Stops() []ScheduledStop {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []ScheduledStop
	for _, p := range k.pods {
		if !p.stopAt.IsZero() {
			out = append(out, ScheduledStop{Pod: p.key, At: p.stopAt, Kill: p.stopCode == 137})
		}
	}
	slices.SortFunc(out, func(a, b ScheduledStop) int {
		return cmp.Or(a.At.Compare(b.At), strings.Compare(a.Pod.String(), b.Pod.String()))
	})
	return out
}

// forget drops the scheduled stops of the pods named key: none is left
// (NotFound), so there is nothing to stop.
func (k *Kubelet) forget(key types.NamespacedName) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, p := range k.pods {
		if p.key == key {
			p.stopAt = time.Time{}
		}
	}
}

// Controllers describes the controller SetupWithManager registers.
func (k *Kubelet) Controllers() []Controller {
	k.pods = map[string]*podPlan{}
	k.nextIP = map[string]int{}
	return []Controller{{
		Name:       "kubelet",
		Watches:    []Watch{{Object: &corev1.Pod{}, Handler: &handler.EnqueueRequestForObject{}}},
		Workers:    1,
		Reconciler: k,
	}}
}

// SetupWithManager registers the controller with a controller-runtime manager.
func (k *Kubelet) SetupWithManager(mgr ctrl.Manager) error {
	return setup(mgr, k.Controllers())
}

func (k *Kubelet) nodes() []string {
	if len(k.Nodes) == 0 {
		return []string{"node-1"}
	}
	return k.Nodes
}

// healed reports whether the fault phase has ended, and when.
func (k *Kubelet) healed() (time.Time, bool) {
	if k.Healed == nil {
		return time.Time{}, false
	}
	return k.Healed()
}

// faulty reports whether a fault still acts on what starts at t: t is before
// the end of the fault phase, or the phase has not ended.
func (k *Kubelet) faulty(t time.Time) bool {
	h, ok := k.healed()
	return !ok || t.Before(h)
}

// lostAt returns when node was lost, if it was by now and is not back (the
// fault phase has not ended).
func (k *Kubelet) lostAt(node string, now time.Time) (time.Time, bool) {
	if _, ok := k.healed(); ok {
		return time.Time{}, false
	}
	for _, l := range k.Lost {
		if l.Node == node && !now.Before(l.At) {
			return l.At, true
		}
	}
	return time.Time{}, false
}

func (k *Kubelet) delay(pod *corev1.Pod, step string, def time.Duration) time.Duration {
	if k.Delay == nil {
		return def
	}
	return k.Delay(pod, step)
}

func (k *Kubelet) plan(pod *corev1.Pod) *podPlan {
	k.mu.Lock()
	p, ok := k.pods[string(pod.UID)]
	k.mu.Unlock()
	if ok {
		return p
	}
	p = &podPlan{}
	p.schedule = k.delay(pod, "schedule", 0)
	p.start = k.delay(pod, "start", time.Second)
	if v, err := time.ParseDuration(pod.Annotations[AnnotationRun]); err == nil {
		p.run, p.runs = v, true
	} else if v, ok := sleepOf(pod); ok {
		p.run, p.runs = v, true
	} else if pod.Spec.RestartPolicy == corev1.RestartPolicyNever || pod.Spec.RestartPolicy == corev1.RestartPolicyOnFailure {
		p.run, p.runs = k.delay(pod, "run", 10*time.Second), true
	}
	if v, err := strconv.Atoi(pod.Annotations[AnnotationExitCode]); err == nil {
		p.exitCode = int32(v)
	}
	p.neverReady = pod.Annotations[AnnotationNeverReady] == "true"
	p.stopCode = 137
	k.mu.Lock()
	k.pods[string(pod.UID)] = p
	k.mu.Unlock()
	return p
}

// sleepOf reads "sleep N" (N seconds) in the first container's command and
// arguments ("/bin/sh -c 'sleep 90; date'" included): how long it runs.
func sleepOf(pod *corev1.Pod) (time.Duration, bool) {
	if len(pod.Spec.Containers) == 0 {
		return 0, false
	}
	c := pod.Spec.Containers[0]
	return sleepIn(append(slices.Clone(c.Command), c.Args...))
}

// sleepIn reads "sleep N" (N seconds) in a command line.
func sleepIn(command []string) (time.Duration, bool) {
	words := strings.Fields(strings.Join(command, " "))
	for i := 0; i+1 < len(words); i++ {
		if strings.Trim(words[i], "'\"") != "sleep" {
			continue
		}
		if n, err := strconv.ParseUint(strings.TrimRight(words[i+1], ";&|'\""), 10, 32); err == nil {
			return time.Duration(n) * time.Second, true
		}
	}
	return 0, false
}

// Reconcile moves one pod a step of its life and asks to come back when the
// next step is due.
func (k *Kubelet) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	pod := &corev1.Pod{}
	if err := k.Client.Get(ctx, req.NamespacedName, pod); err != nil {
		if apierrors.IsNotFound(err) {
			k.forget(req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, err
	}
	if err := k.register(ctx); err != nil {
		return reconcile.Result{}, err
	}
	now := k.Clock.Now()
	p := k.plan(pod)
	if pod.Spec.NodeName == "" {
		return k.bind(ctx, pod, p, now)
	}
	if at, lost := k.lostAt(pod.Spec.NodeName, now); lost {
		return k.onLostNode(ctx, pod, at, now)
	}
	if pod.DeletionTimestamp != nil {
		return k.terminate(ctx, pod, p, now)
	}
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed {
		return reconcile.Result{}, nil
	}
	st, next := k.status(pod, p, now)
	if err := k.writeStatus(ctx, pod, st); err != nil {
		return reconcile.Result{}, err
	}
	for _, l := range k.Lost { // come back when the node is lost
		if d := l.At.Sub(now); l.Node == pod.Spec.NodeName && d > 0 && (next == 0 || d < next) && k.faulty(now) {
			next = d
		}
	}
	if next > 0 {
		return reconcile.Result{RequeueAfter: next}, nil
	}
	return reconcile.Result{}, nil
}

// bind is the scheduler's binding, once the schedule delay has passed.
func (k *Kubelet) bind(ctx context.Context, pod *corev1.Pod, p *podPlan, now time.Time) (reconcile.Result, error) {
	if pod.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	if wait := pod.CreationTimestamp.Add(p.schedule).Sub(now); wait > 0 {
		return reconcile.Result{RequeueAfter: wait}, nil
	}
	var live []string
	for _, n := range k.nodes() {
		if _, lost := k.lostAt(n, now); !lost {
			live = append(live, n)
		}
	}
	if len(live) == 0 {
		n := len(k.nodes())
		msg := fmt.Sprintf("0/%d nodes are available: %d node(s) had untolerated taint {node.kubernetes.io/unreachable: }. preemption: 0/%d nodes are available: %d Preemption is not helpful for scheduling.", n, n, n, n)
		np := pod.DeepCopy()
		if setPodCondition(&np.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionFalse, Reason: corev1.PodReasonUnschedulable, Message: msg}, now) {
			return reconcile.Result{RequeueAfter: 10 * time.Second}, k.Client.Status().Update(ctx, np)
		}
		return reconcile.Result{RequeueAfter: 10 * time.Second}, nil
	}
	k.mu.Lock()
	node := live[k.bound%len(live)]
	k.bound++
	n := k.bound
	k.mu.Unlock()
	if k.Fault != nil && k.faulty(now) {
		p.fault = k.Fault(pod, n)
	}
	np := pod.DeepCopy()
	np.Spec.NodeName = node
	if err := k.Client.Update(ctx, np); err != nil {
		return reconcile.Result{}, err
	}
	setPodCondition(&np.Status, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, now)
	if err := k.Client.Status().Update(ctx, np); err != nil {
		return reconcile.Result{}, err
	}
	k.event(np, corev1.EventTypeNormal, "Scheduled", "Successfully assigned %s/%s to %s", np.Namespace, np.Name, node)
	return reconcile.Result{}, nil
}

func (k *Kubelet) event(obj client.Object, typ, reason, format string, args ...any) {
	if k.Recorder != nil {
		k.Recorder.Eventf(obj, typ, reason, format, args...)
	}
}

// onLostNode is the node lifecycle controller's side: MarkPodsNotReady after
// the grace period, taint eviction after the toleration.
func (k *Kubelet) onLostNode(ctx context.Context, pod *corev1.Pod, at, now time.Time) (reconcile.Result, error) {
	notReady := at.Add(NodeMonitorGracePeriod)
	evict := notReady.Add(NotReadyTolerationSeconds)
	// The node's kubelet retries its status sync every StatusSyncPeriod: at
	// the first after the node is back (the fault phase ended), it writes the
	// pod's status again. Without Healed the node never comes back.
	wake := func(at time.Time) reconcile.Result {
		d := at.Sub(now)
		if k.Healed != nil {
			d = min(d, StatusSyncPeriod)
		}
		return reconcile.Result{RequeueAfter: d}
	}
	if now.Before(notReady) {
		return wake(notReady), nil
	}
	if c := podReadyCondition(pod.Status); c != nil && c.Status != corev1.ConditionFalse {
		np := pod.DeepCopy()
		nc := *c
		nc.Status = corev1.ConditionFalse
		setPodCondition(&np.Status, nc, now)
		if err := k.Client.Status().Update(ctx, np); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		k.event(np, corev1.EventTypeWarning, "NodeNotReady", "Node is not ready")
		pod = np
	}
	if now.Before(evict) {
		return wake(evict), nil
	}
	if pod.DeletionTimestamp != nil {
		// No kubelet stops it: the pod stays Terminating until its node is back
		// (its kubelet then stops it, at a status sync) or someone force-deletes it.
		if k.Healed != nil {
			return reconcile.Result{RequeueAfter: StatusSyncPeriod}, nil
		}
		return reconcile.Result{}, nil
	}
	k.event(pod, corev1.EventTypeNormal, "TaintManagerEviction", "Marking for deletion Pod %s/%s", pod.Namespace, pod.Name)
	return reconcile.Result{}, client.IgnoreNotFound(k.Client.Delete(ctx, pod))
}

// status computes the pod's status now, and the time to the next change.
func (k *Kubelet) status(pod *corev1.Pod, p *podPlan, now time.Time) (corev1.PodStatus, time.Duration) {
	st := *pod.Status.DeepCopy()
	mnow := metav1.NewTime(now)
	if st.StartTime == nil {
		st.StartTime = &mnow
	}
	if st.HostIP == "" {
		idx := slices.Index(k.nodes(), pod.Spec.NodeName) + 1
		st.HostIP = fmt.Sprintf("10.0.0.%d", idx)
		st.HostIPs = []corev1.HostIP{{IP: st.HostIP}}
		k.mu.Lock()
		k.nextIP[pod.Spec.NodeName]++
		// Each node has a /24 of pod addresses (10.244.<node>.0/24), handed
		// out from .2 to .254 and round again, as host-local IPAM does
		// (addresses still in use are not skipped: a node never has 253
		// live pods here).
		ip := fmt.Sprintf("10.244.%d.%d", idx, 2+(k.nextIP[pod.Spec.NodeName]-1)%253)
		k.mu.Unlock()
		st.PodIP = ip
		st.PodIPs = []corev1.PodIP{{IP: ip}}
	}
	started := st.StartTime.Add(p.start)
	deleting := pod.DeletionTimestamp != nil
	var next time.Duration
	soon := func(t time.Time) {
		if d := t.Sub(now); d > 0 && (next == 0 || d < next) {
			next = d
		}
	}
	sandbox := !now.Before(started) || deleting
	var statuses []corev1.ContainerStatus
	for _, c := range pod.Spec.Containers {
		old := containerStatus(pod.Status.ContainerStatuses, c.Name)
		cs := corev1.ContainerStatus{Name: c.Name, Image: c.Image, ImageID: "", Started: ptr.To(false)}
		if old != nil {
			cs = *old.DeepCopy()
		}
		cs.Image = c.Image
		k.container(pod, p, &cs, started, now, deleting, soon)
		statuses = append(statuses, cs)
	}
	st.ContainerStatuses = statuses
	st.Phase = podPhase(pod, statuses, deleting)
	st.ObservedGeneration = pod.Generation
	setPodCondition(&st, corev1.PodCondition{Type: corev1.PodReadyToStartContainers, Status: condStatus(sandbox && !isTerminal(st.Phase)), ObservedGeneration: pod.Generation}, now)
	setPodCondition(&st, corev1.PodCondition{Type: corev1.PodInitialized, Status: corev1.ConditionTrue, ObservedGeneration: pod.Generation}, now)
	cr := containersReady(pod, statuses, st.Phase)
	ready := cr
	ready.Type = corev1.PodReady
	setPodCondition(&st, ready, now)
	setPodCondition(&st, cr, now)
	setPodCondition(&st, corev1.PodCondition{Type: corev1.PodScheduled, Status: corev1.ConditionTrue}, now)
	orderConditions(&st)
	return st, next
}

func isTerminal(p corev1.PodPhase) bool { return p == corev1.PodSucceeded || p == corev1.PodFailed }

func condStatus(b bool) corev1.ConditionStatus {
	if b {
		return corev1.ConditionTrue
	}
	return corev1.ConditionFalse
}

// container moves one container's status to now.
func (k *Kubelet) container(pod *corev1.Pod, p *podPlan, cs *corev1.ContainerStatus, started, now time.Time, deleting bool, soon func(time.Time)) {
	id := func() string { return fmt.Sprintf("containerd://%s-%s-%d", pod.UID, cs.Name, cs.RestartCount) }
	restart := func(code int32) bool {
		switch pod.Spec.RestartPolicy {
		case corev1.RestartPolicyNever:
			return false
		case corev1.RestartPolicyOnFailure:
			return code != 0
		}
		return true
	}
	for {
		switch {
		case cs.State.Terminated != nil:
			t := cs.State.Terminated
			if deleting || !restart(t.ExitCode) {
				return
			}
			backoff := min(CrashLoopBackOffInitial<<max(cs.RestartCount, 0), CrashLoopBackOffMax)
			cs.LastTerminationState = corev1.ContainerState{Terminated: t}
			cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "CrashLoopBackOff",
				Message: fmt.Sprintf("back-off %s restarting failed container=%s pod=%s_%s(%s)", backoff, cs.Name, pod.Name, pod.Namespace, pod.UID)}}
			cs.Ready, cs.Started = false, ptr.To(false)
		case cs.State.Running != nil:
			r := cs.State.Running
			code, exits := p.exitCode, p.runs
			if (p.fault == PodCrashLoop && k.faulty(r.StartedAt.Time)) || (p.fault == PodFail && cs.RestartCount == 0) {
				code, exits = 1, true
			}
			end := r.StartedAt.Add(p.run)
			if deleting {
				code, exits, end = p.stopCode, true, now
			}
			if !exits || now.Before(end) {
				if exits {
					soon(end)
				}
				ready := !p.neverReady && k.probeReady(p, r.StartedAt.Time, now, soon)
				cs.Ready, cs.Started = ready, ptr.To(true)
				return
			}
			reason := "Completed"
			if code != 0 {
				reason = "Error"
			}
			cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason,
				StartedAt: r.StartedAt, FinishedAt: metav1.NewTime(end), ContainerID: id()}}
			cs.Ready, cs.Started, cs.ContainerID = false, ptr.To(false), id()
		case cs.State.Waiting != nil && cs.State.Waiting.Reason == "CrashLoopBackOff":
			t := cs.LastTerminationState.Terminated
			backoff := min(CrashLoopBackOffInitial<<max(cs.RestartCount, 0), CrashLoopBackOffMax)
			at := t.FinishedAt.Add(backoff)
			if deleting {
				cs.State = corev1.ContainerState{Terminated: t.DeepCopy()}
				return
			}
			if now.Before(at) {
				soon(at)
				return
			}
			cs.RestartCount++
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(at)}}
			cs.ContainerID = id()
		default: // not started
			if deleting {
				cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: 137, Reason: "ContainerStatusUnknown",
					Message: "The container could not be located when the pod was terminated", FinishedAt: metav1.NewTime(now)}}
				return
			}
			if now.Before(started) {
				cs.State = corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: "ContainerCreating"}}
				soon(started)
				return
			}
			cs.State = corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(started)}}
			cs.ContainerID = id()
		}
	}
}

// probeReady is the readiness probe of a running container started at start:
// it passes unless a PodNeverReady fault acts. Under one it fails at each
// probe (every ReadinessProbePeriod from start) until the fault phase ends,
// and passes from the first probe after that; soon is told of the next probe.
func (k *Kubelet) probeReady(p *podPlan, start, now time.Time, soon func(time.Time)) bool {
	if p.fault != PodNeverReady {
		return true
	}
	if k.Healed == nil {
		return false // the fault never ends: nothing to probe for
	}
	h, healed := k.healed()
	if !healed {
		h = now
	}
	// The first probe at or after h (the end of the fault phase, or now).
	probe := start
	if h.After(start) {
		n := (h.Sub(start) + ReadinessProbePeriod - 1) / ReadinessProbePeriod
		probe = start.Add(n * ReadinessProbePeriod)
	}
	if healed && !now.Before(probe) {
		return true
	}
	if !healed && !probe.After(now) {
		probe = probe.Add(ReadinessProbePeriod)
	}
	soon(probe)
	return false
}

func containerStatus(cs []corev1.ContainerStatus, name string) *corev1.ContainerStatus {
	for i := range cs {
		if cs[i].Name == name {
			return &cs[i]
		}
	}
	return nil
}

// podPhase is getPhase (kubelet_pods.go) for pods without init containers: a
// container waiting after a termination counts as stopped; a deleting pod
// whose containers have stopped is terminal.
func podPhase(pod *corev1.Pod, statuses []corev1.ContainerStatus, deleting bool) corev1.PodPhase {
	var running, waiting, stopped, succeeded int
	for _, s := range statuses {
		switch {
		case s.State.Running != nil:
			running++
		case s.State.Terminated != nil:
			stopped++
			if s.State.Terminated.ExitCode == 0 {
				succeeded++
			}
		case s.LastTerminationState.Terminated != nil:
			stopped++
		default:
			waiting++
		}
	}
	switch {
	case waiting > 0:
		return corev1.PodPending
	case running > 0:
		return corev1.PodRunning
	case stopped > 0:
		if deleting {
			if succeeded == stopped {
				return corev1.PodSucceeded
			}
			return corev1.PodFailed
		}
		if pod.Spec.RestartPolicy == corev1.RestartPolicyAlways || pod.Spec.RestartPolicy == "" { // SetDefaults_PodSpec: Always
			return corev1.PodRunning
		}
		if stopped == succeeded {
			return corev1.PodSucceeded
		}
		if pod.Spec.RestartPolicy == corev1.RestartPolicyNever {
			return corev1.PodFailed
		}
		return corev1.PodRunning
	}
	return corev1.PodPending
}

// containersReady is GenerateContainersReadyCondition.
func containersReady(pod *corev1.Pod, statuses []corev1.ContainerStatus, phase corev1.PodPhase) corev1.PodCondition {
	c := corev1.PodCondition{Type: corev1.ContainersReady, ObservedGeneration: pod.Generation}
	switch phase {
	case corev1.PodSucceeded:
		c.Status, c.Reason = corev1.ConditionFalse, "PodCompleted"
		return c
	case corev1.PodFailed:
		c.Status, c.Reason = corev1.ConditionFalse, "PodFailed"
		return c
	}
	var unready []string
	for _, s := range statuses {
		if !s.Ready {
			unready = append(unready, s.Name)
		}
	}
	if len(unready) > 0 {
		c.Status, c.Reason = corev1.ConditionFalse, "ContainersNotReady"
		c.Message = fmt.Sprintf("containers with unready status: [%s]", strings.Join(unready, " "))
		return c
	}
	c.Status = corev1.ConditionTrue
	return c
}

// setPodCondition is podutil.UpdatePodCondition: the transition time moves only
// when the status changes. It reports whether anything changed.
func setPodCondition(st *corev1.PodStatus, c corev1.PodCondition, now time.Time) bool {
	c.LastTransitionTime = metav1.NewTime(now)
	for i := range st.Conditions {
		old := &st.Conditions[i]
		if old.Type != c.Type {
			continue
		}
		if old.Status == c.Status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		changed := old.Status != c.Status || old.Reason != c.Reason || old.Message != c.Message ||
			!old.LastTransitionTime.Equal(&c.LastTransitionTime) || old.ObservedGeneration != c.ObservedGeneration
		*old = c
		return changed
	}
	st.Conditions = append(st.Conditions, c)
	return true
}

// conditionOrder is the order the kubelet writes the pod's conditions in.
var conditionOrder = []corev1.PodConditionType{corev1.PodReadyToStartContainers, corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled}

func orderConditions(st *corev1.PodStatus) {
	rank := func(t corev1.PodConditionType) int {
		if i := slices.Index(conditionOrder, t); i >= 0 {
			return i
		}
		return len(conditionOrder)
	}
	slices.SortStableFunc(st.Conditions, func(a, b corev1.PodCondition) int { return rank(a.Type) - rank(b.Type) })
}

// writeStatus writes st if it differs from the pod's.
func (k *Kubelet) writeStatus(ctx context.Context, pod *corev1.Pod, st corev1.PodStatus) error {
	if equalStatus(pod.Status, st) {
		return nil
	}
	np := pod.DeepCopy()
	np.Status = st
	return client.IgnoreNotFound(k.Client.Status().Update(ctx, np))
}

func equalStatus(a, b corev1.PodStatus) bool {
	return equality.Semantic.DeepEqual(a, b)
}

// StopWindow is how long the containers of pod, deleted with its
// deletionGracePeriodSeconds, may take to stop once its kubelet begins
// (pkg/kubelet/kuberuntime killContainer): the preStop hooks run first, then
// SIGTERM, and SIGKILL when the grace period runs out. So they take at most
// the grace period, and at least the longest preStop sleep (a Sleep action,
// or an exec hook whose command runs "sleep N"), capped by the grace period.
// Within it, the stop is the hooks' and the processes' own (Kubelet.Delay
// "prestop" and "stop"; Kubelet.IgnoresSIGTERM).
func StopWindow(pod *corev1.Pod) (lo, hi time.Duration) {
	if g := pod.DeletionGracePeriodSeconds; g != nil && *g > 0 {
		hi = time.Duration(*g) * time.Second
	}
	for _, c := range pod.Spec.Containers {
		lo = max(lo, preStopSleep(c))
	}
	return min(lo, hi), hi
}

// stopTime is how long pod's running containers take to stop, uncapped:
// the preStop hooks (a sleep sleeps its time, any other hook runs the drawn
// "prestop"), then the process's exit on SIGTERM (the drawn "stop"); a
// container that ignores SIGTERM runs until the grace period runs out, so
// ignores is true and the stop is the grace period's.
func (k *Kubelet) stopTime(pod *corev1.Pod) (stop time.Duration, ignores bool) {
	hooks := false
	for _, c := range pod.Spec.Containers {
		stop = max(stop, preStopSleep(c))
		if c.Lifecycle != nil && c.Lifecycle.PreStop != nil && preStopSleep(c) == 0 {
			hooks = true
		}
		if k.IgnoresSIGTERM != nil && k.IgnoresSIGTERM(pod, c) {
			ignores = true
		}
	}
	if hooks {
		stop = max(stop, k.delay(pod, "prestop", 0))
	}
	return stop + k.delay(pod, "stop", 0), ignores
}

// preStopSleep is how long container c's preStop hook sleeps.
func preStopSleep(c corev1.Container) time.Duration {
	if c.Lifecycle == nil || c.Lifecycle.PreStop == nil {
		return 0
	}
	h := c.Lifecycle.PreStop
	if h.Sleep != nil {
		return time.Duration(max(h.Sleep.Seconds, 0)) * time.Second
	}
	if h.Exec != nil {
		if d, ok := sleepIn(h.Exec.Command); ok {
			return d
		}
	}
	return 0
}

// terminate is the kubelet's side of a pod's deletion: from when it first
// sees the deletion on a live node, it stops the containers (running ones
// take their hooks' and SIGTERM's time, stopTime, within StopWindow;
// containers not running stop at once), writes their terminated status and the terminal phase, then
// deletes the pod with grace 0 (pkg/kubelet/status/status_manager.go:
// NewDeleteOptions(0) with the pod's uid as precondition). A pod deleted
// with grace 0 (held by its finalizers, or not yet stopped when force-deleted)
// has its containers killed at once, and nothing more to delete.
func (k *Kubelet) terminate(ctx context.Context, pod *corev1.Pod, p *podPlan, now time.Time) (reconcile.Result, error) {
	grace := ptr.Deref(pod.DeletionGracePeriodSeconds, 0)
	if !isTerminal(pod.Status.Phase) {
		k.mu.Lock()
		if p.stopping == nil {
			t := now
			p.stopping = &t
			p.stop, _ = StopWindow(pod)
			if running(pod) {
				p.stop, p.ignoresTerm = k.stopTime(pod)
			}
		}
		lo, hi := StopWindow(pod) // a shortened grace period cuts the stop short
		stop := min(max(p.stop, lo), hi)
		if p.ignoresTerm {
			stop = hi
		}
		end := p.stopping.Add(stop)
		p.stopCode = 137
		if grace > 0 && stop < hi {
			p.stopCode = 0
		}
		p.key, p.stopAt = client.ObjectKeyFromObject(pod), time.Time{}
		if now.Before(end) {
			p.stopAt = end
		}
		k.mu.Unlock()
		if now.Before(end) {
			return reconcile.Result{RequeueAfter: end.Sub(now)}, nil
		}
		st, _ := k.status(pod, p, end)
		if err := k.writeStatus(ctx, pod, st); err != nil {
			return reconcile.Result{}, err
		}
	}
	if grace == 0 {
		return reconcile.Result{}, nil
	}
	uid := pod.UID
	err := k.Client.Delete(ctx, pod, &client.DeleteOptions{GracePeriodSeconds: ptr.To[int64](0), Preconditions: &metav1.Preconditions{UID: &uid}})
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) {
		return reconcile.Result{}, nil // gone already, or another pod of that name
	}
	return reconcile.Result{}, err
}

// running reports whether a container of pod is running: those that are
// not (waiting to start or to restart, or exited) stop at once.
func running(pod *corev1.Pod) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.State.Running != nil {
			return true
		}
	}
	return false
}
