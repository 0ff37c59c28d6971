package operatortest

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/explore"
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
)

// Manager is one operator process: Setup runs its SetupWithManager functions on
// the process's manager at every start and restart, as its main does.
type Manager struct {
	// Name is the process's name in plans and timelines.
	Name string
	// ServiceAccount is the identity the process runs as (RBAC applies); nil
	// runs it as cluster admin.
	ServiceAccount *types.NamespacedName
	// Setup calls the operator's SetupWithManager functions on mgr.
	Setup func(mgr manager.Manager) error
	// Replicas runs the manager as that many pods: processes Name-0,
	// Name-1, ... (0 or 1: one process named Name). Several replicas elect a
	// leader, as managers with Options.LeaderElection do: only the leader runs
	// the controllers that need leader election (all, by default), and a
	// replica takes over once the leader's Lease has expired.
	Replicas int
	// LeaderElection configures the election: the Lease's namespace and name
	// (LeaderElectionNamespace and LeaderElectionID) and its durations
	// (controller-runtime's 15s, 10s and 2s by default). Nil with several
	// replicas means the Lease Name in ServiceAccount's namespace ("default"
	// without one). Set with one replica, that replica campaigns alone (its
	// restarts then wait for its old Lease to expire, as a real pod's do).
	LeaderElection *LeaderElection
	// NoLeaderElection runs several replicas without leader election: every
	// replica runs every controller, as a manager with LeaderElection false.
	NoLeaderElection bool
}

// LeaderElection is the Lease a manager's replicas campaign for (see
// Manager.LeaderElection).
type LeaderElection = process.LeaderElection

// processes are the manager's processes: its name and leader election for
// each replica.
func (m Manager) processes() []process.Spec {
	le := m.LeaderElection
	switch {
	case m.NoLeaderElection:
		le = nil
	case le == nil && m.Replicas > 1:
		le = &LeaderElection{Namespace: "default", Name: m.Name}
		if m.ServiceAccount != nil {
			le.Namespace = m.ServiceAccount.Namespace
		}
	}
	setup := m.Setup
	spec := process.Spec{Name: m.Name, ServiceAccount: m.ServiceAccount, LeaderElection: le,
		Setup: func(p *process.Process) error { return setup(p.Manager()) }}
	if m.Replicas <= 1 {
		return []process.Spec{spec}
	}
	out := make([]process.Spec, m.Replicas)
	for i := range out {
		out[i] = spec
		out[i].Name = fmt.Sprintf("%s-%d", m.Name, i)
	}
	return out
}

// Property is a domain property: Check returns nil when it holds for the run,
// else what it saw.
type Property struct {
	Name  string
	Check func(h *History) error
}

// Options describe the operator under test. Scheme, CRDs (unless every kind is
// built in), Managers and Objects are what a test gives; the rest has defaults.
type Options struct {
	// Scheme has every kind the operator uses, built-in and custom.
	Scheme *runtime.Scheme
	// CRDs are CustomResourceDefinition manifests, YAML as kubebuilder's
	// config/crd/bases holds them (several documents per file allowed); the
	// apiserver model validates, prunes and defaults custom resources with their
	// schemas. CRDFiles are paths (or globs) read at Run.
	CRDs     [][]byte
	CRDFiles []string
	// Managers are the operator's processes.
	Managers []Manager
	// Objects are created, as cluster admin, before time starts: the custom
	// resources the operator reconciles and what they need (namespaces are
	// created as needed).
	Objects []client.Object
	// Properties are the test's own properties, judged after the generic ones.
	Properties []Property
	// FaultPhase (default 1m) is how long faults are drawn over; HealBudget
	// (default 2m) how long the world then has to converge.
	FaultPhase, HealBudget time.Duration
	// Checks (default 100) and Seed are the explorer's budget and seed (0
	// is 1: the same plans in every run); the flags -ctrlsim.checks and
	// -ctrlsim.seed override them.
	Checks int
	Seed   uint64
	// ShrinkRuns bounds the runs spent shrinking a violation (0: shrinking
	// runs to its end). A bound keeps long runs' explorations short and is
	// deterministic: the minimal plan depends on the seed and the bound only.
	ShrinkRuns int
	// Shard explores one shard of the plans (-ctrlsim.shard=i/n); the zero
	// Shard explores them all.
	Shard Shard
	// Disable turns generic oracles off by name (see Oracles).
	Disable []string
	// NoWorkload keeps the seed objects as they are: no mutations, deletions
	// or re-creations are drawn.
	NoWorkload bool
	// NoBuiltinControllers leaves the namespace controller and the garbage
	// collector out of the world (they run by default, as in a real cluster).
	NoBuiltinControllers bool
	// NoWorkloadModels leaves the workload models out of the world: the
	// replicaset, deployment and job controllers (in kube-controller-manager)
	// and the kubelet (process kubelet), which run by default so that
	// Deployments roll out and Jobs complete (operatortest/kubeworld).
	NoWorkloadModels bool
	// WorkloadFaults also draws the kubelet's faults: pods not ready,
	// crash-looping or failing, and a node lost (sim/plan notready,
	// crashloop, podfail, nodelost), until the fault phase ends (a failed
	// pod stays failed). Off by default.
	WorkloadFaults bool
}

func (o Options) withDefaults() Options {
	if o.FaultPhase == 0 {
		o.FaultPhase = time.Minute
	}
	if o.HealBudget == 0 {
		o.HealBudget = 2 * time.Minute
	}
	if o.Checks == 0 {
		o.Checks = 100
	}
	if *flagChecks > 0 {
		o.Checks = *flagChecks
	}
	if *flagSeed != 0 {
		o.Seed = *flagSeed
	}
	return o
}

// withFlags applies -ctrlsim.shard.
func (o Options) withFlags() (Options, error) {
	if *flagShard != "" {
		sh, err := ParseShard(*flagShard)
		if err != nil {
			return o, fmt.Errorf("-ctrlsim.shard: %v", err)
		}
		o.Shard = sh
	}
	return o, nil
}

// KubeControllerManager is the process running the namespace controller, the
// garbage collector and the workload controllers.
const KubeControllerManager = "kube-controller-manager"

// Run tests the operator: it explores plans of faults (informer lag and holds,
// crashes at any client call, API errors and latency, more workers) over
// Options.Checks plans, each run as a fault phase, a heal and a heal budget and
// judged by the generic oracles and the test's properties. A violation is
// shrunk to a minimal plan, saved under testdata/ctrlsim/<test>.plan, and
// reported with the property, what it saw, a replay command and the timeline
// (controllers' log lines and Events included); the test fails. A saved plan
// is replayed first on every later run, as a regression test, until it holds
// (then delete it). With -ctrlsim.plan=FILE, Run replays that plan only.
func Run(t *testing.T, o Options) {
	t.Helper()
	o, err := o.withDefaults().withFlags()
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	w, err := newWorld(o)
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	saved := filepath.Join("testdata", "ctrlsim", fileName(t.Name())+".plan")
	if *flagPlan != "" {
		p, err := readPlan(*flagPlan)
		if err != nil {
			t.Fatalf("operatortest: %v", err)
		}
		w.judgeAndReport(t, p, *flagPlan)
		return
	}
	if p, err := readPlan(saved); err == nil {
		if w.judgeAndReport(t, p, saved) {
			return
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("operatortest: %v", err)
	}
	res, err := w.explore(t)
	if err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	if *flagJSON != "" {
		if err := writeShardResult(*flagJSON, res.shardResult(t.Name(), o)); err != nil {
			t.Fatalf("operatortest: %v", err)
		}
	}
	if !res.Caught {
		t.Logf("operatortest: %d plans explored (seed %d), no violation", res.Checks, o.Seed)
		return
	}
	if err := os.MkdirAll(filepath.Dir(saved), 0o755); err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	if err := os.WriteFile(saved, []byte(planHeader(t.Name(), saved)+res.Minimal.String()), 0o644); err != nil {
		t.Fatalf("operatortest: %v", err)
	}
	t.Logf("operatortest: violated after %d plans (seed %d); the minimal plan is saved", res.Checks, o.Seed)
	w.judgeAndReport(t, res.Minimal, saved)
}

// Result is what an exploration found.
type Result struct {
	// Caught: a plan violated a property. Checks is then how many plans it
	// took to find one; otherwise how many were explored (this shard's).
	Caught bool
	Checks int
	// FirstFailure is the place of the first violating plan in the
	// explorer's sequence (the same as Checks unless sharded).
	FirstFailure int
	// Minimal is the shrunk violating plan; Violations what it violates.
	Minimal    *plan.Plan
	Violations []check.Verdict
}

// Explore explores as Run does and returns what it found, without saving,
// replaying or failing the test (for measurements: checks to catch a bug).
// An error is a world that cannot run (the test's setup), not a finding.
func Explore(t *testing.T, o Options) (Result, error) {
	o = o.withDefaults()
	w, err := newWorld(o)
	if err != nil {
		return Result{}, err
	}
	return w.explore(t)
}

// ExploreShards explores each shard of n in turn, as n processes or CI jobs
// would, and returns their results (for Merge).
func ExploreShards(t *testing.T, o Options, n int) ([]ShardResult, error) {
	var out []ShardResult
	for i := 1; i <= n; i++ {
		so := o
		so.Shard = Shard{Index: i, Count: n}
		r, err := Explore(t, so)
		if err != nil {
			return nil, err
		}
		out = append(out, r.shardResult(t.Name(), so.withDefaults()))
	}
	return out, nil
}

func (w *world) explore(t *testing.T) (Result, error) {
	place, first, ran, shrinking := 0, 0, 0, 0
	sp := w.space
	sp.Targets = w.targets(t)
	res := explore.Run(plan.Generator(sp), w.o.Checks, w.o.Seed, func(p *plan.Plan) error {
		if first != 0 {
			if shrinking++; w.o.ShrinkRuns > 0 && shrinking > w.o.ShrinkRuns {
				return nil // the budget is spent: rapid keeps the smallest plan so far
			}
		}
		if first == 0 {
			// Drawing the sequence: run only this shard's plans.
			place++
			if !w.o.Shard.owns(place) {
				return nil
			}
			ran++
		}
		r, err := w.run(t, p)
		if err != nil {
			return &worldError{err}
		}
		if vs := r.violated(); len(vs) > 0 {
			if first == 0 {
				first = place // shrinking follows: every run counts from here
			}
			return &check.Violation{Verdicts: vs}
		}
		return nil
	})
	var we *worldError
	if errors.As(res.Err, &we) {
		return Result{}, fmt.Errorf("the world could not run a plan (a bug of the test's setup, not a finding): %w", we.err)
	}
	out := Result{Caught: res.Caught, Checks: ran, FirstFailure: first, Minimal: res.Minimal}
	var v *check.Violation
	if errors.As(res.Err, &v) {
		out.Violations = v.Verdicts
	}
	return out, nil
}

type worldError struct{ err error }

func (e *worldError) Error() string { return e.err.Error() }

func readPlan(path string) (*plan.Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := plan.Read(f)
	if err != nil {
		return nil, fmt.Errorf("plan %s: %w", path, err)
	}
	return p, nil
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func fileName(test string) string { return unsafeName.ReplaceAllString(test, "_") }

// judgeAndReport runs p; when it violates something it reports it and fails
// the test. It reports whether p held.
func (w *world) judgeAndReport(t *testing.T, p *plan.Plan, path string) bool {
	t.Helper()
	f, err := w.failure(t, p, path)
	if err != nil {
		t.Fatalf("operatortest: the world could not run plan %s: %v", path, err)
	}
	if f == nil {
		return true
	}
	t.Error(f.text)
	return false
}

// failure is what a violating plan's report says and where its story went.
type failure struct {
	text  string
	files artifacts
}

// failure runs p and, when it violates something, writes its story beside
// path and returns the report; nil when p held.
func (w *world) failure(t *testing.T, p *plan.Plan, path string) (*failure, error) {
	r, err := w.run(t, p)
	if err != nil {
		return nil, err
	}
	vs := r.violated()
	if len(vs) == 0 {
		return nil, nil
	}
	rep := &report{test: t.Name(), planPath: path, p: p, r: r, violated: vs, operators: w.operatorProcesses()}
	var b strings.Builder
	fmt.Fprintf(&b, "operatortest: plan %s violates %d propert%s:\n", path, len(vs), map[bool]string{true: "y", false: "ies"}[len(vs) == 1])
	for _, v := range vs {
		fmt.Fprintf(&b, "  %s at %v: %s\n", v.Property, v.At, v.Detail)
	}
	b.WriteString("\nwhy a real cluster can do this:\n")
	for _, l := range whyReal(p, r.steps) {
		fmt.Fprintf(&b, "  %s\n", l)
	}
	if steps := faultPath(p, r.steps, vs[0], rep.operators, 12); len(steps) > 0 {
		b.WriteString("\nfrom the fault to the violation:\n")
		for _, l := range steps {
			b.WriteString(l + "\n")
		}
	}
	fmt.Fprintf(&b, "\nthe plan:\n%s\n", indent(p.String()))
	fmt.Fprintf(&b, "replay: %s\n", replayCommand(t.Name(), path))
	f := &failure{}
	if f.files, err = rep.write(); err != nil {
		fmt.Fprintf(&b, "(the story could not be written beside the plan: %v)\n", err)
	} else {
		fmt.Fprintf(&b, "the story: %s (picture), %s (inspector), %s (a report for an issue; also: ctrlsim report %s)\n",
			f.files.SVG, f.files.HTML, f.files.Markdown, path)
	}
	fmt.Fprintf(&b, "\ntimeline (trace hash %s; log lines and Events included; the operator's processes: %s):\n", r.hash, strings.Join(rep.operators, ", "))
	for _, l := range foldTimeline(r.steps, rep.operators, fullTimeline()) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	f.text = b.String()
	return f, nil
}

// replayCommand is the go test command that replays a plan file of a test.
func replayCommand(test, path string) string {
	return fmt.Sprintf("go test -run '%s' -ctrlsim.plan=%s -v", runPattern(test), path)
}

// runPattern is the -run pattern that selects exactly the test named test
// (a subtest's name is matched level by level).
func runPattern(test string) string {
	parts := strings.Split(test, "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	return strings.Join(parts, "/")
}

// planHeader is the comment a saved plan starts with: the test it belongs to
// (ctrlsim report reads it) and how to replay it.
func planHeader(test, path string) string {
	return fmt.Sprintf("# operatortest test: %s\n# replay: %s\n", test, replayCommand(test, path))
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// world is the cluster of one test: what each plan's run is built from.
type world struct {
	refs  map[string]*refRun // fault-free runs by seed and workload (reference.go)
	o     Options
	crds  []apiserver.CRD
	kinds []schema.GroupVersionKind // judged and collected: CRD kinds, the objects' kinds and common children
	space plan.Space
}

// commonChildren are the built-in kinds operators most often create and own;
// the garbage collector collects them and the oracles look at them.
var commonChildren = []schema.GroupVersionKind{
	{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"}, {Version: "v1", Kind: "Service"},
	{Version: "v1", Kind: "ServiceAccount"}, {Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}, {Group: "batch", Version: "v1", Kind: "Job"},
}

func newWorld(o Options) (*world, error) {
	if o.Scheme == nil {
		return nil, errors.New("Options.Scheme is nil")
	}
	if len(o.Managers) == 0 {
		return nil, errors.New("Options.Managers is empty: nothing to test")
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
	for _, d := range docs {
		crds, err := apiserver.CRDsFromYAML(d)
		if err != nil {
			return nil, fmt.Errorf("CRDs: %w", err)
		}
		w.crds = append(w.crds, crds...)
	}
	seen := map[schema.GroupVersionKind]bool{}
	add := func(gvk schema.GroupVersionKind) {
		if !seen[gvk] && o.Scheme.Recognizes(gvk) {
			seen[gvk] = true
			w.kinds = append(w.kinds, gvk)
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
	for _, gvk := range commonChildren {
		add(gvk)
	}
	names := map[string]bool{KubeControllerManager: true, kubeworld.KubeletProcess: true}
	for _, m := range o.Managers {
		if m.Name == "" || m.Setup == nil || m.Replicas < 0 {
			return nil, fmt.Errorf("Managers: each needs a unique Name (not %q or %q), a Setup and Replicas of 0 or more", KubeControllerManager, kubeworld.KubeletProcess)
		}
		for _, spec := range m.processes() {
			if names[spec.Name] {
				return nil, fmt.Errorf("Managers: process name %q is taken (names must be unique, and not %q or %q)", spec.Name, KubeControllerManager, kubeworld.KubeletProcess)
			}
			names[spec.Name] = true
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
	for _, gvk := range w.kinds {
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
	if o.WorkloadFaults && !o.NoWorkloadModels {
		w.space.Pods = 10
		w.space.Nodes = kubeworld.DefaultNodes
	}
	if len(o.Objects) > 0 && !o.NoWorkload {
		w.space.Workload = w.workload()
	}
	return w, nil
}

// options are the cluster options of a run of p.
func (w *world) options(p *plan.Plan) cluster.Options {
	o := w.o
	var procs []process.Spec
	if !o.NoBuiltinControllers || !o.NoWorkloadModels {
		procs = append(procs, process.Spec{Name: KubeControllerManager, Setup: w.setupKubeControllerManager})
	}
	if !o.NoWorkloadModels {
		procs = append(procs, kubeworld.Kubelet(p, nil, kubeworld.Delays{}))
	}
	for _, m := range o.Managers {
		procs = append(procs, m.processes()...)
	}
	return cluster.Options{Scheme: o.Scheme, CRDs: w.crds, Processes: procs, Setup: w.setup, Actions: w.actions()}
}

// workloadKinds are the kinds the workload models add to the collector's and
// the namespace controller's (they are not judged).
var workloadKinds = []schema.GroupVersionKind{{Version: "v1", Kind: "Pod"}, {Group: "apps", Version: "v1", Kind: "ReplicaSet"},
	{Group: "discovery.k8s.io", Version: "v1", Kind: "EndpointSlice"}, {Group: "apps", Version: "v1", Kind: "ControllerRevision"},
	{Version: "v1", Kind: "PersistentVolumeClaim"}}

func (w *world) setupKubeControllerManager(p *process.Process) error {
	mgr := p.Manager()
	if !w.o.NoWorkloadModels {
		if err := kubeworld.SetupControllers(p); err != nil {
			return err
		}
	}
	if w.o.NoBuiltinControllers {
		return nil
	}
	var content []client.ObjectList
	var collected []client.Object
	kinds := w.kinds
	if !w.o.NoWorkloadModels {
		for _, k := range workloadKinds {
			if !slices.Contains(kinds, k) {
				kinds = append(slices.Clip(kinds), k)
			}
		}
	}
	for _, gvk := range kinds {
		obj, err := w.o.Scheme.New(gvk)
		if err != nil {
			continue
		}
		list, err := w.o.Scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		if err != nil {
			continue
		}
		collected = append(collected, obj.(client.Object))
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
	nc := &kube.NamespaceController{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: p.Clock(), Content: content}
	if err := nc.SetupWithManager(mgr); err != nil {
		return err
	}
	gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(), Kinds: collected}
	return gc.SetupWithManager(mgr)
}

// setup creates the test's objects (and their namespaces) as cluster admin.
func (w *world) setup(c *cluster.Cluster) error {
	ctx := context.Background()
	made := map[string]bool{"default": true, "kube-system": true, "kube-public": true}
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
		if err := c.Admin().Create(ctx, obj.DeepCopyObject().(client.Object)); err != nil {
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
}

func (r *result) violated() []check.Verdict { return check.Violated(r.verdicts) }

// run runs p in a testing/synctest bubble (so that the operator's wall-clock
// reads follow virtual time), and its fault-free reference for the converges
// oracle, and judges it.
func (w *world) run(t *testing.T, p *plan.Plan) (*result, error) {
	var ref *refRun
	on := func(name string) bool { return !slices.Contains(w.o.Disable, name) }
	if on(Converges) || on(UpdateSummaries) || on(InterleavingsAgree) {
		var err error
		if ref, err = w.reference(t, p.Seed, p.Steps); err != nil {
			return nil, err
		}
	}
	var refSnap *snapshot
	if ref != nil && (on(Converges) || on(UpdateSummaries)) {
		refSnap = ref.snap
	}
	_, r, err := w.runOnce(t, p, refSnap, false)
	if err != nil {
		return nil, err
	}
	if on(InterleavingsAgree) {
		v, err := w.interleavingsAgree(t, p, ref)
		if err != nil {
			return nil, err
		}
		r.verdicts = append(r.verdicts, v)
	}
	return r, nil
}

// runOnce runs p judged against ref (nil: no comparison with a reference);
// keep also returns the end state (a reference run's).
func (w *world) runOnce(t *testing.T, p *plan.Plan, ref *snapshot, keep bool) (*snapshot, *result, error) {
	var snap *snapshot
	var r *result
	var runErr error
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		opts := w.options(p)
		opts.Wall = wall
		c, err := cluster.New(p, opts)
		if err != nil {
			runErr = err
			return
		}
		defer c.Close()
		props := w.oracles(ref)
		for _, up := range w.o.Properties {
			props = append(props, userProperty{up, c})
		}
		verdicts := c.RunPhases(cluster.Phases{Fault: w.o.FaultPhase, Heal: w.o.HealBudget}, props...)
		if err := c.Err(); err != nil {
			runErr = err
			return
		}
		if keep {
			snap = takeSnapshot(c, w.kinds)
		}
		r = &result{verdicts: verdicts, steps: c.Trace.Steps(), hash: c.Trace.Hash(), log: c.Server.Log(), start: c.Clock.Now().Add(-c.Now())}
	})
	return snap, r, runErr
}
