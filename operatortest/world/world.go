package world

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"pgregory.net/rapid"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/operatortest/builtins"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

var (
	flagChecks = flag.Int("ctrlsim.checks", 0, "operatortest: plans to explore per test (0: the test's Options.Checks, default 100)")
	flagSeed   = flag.Uint64("ctrlsim.seed", 0, "operatortest: the explorer's seed (0: the test's Options.Seed)")
	FlagPlan   = flag.String("ctrlsim.plan", "", "operatortest: replay this plan file instead of exploring")
	flagShard  = flag.String("ctrlsim.shard", "", "operatortest: explore shard i/n of the plans (merge the shards' -ctrlsim.json files with ctrlsim merge)")
	FlagJSON   = flag.String("ctrlsim.json", "", "operatortest: write what the exploration found to this file (JSON)")
	flagKeep   = flag.Bool("ctrlsim.keepgoing", false, "operatortest: keep exploring past violations, report each distinct one (Options.KeepGoing)")
)

// KubeControllerManager is the process running the namespace controller, the
// garbage collector and the workload controllers.
const KubeControllerManager = "kube-controller-manager"

// kubeControllerManagerRate is kube-controller-manager's client-side rate
// limit: --kube-api-qps 20 and --kube-api-burst 30, its defaults, which
// kubeadm and kind leave. Each controller has a client of its own
// (ControllerClientBuilder), so a bucket of its own; the garbage
// collector's controllers (one for each kind here) share one. Without it
// the collector deleted a child every few milliseconds for as long as an
// operator's stale view made it again
// (TestTheCollectorDeletesAtKubeControllerManagersRate).
func kubeControllerManagerRate() *process.ClientRate {
	return &process.ClientRate{QPS: 20, Burst: 30, Client: func(controller string) string {
		if strings.HasPrefix(controller, "garbagecollector-") {
			return "generic-garbage-collector"
		}
		return controller
	}}
}

type WorldError struct{ Err error }

func (e *WorldError) Error() string { return e.Err.Error() }

// World is the cluster of one test: what each plan's run is built from,
// and what its runs so far have left for the next (the built-in kinds held,
// the cut noted, the runs counted).
type World struct {
	// Refs and Search are the state of the parts above the world, kept for
	// its life and opaque to it: package reference's fault-free runs and
	// recalled verdicts (reference.Cache), package search's exploration
	// (its random budget, the places cut).
	Refs, Search any
	Held         *Holding // the kinds a run's built-in controllers start for at first (package builtins)
	// JudgeCut is the note of a run cut at its work bound while the plan
	// being judged ran, or a reference it was judged against (package
	// reference's cut.go).
	JudgeCut string
	// Runs counts the runs this process has simulated: plans, references
	// and the runs that judge a plan again (a shrink's cost: Finding).
	Runs int
	// Phase is what the runs are for now (profile.go's LabelPhase).
	Phase string
	// Excused counts the cases of verdict's table of excuses that the
	// verdicts of the plans judged to find (PhaseFind) named, by name.
	Excused map[string]int
	Opts    Options
	CRDs    []apiserver.CRD
	Kinds   []schema.GroupVersionKind // always judged: CRD kinds, the objects' kinds (and those the operator touches: judged)
	// Collected are the kinds the garbage collector and the namespace
	// controller know in every run: kinds, common children and the workload
	// models' kinds (a run's also collects the kinds it holds for an owner
	// relation and deletes those it holds in a deleting namespace:
	// package builtins).
	Collected []schema.GroupVersionKind
	Operators map[string]bool // the operator's processes
	Shapes    *canon.Shapes
	Nondet    canon.Nondeterministic
	history   []HistoryObjects
	Space     plan.Space
	// restartRandom starts the run's randomness over (random.go).
	restartRandom func()
	// OtherDraws: the run being made draws the operator's randomness from
	// another seed (random.go).
	OtherDraws bool
	webhooks   []process.WebhookConfig // WebhookFiles; nil: derived
	// KeepFinal: results keep their run's final state (Replay's Final).
	KeepFinal bool
	// StepActions are the actions of the plan's steps (the workload's).
	StepActions func() map[string]cluster.Action
}

// commonChildren are the built-in kinds operators most often create and own:
// the garbage collector collects them (the oracles judge every kind the
// operator reads or writes).
var commonChildren = []schema.GroupVersionKind{
	{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"}, {Version: "v1", Kind: "Service"},
	{Version: "v1", Kind: "ServiceAccount"}, {Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}, {Group: "batch", Version: "v1", Kind: "Job"},
}

func New(o Options, workload func(w *World) (*rapid.Generator[[]plan.Step], []schema.GroupVersionKind, error)) (*World, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	if err := ensureCRDScheme(o.Scheme); err != nil {
		return nil, err
	}
	w := &World{Opts: o, Excused: map[string]int{}}
	crdFiles, err := readFiles("CRDFiles", o.CRDFiles)
	if err != nil {
		return nil, err
	}
	docs := slices.Clip(o.CRDs)
	for _, f := range crdFiles {
		docs = append(docs, f.data)
	}
	webhookFiles, err := readFiles("WebhookFiles", o.WebhookFiles)
	if err != nil {
		return nil, err
	}
	for _, f := range webhookFiles {
		configs, err := process.WebhookConfigsFromYAML(f.data)
		if err != nil {
			return nil, fmt.Errorf("WebhookFiles: %s: %w", f.path, err)
		}
		w.webhooks = append(w.webhooks, configs...)
	}
	for _, d := range docs {
		crds, err := apiserver.CRDsFromYAML(d)
		if err != nil {
			return nil, fmt.Errorf("CRDs: %w", err)
		}
		w.CRDs = append(w.CRDs, crds...)
	}
	// One version per kind (a CRD's storage version, added first: upstream's
	// collector monitors each resource once, in its preferred version).
	seen := map[schema.GroupKind]bool{}
	add := func(gvk schema.GroupVersionKind) {
		if !seen[gvk.GroupKind()] && o.Scheme.Recognizes(gvk) {
			seen[gvk.GroupKind()] = true
			w.Collected = append(w.Collected, gvk)
		}
	}
	for _, c := range w.CRDs {
		add(c.GVK)
	}
	for _, obj := range o.Objects {
		gvk, err := apiutil.GVKForObject(obj, o.Scheme)
		if err != nil {
			return nil, fmt.Errorf("Objects: %w", err)
		}
		add(gvk)
	}
	w.Kinds = slices.Clone(w.Collected)
	for _, gvk := range commonChildren {
		add(gvk)
	}
	w.Shapes = canon.NewShapes(w.CRDs, o.Scheme)
	nd, err := canon.ParsePaths(o.Nondeterministic, func(kind string) bool {
		for _, c := range w.CRDs {
			if c.GVK.Kind == kind {
				return true
			}
		}
		for gvk := range o.Scheme.AllKnownTypes() { // lint:order-independent any of them
			if gvk.Kind == kind {
				return true
			}
		}
		return false
	})
	if err != nil {
		return nil, err
	}
	w.Nondet = nd
	if w.history, err = historyOf(o.History, func(kind string) bool {
		for _, c := range w.CRDs {
			if c.GVK.Kind == kind {
				return true
			}
		}
		for gvk := range o.Scheme.AllKnownTypes() { // lint:order-independent any of them
			if gvk.Kind == kind {
				return true
			}
		}
		return false
	}); err != nil {
		return nil, err
	}
	w.Operators = map[string]bool{}
	wl, scripted, err := workload(w)
	if err != nil {
		return nil, fmt.Errorf("Options.Workload: %w", err)
	}
	for _, gvk := range scripted { // judged and collected, as seed objects' kinds are
		add(gvk)
		if o.Scheme.Recognizes(gvk) && !slices.Contains(w.Kinds, gvk) {
			w.Kinds = append(w.Kinds, gvk)
		}
	}
	// The built-in processes' names are taken while they run (a test with
	// NoBuiltinControllers and NoWorkloadModels may run its own
	// kube-controller-manager).
	names := map[string]bool{KubeControllerManager: !o.NoBuiltinControllers || !o.NoWorkloadModels, kubeworld.KubeletProcess: !o.NoWorkloadModels}
	w.Opts.Managers = slices.Clone(o.Managers)
	for i := range w.Opts.Managers {
		if err := w.Opts.Managers[i].resolve(); err != nil {
			return nil, err
		}
	}
	o.Managers = w.Opts.Managers
	for _, m := range o.Managers {
		if m.Name == "" || m.Setup == nil && m.SetupWithSystems == nil || m.Replicas < 0 {
			return nil, fmt.Errorf("Managers: each needs a unique Name (not %q or %q), a Setup and Replicas of 0 or more", KubeControllerManager, kubeworld.KubeletProcess)
		}
		for _, spec := range m.Processes() {
			if names[spec.Name] {
				return nil, fmt.Errorf("Managers: process name %q is taken (names must be unique, and not %q or %q while they run: NoBuiltinControllers, NoWorkloadModels)", spec.Name, KubeControllerManager, kubeworld.KubeletProcess)
			}
			names[spec.Name] = true
			w.Operators[spec.Name] = true
			w.Space.Processes = append(w.Space.Processes, spec.Name)
			if le := spec.LeaderElection; le != nil {
				if !o.Scheme.Recognizes(coordinationv1.SchemeGroupVersion.WithKind("Lease")) {
					return nil, fmt.Errorf("Managers: %s elects a leader through a Lease, and Options.Scheme has no coordination.k8s.io/v1 Lease (add k8s.io/client-go/kubernetes/scheme)", m.Name)
				}
				if le.Namespace == "" || le.Name == "" {
					return nil, fmt.Errorf("Managers: %s: LeaderElection needs the Lease's Namespace and Name", m.Name)
				}
			}
		}
	}
	for _, gvk := range w.Collected {
		w.Space.Kinds = append(w.Space.Kinds, gvk.Group+"/"+gvk.Version+"/"+gvk.Kind)
	}
	w.Space.Horizon = o.FaultPhase
	// Crashes right after each of the first writes (Sieve's intermediate
	// states), besides crashes at client calls and times.
	w.Space.MaxWrite = 10
	// Restarts onto an apiserver up to half the fault phase behind (Sieve's
	// stale states); timed faults aim at the reference run's reads and writes
	// (explore sets Targets).
	w.Space.MaxStale = o.FaultPhase / 2
	// A stale restart is drawn to land before the heal: the first
	// CrashLoopBackOff (10s) and the slowest manager's start delay.
	w.Space.RestartDelay = 10 * time.Second
	for _, m := range w.Opts.Managers {
		w.Space.RestartDelay = max(w.Space.RestartDelay, 10*time.Second+m.StartDelay)
	}
	if !o.NoWorkloadModels {
		for _, k := range WorkloadKinds {
			if !slices.Contains(w.Collected, k) {
				w.Collected = append(w.Collected, k)
			}
		}
	}
	if o.WorkloadFaults && !o.NoWorkloadModels {
		w.Space.Pods = 10
		w.Space.Nodes = kubeworld.DefaultNodes
	}
	if len(o.Exec) > 0 {
		w.Space.APIFaults = append(w.Space.APIFaults, execFaults...)
	}
	w.Space.Workload = wl
	return w, nil
}

// options are the cluster options of a run of p with the built-in
// controllers of the kinds held (package builtins); the managers' Setup failures
// are recorded in setups.
func (w *World) Options(p *plan.Plan, setups *SetupFailures, held *Holding) cluster.Options {
	o := w.Opts
	var procs []process.Spec
	if !o.NoBuiltinControllers || !o.NoWorkloadModels {
		procs = append(procs, process.Spec{Name: KubeControllerManager, ClientRate: kubeControllerManagerRate(),
			Setup: func(p *process.Process) error { return w.setupKubeControllerManager(p, held) }})
	}
	if !o.NoWorkloadModels && slices.ContainsFunc(kubeworld.KubeletTriggers, held.Holds) {
		env := randomSeed(p.Seed) // the environment's draws (random.go)
		procs = append(procs, kubeworld.Kubelet(p, nil, kubeworld.Delays{Seed: &env, IgnoresSIGTERM: w.Opts.ignoresSIGTERM}))
	}
	for _, m := range o.Managers {
		specs := m.Processes()
		for i := range specs {
			specs[i].Setup = setups.wrap(m.Name, specs[i].Name, setups.bounded(m.Name, specs[i].Name, specs[i].Setup))
		}
		procs = append(procs, w.randomAtEveryStart(specs)...)
	}
	setup := w.Setup
	if !o.NoBuiltinControllers {
		setup = func(c *cluster.Cluster) error {
			return w.setUp(c, func(c *cluster.Cluster) error {
				if !builtins.HostsNamespaceContent(c, held) {
					return nil
				}
				return builtins.SeedNamespaceContent(c, KubeControllerManager) // as the cluster made it before the install
			})
		}
	}
	names := randomSeed(p.Seed)
	return w.withSystems(cluster.Options{Scheme: o.Scheme, CRDs: w.CRDs, Webhooks: w.webhooks, Processes: procs, Setup: setup, Actions: w.StepActions(), NamesSeed: &names, Exec: o.ExecHandlers()}) // systems.go
}

// workloadKinds are the kinds the workload models add to the collector's and
// the namespace controller's (they are not judged).
var WorkloadKinds = []schema.GroupVersionKind{{Version: "v1", Kind: "Pod"}, {Group: "apps", Version: "v1", Kind: "ReplicaSet"},
	{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}, {Group: "apps", Version: "v1", Kind: "ControllerRevision"},
	{Version: "v1", Kind: "PersistentVolumeClaim"}}

func (w *World) setupKubeControllerManager(p *process.Process, held *Holding) error {
	if !w.Opts.NoWorkloadModels {
		var holds func(schema.GroupKind) bool
		if held != nil {
			holds = held.Holds
		}
		if err := kubeworld.SetupControllersFor(p, holds); err != nil {
			return err
		}
	}
	if w.Opts.NoBuiltinControllers {
		return nil
	}
	// kube-controller-manager's own garbage collector where the world's kinds
	// are known and the run is in a bubble (kcm's Known gaps), the model's
	// otherwise (the probe of the kinds a world holds).
	hosted := false
	if held != nil {
		var err error
		if hosted, err = kubeworld.HostedGarbageCollector(p, w.collects(held)); err != nil {
			return err
		}
	}
	return builtins.SetupCollectors(p, builtins.World{Scheme: w.Opts.Scheme, CRDs: w.CRDs, Collected: w.Collected, NamespaceTermination: w.Opts.NamespaceTermination, HostedCollector: hosted}, held)
}

// collects are the kinds kube-controller-manager's garbage collector
// watches in a run of held: those in an owner relation, Collected's kinds the
// run holds, and every kind outside Kubernetes' own API groups (a CRD's, even
// one installed during the run: what discovery serves then changes, and only
// that makes the collector's sync read its RESTMapper again, so that it can
// look up owners of the new kind). A real collector watches every served
// kind; an informer for each built-in kind nobody owns would cost every
// world a monitor each and change nothing the collector does.
func (w *World) collects(held *Holding) func(schema.GroupKind) bool {
	return func(gk schema.GroupKind) bool {
		if held.Owned.Holds(gk) || !clientgoscheme.Scheme.IsGroupRegistered(gk.Group) {
			return true
		}
		return held.Holds(gk) && slices.ContainsFunc(w.Collected, func(c schema.GroupVersionKind) bool { return c.GroupKind() == gk })
	}
}

// Setup creates the test's objects (and their namespaces) as cluster admin.
func (w *World) Setup(c *cluster.Cluster) error { return w.setUp(c, nil) }

// setUp creates the test's namespaces (the leader elections', the seed
// objects' and the seed Namespaces, in their order), then, if bootstrap is
// not nil, lets it make what the cluster makes in them (their content, as
// before an install's objects come), then the other seed objects in their
// order, as cluster admin.
func (w *World) setUp(c *cluster.Cluster, bootstrap func(*cluster.Cluster) error) error {
	ctx := context.Background()
	c.Server.SetAllowPrivileged(!w.Opts.DisallowPrivileged) // kubeadm's and kind's --allow-privileged=true unless the test says
	made := map[string]bool{"default": true, "kube-system": true, "kube-public": true}
	pending := &PendingSeeds{c: c}
	for _, m := range w.Opts.Managers {
		for _, spec := range m.Processes() {
			if le := spec.LeaderElection; le != nil && !made[le.Namespace] {
				made[le.Namespace] = true
				if err := createNamespace(ctx, c, le.Namespace); err != nil {
					return err
				}
			}
		}
	}
	create := func(obj client.Object) error {
		if err := CreateSeed(ctx, c, obj); unserved(err) {
			pending.add(obj) // its CRD comes at run time (crds.go)
		} else if unconverted(err) {
			pending.add(obj) // its conversion webhook's process is not up yet (crds.go)
			pending.retry()
		} else if err != nil {
			return fmt.Errorf("creating %T %s: %w", obj, client.ObjectKeyFromObject(obj), err)
		}
		return nil
	}
	var rest []client.Object
	for _, obj := range w.Opts.Objects {
		if ns := obj.GetNamespace(); ns != "" && !made[ns] {
			made[ns] = true
			if err := createNamespace(ctx, c, ns); err != nil {
				return err
			}
		}
		if gvk, err := apiutil.GVKForObject(obj, w.Opts.Scheme); err != nil || gvk.GroupKind() != (schema.GroupKind{Kind: "Namespace"}) {
			rest = append(rest, obj)
		} else if err := create(obj); err != nil {
			return err
		}
	}
	if bootstrap != nil {
		if err := bootstrap(c); err != nil {
			return err
		}
	}
	for _, obj := range rest {
		if err := create(obj); err != nil {
			return err
		}
	}
	return nil
}

// result is one judged run.
type RunResult struct {
	Verdicts []check.Verdict
	Steps    []trace.Step
	Hash     string
	Log      []apiserver.Event // every committed version: the story reads objects from it
	Start    time.Time         // the run's epoch
	// SetUp is how many of Log's events were committed before the run's
	// time started: the default namespaces, the seed objects (the trace's
	// admin steps) and the namespace content of the cluster's bootstrap
	// (builtins.SeedNamespaceContent).
	SetUp int
	// watched are the kinds each process's informers cached at the end
	// ("group/version/Kind"), for a reference run's Targets.
	Watched map[string][]string
	// partial: judging stopped once the run was decided to violate
	// (judgeRun): verdicts holds every violation no later step revises, not
	// every verdict.
	Partial bool
	// final is the run's final state and history, kept only for Replay
	// (world.keepFinal): a cluster per result would hold every explored
	// world in memory.
	Final *History
}

func (r *RunResult) Violated() []check.Verdict { return check.Violated(r.Verdicts) }

// faultFree reports whether p draws no fault: its runs are references.
func faultFree(p *plan.Plan) bool { return len(p.Faults) == 0 }

// scriptSteps are the author's scripted steps of a workload: the workload
// less what the generator drew.
func ScriptSteps(steps []plan.Step) []plan.Step {
	var out []plan.Step
	for _, s := range steps {
		if s.Script {
			out = append(out, s)
		}
	}
	return out
}

// runJudge is what one run of a plan is judged by: the verdicts' part of a
// run, which the world runs without knowing.
type Judging struct {
	// properties are the oracles, made afresh for each run (nil: none).
	Properties func() []check.Property
	// observe is given the run's end, inside its bubble, before the cluster
	// closes (nil: nothing kept).
	Observe func(*check.Run)
	// judged: a run judged against references (its profile label), not a
	// reference.
	Judged bool
}

// RunPlan runs p judged by j. startAfter delays the start of the operator's
// processes (the late reference).
func (w *World) RunPlan(t *testing.T, p *plan.Plan, j Judging, startAfter time.Duration) (*RunResult, error) {
	held, err := w.startingKinds(t)
	if err != nil {
		return nil, err
	}
	for {
		r, seen, err := w.RunHeld(t, p, j, startAfter, held)
		more := builtins.Missing(held, seen, w.triggers, !w.Opts.NoBuiltinControllers)
		if more == nil {
			return r, err
		}
		held = held.With(more) // run again with their controllers (package builtins)
	}
}

// runHeld is runPlan with the built-in controllers of the kinds held (nil:
// all); seen are the kinds the run's objects had or named as owners. The
// run's goroutines carry its profile labels (profile.go).
func (w *World) RunHeld(t *testing.T, p *plan.Plan, j Judging, startAfter time.Duration, held *Holding) (r *RunResult, seen *Holding, err error) {
	w.labelled(j.Judged, func() { r, seen, err = w.runUnlabelled(t, p, j, startAfter, held) })
	return r, seen, err
}

func (w *World) runUnlabelled(t *testing.T, p *plan.Plan, j Judging, startAfter time.Duration, held *Holding) (r *RunResult, seen *Holding, runErr error) {
	setups := &SetupFailures{}
	w.Runs++
	defer setups.survive(&runErr) // a Setup that never returns (validate_setup.go)
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		w.restartRandom = wallclock.SeedRandom(t, w.drawSeed(p.Seed)) // random.go
		opts := w.Options(p, setups, held)
		opts.Wall = wall
		for i := range opts.Processes {
			if w.Operators[opts.Processes[i].Name] {
				opts.Processes[i].StartDelay += startAfter
			}
		}
		c, err := cluster.New(p, opts)
		if err != nil {
			runErr = err
			return
		}
		setUp := len(c.Server.Log()) // nothing has run yet
		defer c.Close()
		defer forgetSystems(c) // systems.go
		var props []check.Property
		if j.Properties != nil {
			props = j.Properties()
		}
		for _, up := range w.Opts.Properties {
			props = append(props, userProperty{up, c})
		}
		verdicts := c.RunPhases(cluster.Phases{Fault: w.Opts.FaultPhase, Heal: w.Opts.HealBudget, Retries: w.retriesWaitedFor(p, props), Scheduled: w.scheduledWaitedFor(props)}, props...)
		seen = builtins.Seen(c.Server.Log())
		if err := cmp.Or(c.Err(), neverServed(c)); err != nil {
			runErr = err
			return
		}
		if err := setups.err(c.Trace.Steps(), w.Opts.Managers); err != nil && faultFree(p) {
			// With no fault to blame, a manager that cannot start is the
			// test's setup: nothing of the operator would be tested.
			runErr = err
			return
		}
		w.NoteCut(CutNote(verdicts)) // cut.go
		if j.Observe != nil {
			j.Observe(c.Observed())
		}
		r = &RunResult{Verdicts: verdicts, Steps: c.Trace.Steps(), Hash: c.Trace.Hash(), Log: c.Server.Log(), Start: c.Clock.Now().Add(-c.Now()),
			SetUp: setUp, Watched: watchedKinds(c)}
		if w.KeepFinal {
			r.Final = &History{c: c, run: c.Observed()}
		}
	})
	return r, seen, runErr
}

// retriesWaitedFor are the processes whose retries in back-off a run of p
// waits for before it is judged (cluster.Phases.Retries): the operator's,
// where p has faults (a back-off they grew: a fault-free run's is the
// operator's own) and something judges the run's end (a generic oracle not
// disabled, or a property). A run judged by the kernel's verdicts alone (a
// catalogue spec timing its run to the plan's length) ends where its heal
// does.
func (w *World) retriesWaitedFor(p *plan.Plan, props []check.Property) []string {
	if faultFree(p) || !w.judgesTheEnd(props) {
		return nil
	}
	return slices.Sorted(maps.Keys(w.Operators))
}

// scheduledWaitedFor are the processes whose scheduled work a run waits
// for before it is judged (cluster.Phases.Scheduled): the kubelet's, whose
// stops of deleted pods (a kill at the grace period's end) a real cluster
// makes whatever else happens, in every run, fault-free or not, where
// something judges the run's end (as retriesWaitedFor).
func (w *World) scheduledWaitedFor(props []check.Property) []string {
	if !w.judgesTheEnd(props) {
		return nil
	}
	return []string{kubeworld.KubeletProcess}
}

// judgesTheEnd reports whether something judges a run's end: a generic
// oracle not disabled, or a property.
func (w *World) judgesTheEnd(props []check.Property) bool {
	for _, name := range oracleNames {
		if !slices.Contains(w.Opts.Disable, name) {
			return true
		}
	}
	return len(props) > 0
}

// file is one file an option's glob matched, read.
type file struct {
	path string
	data []byte
}

// readFiles reads the files each of patterns (an option's globs, named by
// field in its error) matches, in the glob's order; a pattern that matches
// nothing is an error.
func readFiles(field string, patterns []string) ([]file, error) {
	var out []file
	for _, pattern := range patterns {
		paths, err := filepath.Glob(pattern)
		if err != nil || len(paths) == 0 {
			return nil, fmt.Errorf("%s: no file matches %q", field, pattern)
		}
		for _, p := range paths {
			b, err := os.ReadFile(p)
			if err != nil {
				return nil, err
			}
			out = append(out, file{p, b})
		}
	}
	return out, nil
}

// LengthenFaultPhase makes w's fault phase d (at least what it is): the
// faults drawn and aimed, the stale views' age and the run's phases follow
// it. For search's AimFaultPhase, before any plan of the exploration runs.
func (w *World) LengthenFaultPhase(d time.Duration) {
	if d <= w.Opts.FaultPhase {
		return
	}
	w.Opts.FaultPhase = d
	w.Space.Horizon = d
	w.Space.MaxStale = d / 2
}

// OperatorProcesses are the names of the operator's processes: every
// replica of each of Options.Managers, in their order (world.Operators as a
// list).
func (w *World) OperatorProcesses() []string {
	var out []string
	for _, m := range w.Opts.Managers {
		for _, spec := range m.Processes() {
			out = append(out, spec.Name)
		}
	}
	return out
}
