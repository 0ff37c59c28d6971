package operatortest

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"

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
	// SetupWithSystems, instead of Setup, also gets the run's instances of
	// Options.Systems (systems.go): the outside systems the operator talks
	// to.
	SetupWithSystems func(mgr manager.Manager, systems Systems) error
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
	// Deployment makes the manager the pod of a Deployment that another of
	// the test's managers creates (an operator that runs one worker per
	// tenant, as config-sync's reconciler-manager runs an ns-reconciler per
	// RepoSync): it starts once that Deployment exists, StartDelay later,
	// and stops when the Deployment goes or starts being deleted. Nil: it
	// runs from the start.
	Deployment *types.NamespacedName
	// StartDelay is the time from a start being due to the manager running
	// (a pod's scheduling and container start). Default 0.
	StartDelay time.Duration
	// Options are the manager.Options the operator's main gives
	// ctrl.NewManager: the cache's namespaces and selectors
	// (Cache.DefaultNamespaces, Cache.ByObject), the kinds read live
	// (Client.Cache.DisableFor), controller defaults and leader election
	// (LeaderElection, LeaderElectionID, LeaderElectionNamespace and the
	// durations, unless the LeaderElection field above is set). Options the
	// simulator cannot honour fail the test with one error naming them
	// (process.CheckOptions). Nil: controller-runtime's defaults, except that
	// the client reads Unstructured objects from the cache.
	Options *manager.Options
	// NewOptions builds the Options as main does (set Options or NewOptions);
	// it is called once per test.
	NewOptions func() (manager.Options, error)

	resolved *manager.Options // Options, or what NewOptions returned
}

// resolve sets m.resolved from Options or NewOptions, checked.
func (m *Manager) resolve() error {
	if m.Options != nil && m.NewOptions != nil {
		return fmt.Errorf("Managers: %s: set Options or NewOptions, not both", m.Name)
	}
	o := m.Options
	if m.NewOptions != nil {
		built, err := m.NewOptions()
		if err != nil {
			return fmt.Errorf("Managers: %s: NewOptions: %w", m.Name, err)
		}
		o = &built
	}
	if o == nil {
		return nil
	}
	if err := process.CheckOptions(*o); err != nil {
		return fmt.Errorf("Managers: %s: %w", m.Name, err)
	}
	m.resolved = o
	if m.LeaderElection == nil && !m.NoLeaderElection {
		ns := "default"
		if m.ServiceAccount != nil {
			ns = m.ServiceAccount.Namespace
		}
		le, err := process.LeaderElectionFrom(*o, ns)
		if err != nil {
			return fmt.Errorf("Managers: %s: %w", m.Name, err)
		}
		m.LeaderElection = le
	}
	return nil
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
	spec := process.Spec{Name: m.Name, ServiceAccount: m.ServiceAccount, LeaderElection: le, Options: m.resolved,
		BoundTo: m.Deployment, StartDelay: m.StartDelay,
		Setup: func(p *process.Process) error { return setup(p.Manager()) }}
	if m.SetupWithSystems != nil {
		spec.Setup = setupWithSystems(m.SetupWithSystems) // systems.go
	}
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
	// WebhookFiles are paths (or globs) of the operator's webhook
	// configurations, YAML as kubebuilder's config/webhook/manifests.yaml
	// holds them (MutatingWebhookConfiguration, ValidatingWebhookConfiguration).
	// The apiserver model calls the webhooks the managers register (with
	// ctrl.NewWebhookManagedBy) as they configure, from the start of time
	// (Objects are created before it, not admitted). None: each webhook
	// registered through the builder is configured as kubebuilder scaffolds
	// it (CREATE and UPDATE of its kind, failurePolicy Fail).
	WebhookFiles []string
	// Managers are the operator's processes.
	Managers []Manager
	// Objects are created, as cluster admin, before time starts: the custom
	// resources the operator reconciles and what they need (namespaces are
	// created as needed). An object whose kind no CRD serves yet (one the
	// operator installs at run time) is created, as an applier retrying it
	// would, at the instant its kind is served; one written in a version a
	// conversion webhook converts (a multi-version CRD's older version)
	// while no process serves the webhook yet is created again every
	// SeedRetry until it converts. A run that ends with one never created
	// fails with an error naming it. An object's status is written too, as
	// the controller that owns it had written it before the test began (a
	// HelmRelease that Flux reported Ready): a kind with a status
	// subresource drops it from the create, and a status write follows.
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
	// ShrinkRuns bounds the candidates the shrinker tries on a violation,
	// a recalled one included (0: shrinking runs to its end; Result's
	// ShrinkCandidates and ShrinkRuns say what a shrink tried and ran). A
	// bound keeps long runs' explorations short and is deterministic: the
	// minimal plan depends on the seed and the bound only.
	ShrinkRuns int
	// Shard explores one shard of the plans (-ctrlsim.shard=i/n); the zero
	// Shard explores them all.
	Shard Shard
	// Workers is how many workers explore the plans in parallel: the test's
	// process and Workers-1 worker processes re-running the test binary
	// (parallel.go; -ctrlsim.workers overrides it). 0 is GOMAXPROCS, 1 the
	// test's process alone. The results are the same whatever the number.
	Workers int
	// Disable turns verdicts off by name: the generic oracles and the
	// kernel's hot-loop, livelock and reconcile-panic (Oracles lists them),
	// and the test's own Properties. An unknown name is an error. A run that
	// a disabled hot-loop or livelock stopped is not judged at all (it never
	// reached rest).
	Disable []string
	// KeepGoing (or -ctrlsim.keepgoing) explores past violations, as a fuzzer
	// does past a crash: violations are told apart by their signature (the
	// property, the kinds its report names, and for a panic the code
	// location that panicked), each distinct one is shrunk to its own
	// minimal plan, saved as testdata/ctrlsim/<test>.<signature>.plan and
	// reported, and the exploration goes on over the same Checks plans
	// until none shows a new signature. One known bug then no longer hides
	// the others. Not with Shard.
	KeepGoing bool
	// Expect names a property the test expects to be violated (AnyProperty:
	// any): the test of a known bug. Run then passes when a plan violates
	// it, with the same report, saved plan and replay line in the log, and
	// fails when the whole budget holds (the bug is no longer caught) or
	// when another property is violated.
	Expect string
	// Nondeterministic names fields that legitimately differ between two runs
	// of one workload in the operator's domain (a counter of attempts): the
	// comparing oracles ignore their values. A last resort, for what neither
	// the cluster's own nondeterminism (uids, generated names, times,
	// resourceVersions, unordered lists) nor the fault-free runs of two
	// schedules show (see NondeterministicField); an unknown kind or an
	// empty path is an error.
	Nondeterministic []canon.NondeterministicField
	// History names objects that record what happened rather than what the
	// operator maintains (history.go): a Helm release's revision records,
	// an audit trail. How many there are and what the superseded ones say
	// depend on the schedule and on every crash (an interrupted upgrade
	// leaves a revision marked failed and one more after it), so the
	// comparing oracles leave them out and the test's own properties judge
	// them. Like Nondeterministic, a last resort an author declares.
	History []HistoryObjects
	// NoWorkload keeps the seed objects as they are: no mutations, deletions
	// or re-creations are drawn (Workload's script still runs). Workload
	// shapes what is drawn instead: rarely should a test need NoWorkload.
	NoWorkload bool
	// Workload shapes the workload: the seed objects and kinds of step it
	// draws, and a script of the author's own steps at given times, run by
	// the harness (see Workload).
	Workload Workload
	// NoBuiltinControllers leaves the namespace controller and the garbage
	// collector out of the world (they run by default, as in a real cluster).
	NoBuiltinControllers bool
	// NamespaceTermination is how long a deleted Namespace stays Terminating
	// at least, empty or not: what its content's finalizers and the
	// discovery of every API group take on a real cluster (seconds, a
	// minute for a namespace with slow finalizers). 0: it goes as soon as
	// it is empty.
	NamespaceTermination time.Duration
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
	// Systems are models of what the operator talks to outside the cluster,
	// one instance per run, with faults of their own (systems.go).
	Systems []System
	// Exec runs the commands the operator execs in containers (exec.go), by
	// container name or image (with or without its tag): the fakes of its
	// operands' CLIs. With Exec, plans also draw exec failures and timeouts.
	// An exec into a container without a handler fails with an error naming
	// the pod, the container and the command.
	Exec map[string]ExecHandler
	// Faults narrows the faults plans draw to the test's fault profile
	// (classes, processes, kinds, the author's own API faults; faults.go).
	// The zero Faults draws them all.
	Faults Faults
}

// effectiveSeed is the explorer's seed as it runs: 0 is 1 (sim/explore).
func (o Options) effectiveSeed() uint64 {
	if o.Seed == 0 {
		return 1
	}
	return o.Seed
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
	if *flagKeep {
		o.KeepGoing = true
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

type worldError struct{ err error }

func (e *worldError) Error() string { return e.err.Error() }

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_.-]+`)

func fileName(test string) string { return unsafeName.ReplaceAllString(test, "_") }

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
	if len(r.violated()) == 0 {
		return nil, nil
	}
	return w.failureOf(t, p, path, r), nil
}

// failureOf is the report of r, a violating run of p (saved at path), its
// story written beside path.
func (w *world) failureOf(t *testing.T, p *plan.Plan, path string, r *result) *failure {
	vs := r.violated()
	var err error
	rep := &report{test: t.Name(), planPath: path, p: p, r: r, violated: vs, operators: w.operatorProcesses(), systemFaults: systemFaultNames(w.o.Systems), systems: systemNames(w.o.Systems)}
	var b strings.Builder
	fmt.Fprintf(&b, "operatortest: plan %s violates %s:\n", path, strings.Join(propertyNames(vs), ", "))
	b.WriteString(verdictLines(vs))
	b.WriteString("\nwhy a real cluster can do this:\n")
	for _, l := range whyReal(p, r.steps, rep.systemFaults) {
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
	if f.files, err = rep.write(); err != nil { // failure.go: the artifacts directory
		fmt.Fprintf(&b, "(the story could not be written: %v)\n", err)
	} else {
		fmt.Fprintf(&b, "the story: %s (picture), %s (inspector), %s (a report for an issue; also: ctrlsim report %s)\n",
			f.files.SVG, f.files.HTML, f.files.Markdown, path)
		fmt.Fprintf(&b, "(the story is in the artifacts directory %s: -ctrlsim.artifacts or CTRLSIM_ARTIFACTS choose it; commit the plan %s, not the story)\n",
			filepath.Dir(f.files.SVG), path)
	}
	fmt.Fprintf(&b, "\ntimeline (trace hash %s; log lines and Events included; the operator's processes: %s):\n", r.hash, strings.Join(rep.operators, ", "))
	for _, l := range foldTimeline(r.steps, rep.shown(), fullTimeline()) {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	f.text = b.String()
	return f
}

// replayCommand is the go test command that replays a plan file of a test.
func replayCommand(test, path string) string {
	return fmt.Sprintf("go test -run '%s' -ctrlsim.plan=%s -v", RunPattern(test), path)
}

// RunPattern is the -run pattern that selects exactly the test named test
// (a subtest's name is matched level by level).
func RunPattern(test string) string {
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
	refs     map[string]*refRun // fault-free runs by seed and workload (reference.go)
	refOrder []string           // refs' keys, oldest first (keep)
	held     kindSet            // the kinds a run's built-in controllers start for at first (builtins.go)
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
}

// commonChildren are the built-in kinds operators most often create and own:
// the garbage collector collects them (the oracles judge every kind the
// operator reads or writes).
var commonChildren = []schema.GroupVersionKind{
	{Version: "v1", Kind: "ConfigMap"}, {Version: "v1", Kind: "Secret"}, {Version: "v1", Kind: "Service"},
	{Version: "v1", Kind: "ServiceAccount"}, {Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "StatefulSet"}, {Group: "batch", Version: "v1", Kind: "Job"},
}

func newWorld(o Options) (*world, error) {
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
	wl, scripted, err := w.workload()
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
	if err := w.narrow(o.Faults); err != nil {
		return nil, err
	}
	if err := w.validateWorld(); err != nil { // validate.go
		return nil, err
	}
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
	return w.withSystems(cluster.Options{Scheme: o.Scheme, CRDs: w.crds, Webhooks: w.webhooks, Processes: procs, Setup: w.setup, Actions: w.actions(), NamesSeed: &names, Exec: o.execHandlers()}) // systems.go
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

// run runs p in a testing/synctest bubble (so that the operator's wall-clock
// reads follow virtual time), and the fault-free runs of its workload that the
// differential oracles judge it against, and judges it.
func (w *world) run(t *testing.T, p *plan.Plan) (*result, error) {
	return w.judgeRun(t, p, false)
}

// judgeRun is run; with decide, it stops judging once the run violates a
// property whose verdict no later step revises (shrink.go: decided), and
// marks the result partial.
func (w *world) judgeRun(t *testing.T, p *plan.Plan, decide bool) (r *result, err error) {
	w.judgeCut = ""
	defer func() {
		if r != nil && w.judgeCut != "" { // cut.go
			r.verdicts, r.partial = w.o.enabled(cutVerdicts(r.verdicts, w.judgeCut)), false
		}
	}()
	var refs []*refRun
	if w.on(Converges) || w.on(UpdateSummaries) || w.on(InterleavingsAgree) || w.on(NoErrorAtRest) || w.on(WritesAtRest) {
		var err error
		if refs, err = w.references(t, p); err != nil {
			return nil, err
		}
	}
	snap, r, err := w.runOnce(t, p, refs, 0)
	if err != nil {
		return nil, err
	}
	if w.judgeCut != "" {
		return r, nil // not judged (cut.go)
	}
	if decide && !coldShrink && w.decided(r.verdicts) {
		r.verdicts, r.partial = w.o.enabled(r.verdicts), true
		return r, nil
	}
	if w.on(InterleavingsAgree) {
		v, err := w.interleavingsAgreeOrRandom(t, p, refs, snap)
		if err != nil {
			return nil, err
		}
		r.verdicts = append(r.verdicts, v)
	}
	var late *refRun
	for i, v := range r.verdicts {
		if v.Property != Converges || v.Holds {
			continue
		}
		// Before blaming the faults, the fields that differ with the
		// randomness alone (random.go).
		if refs, r.verdicts[i], err = w.convergesWithDraws(t, p, refs, snap, v); err != nil {
			return nil, err
		}
		if r.verdicts[i].Holds {
			continue
		}
		v = r.verdicts[i]
		// Before blaming the faults, the late operator's end state (run
		// only when needed: most runs converge to a schedule's).
		var err error
		if late, err = w.lateReference(t, p); err != nil {
			return nil, err
		}
		if late != nil {
			r.verdicts[i] = w.converges(append(slices.Clip(refs), late), snap, v.At)
		}
		if !r.verdicts[i].Holds && late != nil { // late.go
			if r.verdicts[i], err = w.convergesAfterEachStep(t, p, append(slices.Clip(refs), late), snap, r.verdicts[i]); err != nil {
				return nil, err
			}
		}
	}
	// And the fault-free run of the same downtime (downtime.go), when an
	// operator's process was down.
	if err := w.rejudgeWithDowntime(t, p, r, refs, late, snap); err != nil {
		return nil, err
	}
	for i, v := range r.verdicts {
		if v.Property != NoErrorAtRest || !v.Holds || v.Detail == "" {
			continue
		}
		// An error at rest the fault-free run shares is forgiven as the
		// workload's doing only if the workload did it: the fault-free run
		// without the generated steps must not end in it too.
		quiet, err := w.reference(t, p.Seed, scriptSteps(p.Steps))
		if err != nil {
			return nil, err
		}
		if d := errorWithoutWorkload(snap, quiet.snap); d != "" {
			r.verdicts[i] = check.Verdict{Property: NoErrorAtRest, At: v.At, Detail: d}
		}
	}
	r.verdicts = w.o.enabled(r.verdicts)
	return r, nil
}

// maxRecalledViolations bounds the violating runs recalled (runRecalled):
// a shrink returns to a few.
const maxRecalledViolations = 32

// holdingRun is what runRecalled keeps of a run that violated nothing.
var holdingRun = &result{}

// runRecalled is run, recalled when this world has judged p before. A run is
// a function of its plan, so a plan judged again (rapid's shrinker draws the
// same plan from many byte strings: shrinking twowrites' crash tried 299
// candidates, 28 distinct) need not run again. It keeps a marker for each
// plan that held and the whole result of up to maxRecalledViolations
// violating ones (the first ones; later ones run again). Replays that check
// a plan's determinism (a saved or minimal plan) use run, never this.
func (w *world) runRecalled(t *testing.T, p *plan.Plan) (*result, error) {
	return w.runRecalledAs(t, p, false)
}

// runRecalledAs is runRecalled, the run judged with decide (judgeRun); a
// partial result is recalled only for a caller that decides too.
func (w *world) runRecalledAs(t *testing.T, p *plan.Plan, decide bool) (*result, error) {
	key := p.String()
	if r, ok := w.recalled[key]; ok && !coldShrink && (decide || !r.partial) {
		return r, nil
	}
	r, err := w.judgeRun(t, p, decide)
	if err != nil {
		return nil, err
	}
	if w.recalled == nil {
		w.recalled = map[string]*result{}
	}
	switch {
	case len(r.violated()) == 0:
		w.recalled[key] = holdingRun
	case w.violationsRecalled < maxRecalledViolations:
		w.violationsRecalled++
		w.recalled[key] = r
	}
	return r, nil
}

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

// errorWithoutWorkload names the first error at rest of got that the
// fault-free run with no generated workload (quiet) also ends in: the world
// as the test sets it up leaves the operator failing, whatever the workload
// does, which is the operator's bug (or the test's), not a user's doing.
func errorWithoutWorkload(got, quiet *snapshot) string {
	for _, e := range got.atRest {
		for _, q := range quiet.atRest {
			if q.key == e.key && q.err == e.err {
				s := e.step
				return fmt.Sprintf("%s/%s's last reconcile of %s, at %v, ended in %s, and so does the fault-free run with no generated workload: the operator fails on the world the test sets up, not on something a user did", s.Process, s.Controller, s.Object, s.At, s.Result)
			}
		}
	}
	return ""
}

// runOnce runs p judged against refs (none: a reference run, judged by the
// oracles that need no reference) and returns its snapshot. startAfter
// delays the start of the operator's processes (the late reference).
func (w *world) runOnce(t *testing.T, p *plan.Plan, refs []*refRun, startAfter time.Duration) (*snapshot, *result, error) {
	held, err := w.startingKinds(t)
	if err != nil {
		return nil, nil, err
	}
	for {
		snap, r, seen, err := w.runHeld(t, p, refs, startAfter, held)
		more := w.missing(held, seen)
		if len(more) == 0 {
			return snap, r, err
		}
		held = held.with(more...) // run again with their controllers (builtins.go)
	}
}

// runHeld is runOnce with the built-in controllers of the kinds held (nil:
// all); seen are the kinds the run's objects had or named as owners. The
// run's goroutines carry its profile labels (profile.go).
func (w *world) runHeld(t *testing.T, p *plan.Plan, refs []*refRun, startAfter time.Duration, held kindSet) (snap *snapshot, r *result, seen kindSet, err error) {
	w.labelled(refs != nil, func() { snap, r, seen, err = w.runUnlabelled(t, p, refs, startAfter, held) })
	return snap, r, seen, err
}

func (w *world) runUnlabelled(t *testing.T, p *plan.Plan, refs []*refRun, startAfter time.Duration, held kindSet) (snap *snapshot, r *result, seen kindSet, runErr error) {
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
		props := w.oracles(refs)
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
		snap = w.snapshotOf(c.Observed())
		r = &result{verdicts: verdicts, steps: c.Trace.Steps(), hash: c.Trace.Hash(), log: c.Server.Log(), start: c.Clock.Now().Add(-c.Now()),
			watched: watchedKinds(c)}
		if w.keepFinal {
			r.final = &History{c: c, run: c.Observed()}
		}
	})
	return snap, r, seen, runErr
}
