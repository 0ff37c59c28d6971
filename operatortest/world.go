package operatortest

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"pgregory.net/rapid"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/models/kube"
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
	flagPlan   = flag.String("ctrlsim.plan", "", "operatortest: replay this plan file instead of exploring")
	flagShard  = flag.String("ctrlsim.shard", "", "operatortest: explore shard i/n of the plans (merge the shards' -ctrlsim.json files with ctrlsim merge)")
	flagJSON   = flag.String("ctrlsim.json", "", "operatortest: write what the exploration found to this file (JSON)")
	flagKeep   = flag.Bool("ctrlsim.keepgoing", false, "operatortest: keep exploring past violations, report each distinct one (Options.KeepGoing)")
)

// KubeControllerManager is the process running the namespace controller, the
// garbage collector and the workload controllers.
const KubeControllerManager = "kube-controller-manager"

type worldError struct{ err error }

func (e *worldError) Error() string { return e.err.Error() }

// world is the cluster of one test: what each plan's run is built from.
type world struct {
	// refs are the fault-free runs by seed and workload (reference.go's
	// refCache, kept here for the world's life).
	refs any
	held kindSet // the kinds a run's built-in controllers start for at first (builtins.go)
	// recalled are the plans judged, by text (runRecalled).
	recalled           map[string]*result
	violationsRecalled int
	// randomChecks is the random plans' budget once the sweep has taken its
	// places (0: the whole of Checks; sweep.go).
	randomChecks int
	// judgeCut is the note of a run cut at its work bound while the plan
	// being judged ran, or a reference it was judged against (cut.go);
	// cuts the places of the exploration whose plans were cut.
	judgeCut string
	cuts     map[int]string
	// runs counts the runs this process has simulated: plans, references
	// and the runs that judge a plan again (a shrink's cost: Finding).
	runs int
	// phase is what the runs are for now (profile.go's LabelPhase).
	phase string
	o     Options
	crds  []apiserver.CRD
	kinds []schema.GroupVersionKind // always judged: CRD kinds, the objects' kinds (and those the operator touches: judged)
	// collected are the kinds the garbage collector and the namespace
	// controller know: kinds, common children and the workload models' kinds.
	collected []schema.GroupVersionKind
	operators map[string]bool // the operator's processes
	shapes    *canon.Shapes
	nondet    canon.Nondeterministic
	history   []HistoryObjects
	space     plan.Space
	// restartRandom starts the run's randomness over (random.go).
	restartRandom func()
	// otherDraws: the run being made draws the operator's randomness from
	// another seed (random.go).
	otherDraws bool
	webhooks   []process.WebhookConfig // WebhookFiles; nil: derived
	// keepFinal: results keep their run's final state (Replay's Final).
	keepFinal bool
	// stepActions are the actions of the plan's steps (the workload's).
	stepActions func() map[string]cluster.Action
}

// commonChildren are the built-in kinds operators most often create and own:
// the garbage collector collects them (the oracles judge every kind the
// operator reads or writes).
var commonChildren = []schema.GroupVersionKind{
	{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"}, {Version: "v1", Kind: "Service"},
	{Version: "v1", Kind: "ServiceAccount"}, {Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}, {Group: "batch", Version: "v1", Kind: "Job"},
}

func newWorldOf(o Options, workload func(w *world) (*rapid.Generator[[]plan.Step], []schema.GroupVersionKind, error)) (*world, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := ensureCRDScheme(o.Scheme); err != nil {
		return nil, err
	}
	w := &world{o: o}
	docs := o.CRDs
	for _, pattern := range o.CRDFiles {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			return nil, fmt.Errorf("CRDFiles: no file matches %q", pattern)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			docs = append(docs, b)
		}
	}
	for _, pattern := range o.WebhookFiles {
		files, err := filepath.Glob(pattern)
		if err != nil || len(files) == 0 {
			return nil, fmt.Errorf("WebhookFiles: no file matches %q", pattern)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			configs, err := process.WebhookConfigsFromYAML(b)
			if err != nil {
				return nil, fmt.Errorf("WebhookFiles: %s: %w", f, err)
			}
			w.webhooks = append(w.webhooks, configs...)
		}
	}
	for _, d := range docs {
		crds, err := apiserver.CRDsFromYAML(d)
		if err != nil {
			return nil, fmt.Errorf("CRDs: %w", err)
		}
		w.crds = append(w.crds, crds...)
	}
	// One version per kind (a CRD's storage version, added first: upstream's
	// collector monitors each resource once, in its preferred version).
	seen := map[schema.GroupKind]bool{}
	add := func(gvk schema.GroupVersionKind) {
		if !seen[gvk.GroupKind()] && o.Scheme.Recognizes(gvk) {
			seen[gvk.GroupKind()] = true
			w.collected = append(w.collected, gvk)
		}
	}
	for _, c := range w.crds {
		add(c.GVK)
	}
	for _, obj := range o.Objects {
		gvk, err := apiutil.GVKForObject(obj, o.Scheme)
		if err != nil {
			return nil, fmt.Errorf("Objects: %w", err)
		}
		add(gvk)
	}
	w.kinds = slices.Clone(w.collected)
	for _, gvk := range commonChildren {
		add(gvk)
	}
	w.shapes = canon.NewShapes(w.crds, o.Scheme)
	nd, err := canon.ParsePaths(o.Nondeterministic, func(kind string) bool {
		for _, c := range w.crds {
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
	w.nondet = nd
	if w.history, err = historyOf(o.History, func(kind string) bool {
		for _, c := range w.crds {
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
	w.operators = map[string]bool{}
	wl, scripted, err := workload(w)
	if err != nil {
		return nil, fmt.Errorf("Options.Workload: %w", err)
	}
	for _, gvk := range scripted { // judged and collected, as seed objects' kinds are
		add(gvk)
		if o.Scheme.Recognizes(gvk) && !slices.Contains(w.kinds, gvk) {
			w.kinds = append(w.kinds, gvk)
		}
	}
	// The built-in processes' names are taken while they run (a test with
	// NoBuiltinControllers and NoWorkloadModels may run its own
	// kube-controller-manager).
	names := map[string]bool{KubeControllerManager: !o.NoBuiltinControllers || !o.NoWorkloadModels, kubeworld.KubeletProcess: !o.NoWorkloadModels}
	w.o.Managers = slices.Clone(o.Managers)
	for i := range w.o.Managers {
		if err := w.o.Managers[i].resolve(); err != nil {
			return nil, err
		}
	}
	o.Managers = w.o.Managers
	for _, m := range o.Managers {
		if m.Name == "" || m.Setup == nil && m.SetupWithSystems == nil || m.Replicas < 0 {
			return nil, fmt.Errorf("Managers: each needs a unique Name (not %q or %q), a Setup and Replicas of 0 or more", KubeControllerManager, kubeworld.KubeletProcess)
		}
		for _, spec := range m.processes() {
			if names[spec.Name] {
				return nil, fmt.Errorf("Managers: process name %q is taken (names must be unique, and not %q or %q while they run: NoBuiltinControllers, NoWorkloadModels)", spec.Name, KubeControllerManager, kubeworld.KubeletProcess)
			}
			names[spec.Name] = true
			w.operators[spec.Name] = true
			w.space.Processes = append(w.space.Processes, spec.Name)
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
	for _, gvk := range w.collected {
		w.space.Kinds = append(w.space.Kinds, gvk.Group+"/"+gvk.Version+"/"+gvk.Kind)
	}
	w.space.Horizon = o.FaultPhase
	// Crashes right after each of the first writes (Sieve's intermediate
	// states), besides crashes at client calls and times.
	w.space.MaxWrite = 10
	// Restarts onto an apiserver up to half the fault phase behind (Sieve's
	// stale states); timed faults aim at the reference run's reads and writes
	// (explore sets Targets).
	w.space.MaxStale = o.FaultPhase / 2
	// A stale restart is drawn to land before the heal: the first
	// CrashLoopBackOff (10s) and the slowest manager's start delay.
	w.space.RestartDelay = 10 * time.Second
	for _, m := range w.o.Managers {
		w.space.RestartDelay = max(w.space.RestartDelay, 10*time.Second+m.StartDelay)
	}
	if !o.NoWorkloadModels {
		for _, k := range workloadKinds {
			if !slices.Contains(w.collected, k) {
				w.collected = append(w.collected, k)
			}
		}
	}
	if o.WorkloadFaults && !o.NoWorkloadModels {
		w.space.Pods = 10
		w.space.Nodes = kubeworld.DefaultNodes
	}
	if len(o.Exec) > 0 {
		w.space.APIFaults = append(w.space.APIFaults, execFaults...)
	}
	w.space.Workload = wl
	return w, nil
}

// options are the cluster options of a run of p with the built-in
// controllers of the kinds held (builtins.go); the managers' Setup failures
// are recorded in setups.
func (w *world) options(p *plan.Plan, setups *setupFailures, held kindSet) cluster.Options {
	o := w.o
	var procs []process.Spec
	if !o.NoBuiltinControllers || !o.NoWorkloadModels {
		procs = append(procs, process.Spec{Name: KubeControllerManager, Setup: func(p *process.Process) error { return w.setupKubeControllerManager(p, held) }})
	}
	if !o.NoWorkloadModels && slices.ContainsFunc(kubeworld.KubeletTriggers, held.holds) {
		env := randomSeed(p.Seed) // the environment's draws (random.go)
		procs = append(procs, kubeworld.Kubelet(p, nil, kubeworld.Delays{Seed: &env}))
	}
	for _, m := range o.Managers {
		specs := m.processes()
		for i := range specs {
			specs[i].Setup = setups.wrap(m.Name, specs[i].Name, setups.bounded(m.Name, specs[i].Name, specs[i].Setup))
		}
		procs = append(procs, w.randomAtEveryStart(specs)...)
	}
	names := randomSeed(p.Seed)
	return w.withSystems(cluster.Options{Scheme: o.Scheme, CRDs: w.crds, Webhooks: w.webhooks, Processes: procs, Setup: w.setup, Actions: w.stepActions(), NamesSeed: &names, Exec: o.execHandlers()}) // systems.go
}

// workloadKinds are the kinds the workload models add to the collector's and
// the namespace controller's (they are not judged).
var workloadKinds = []schema.GroupVersionKind{{Version: "v1", Kind: "Pod"}, {Group: "apps", Version: "v1", Kind: "ReplicaSet"},
	{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}, {Group: "apps", Version: "v1", Kind: "ControllerRevision"},
	{Version: "v1", Kind: "PersistentVolumeClaim"}}

func (w *world) setupKubeControllerManager(p *process.Process, held kindSet) error {
	mgr := p.Manager()
	if !w.o.NoWorkloadModels {
		holds := held.holds
		if held == nil {
			holds = nil
		}
		if err := kubeworld.SetupControllersFor(p, holds); err != nil {
			return err
		}
	}
	if w.o.NoBuiltinControllers {
		return nil
	}
	var content []client.ObjectList
	var collected []client.Object
	for _, gvk := range w.collected {
		obj, err := w.o.Scheme.New(gvk)
		if err != nil {
			continue
		}
		list, err := w.o.Scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err != nil {
			continue
		}
		if held.holds(gvk.GroupKind()) {
			collected = append(collected, obj.(client.Object))
		}
		if scoped, _ := p.Manager().GetRESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version); scoped != nil && scoped.Scope.Name() == "namespace" {
			content = append(content, list.(client.ObjectList))
		}
	}
	for _, c := range w.crds {
		if !w.o.Scheme.Recognizes(c.GVK) {
			// A kind only its CRD defines: collected through its metadata, as
			// upstream's collector watches every kind (not yet deleted by the
			// namespace controller: models/kube's Known gaps).
			m := &metav1.PartialObjectMetadata{}
			m.SetGroupVersionKind(c.GVK)
			collected = append(collected, m)
		}
	}
	nc := &kube.NamespaceController{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: p.Clock(), Content: content,
		MinTerminating: w.o.NamespaceTermination}
	if err := nc.SetupWithManager(mgr); err != nil {
		return err
	}
	// Sync: the kinds of CRDs installed at run time are collected too, from the
	// collector's next discovery sync on, as kube-controller-manager's are.
	gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(), Kinds: collected,
		Sync: kube.GCSyncPeriod, Clock: p.Clock()}
	return gc.SetupWithManager(mgr)
}

// setup creates the test's objects (and their namespaces) as cluster admin.
func (w *world) setup(c *cluster.Cluster) error {
	ctx := context.Background()
	made := map[string]bool{"default": true, "kube-system": true, "kube-public": true}
	pending := &pendingSeeds{c: c}
	for _, m := range w.o.Managers {
		for _, spec := range m.processes() {
			if le := spec.LeaderElection; le != nil && !made[le.Namespace] {
				made[le.Namespace] = true
				if err := createNamespace(ctx, c, le.Namespace); err != nil {
					return err
				}
			}
		}
	}
	for _, obj := range w.o.Objects {
		if ns := obj.GetNamespace(); ns != "" && !made[ns] {
			made[ns] = true
			if err := createNamespace(ctx, c, ns); err != nil {
				return err
			}
		}
		if err := createSeed(ctx, c, obj); unserved(err) {
			pending.add(obj) // its CRD comes at run time (crds.go)
		} else if unconverted(err) {
			pending.add(obj) // its conversion webhook's process is not up yet (crds.go)
			pending.retry()
		} else if err != nil {
			return fmt.Errorf("creating %T %s: %w", obj, client.ObjectKeyFromObject(obj), err)
		}
	}
	return nil
}

// result is one judged run.
type result struct {
	verdicts []check.Verdict
	steps    []trace.Step
	hash     string
	log      []apiserver.Event // every committed version: the story reads objects from it
	start    time.Time         // the run's epoch
	// watched are the kinds each process's informers cached at the end
	// ("group/version/Kind"), for a reference run's Targets.
	watched map[string][]string
	// partial: judging stopped once the run was decided to violate
	// (judgeRun): verdicts holds every violation no later step revises, not
	// every verdict.
	partial bool
	// final is the run's final state and history, kept only for Replay
	// (world.keepFinal): a cluster per result would hold every explored
	// world in memory.
	final *History
}

func (r *result) violated() []check.Verdict { return check.Violated(r.verdicts) }

// faultFree reports whether p draws no fault: its runs are references.
func faultFree(p *plan.Plan) bool { return len(p.Faults) == 0 }

// scriptSteps are the author's scripted steps of a workload: the workload
// less what the generator drew.
func scriptSteps(steps []plan.Step) []plan.Step {
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
type runJudge struct {
	// properties are the oracles, made afresh for each run (nil: none).
	properties func() []check.Property
	// observe is given the run's end, inside its bubble, before the cluster
	// closes (nil: nothing kept).
	observe func(*check.Run)
	// judged: a run judged against references (its profile label), not a
	// reference.
	judged bool
}

// runPlan runs p judged by j. startAfter delays the start of the operator's
// processes (the late reference).
func (w *world) runPlan(t *testing.T, p *plan.Plan, j runJudge, startAfter time.Duration) (*result, error) {
	held, err := w.startingKinds(t)
	if err != nil {
		return nil, err
	}
	for {
		r, seen, err := w.runHeld(t, p, j, startAfter, held)
		more := w.missing(held, seen)
		if len(more) == 0 {
			return r, err
		}
		held = held.with(more...) // run again with their controllers (builtins.go)
	}
}

// runHeld is runPlan with the built-in controllers of the kinds held (nil:
// all); seen are the kinds the run's objects had or named as owners. The
// run's goroutines carry its profile labels (profile.go).
func (w *world) runHeld(t *testing.T, p *plan.Plan, j runJudge, startAfter time.Duration, held kindSet) (r *result, seen kindSet, err error) {
	w.labelled(j.judged, func() { r, seen, err = w.runUnlabelled(t, p, j, startAfter, held) })
	return r, seen, err
}

func (w *world) runUnlabelled(t *testing.T, p *plan.Plan, j runJudge, startAfter time.Duration, held kindSet) (r *result, seen kindSet, runErr error) {
	setups := &setupFailures{}
	w.runs++
	defer setups.survive(&runErr) // a Setup that never returns (validate_setup.go)
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		w.restartRandom = wallclock.SeedRandom(t, w.drawSeed(p.Seed)) // random.go
		opts := w.options(p, setups, held)
		opts.Wall = wall
		for i := range opts.Processes {
			if w.operators[opts.Processes[i].Name] {
				opts.Processes[i].StartDelay += startAfter
			}
		}
		c, err := cluster.New(p, opts)
		if err != nil {
			runErr = err
			return
		}
		defer c.Close()
		defer forgetSystems(c) // systems.go
		var props []check.Property
		if j.properties != nil {
			props = j.properties()
		}
		for _, up := range w.o.Properties {
			props = append(props, userProperty{up, c})
		}
		verdicts := c.RunPhases(cluster.Phases{Fault: w.o.FaultPhase, Heal: w.o.HealBudget}, props...)
		seen = seenKinds(c.Server.Log())
		if err := cmp.Or(c.Err(), neverServed(c)); err != nil {
			runErr = err
			return
		}
		if err := setups.err(c.Trace.Steps(), w.o.Managers); err != nil && faultFree(p) {
			// With no fault to blame, a manager that cannot start is the
			// test's setup: nothing of the operator would be tested.
			runErr = err
			return
		}
		w.noteCut(cutNote(verdicts)) // cut.go
		if j.observe != nil {
			j.observe(c.Observed())
		}
		r = &result{verdicts: verdicts, steps: c.Trace.Steps(), hash: c.Trace.Hash(), log: c.Server.Log(), start: c.Clock.Now().Add(-c.Now()),
			watched: watchedKinds(c)}
		if w.keepFinal {
			r.final = &History{c: c, run: c.Observed()}
		}
	})
	return r, seen, runErr
}
