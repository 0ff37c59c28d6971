package world

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// KernelVerdicts are the names of the kernel's own verdicts, judged on every
// run besides the generic oracles; Options.Disable turns them off too.
var KernelVerdicts = []string{cluster.HotLoopProperty, cluster.LivelockProperty, cluster.ReconcilePanicProperty}

// AnyProperty, as Options.Expect, expects any property to be violated.
const AnyProperty = "*"

// Expected are the properties Options.Expect names, in its order (none when
// it is empty; AnyProperty alone when it is that).
func (o Options) Expected() []string {
	if o.Expect == "" {
		return nil
	}
	names := strings.Split(o.Expect, ",")
	for i, n := range names {
		names[i] = strings.TrimSpace(n)
	}
	return names
}

// Oracles are the names Options.Disable takes: the generic oracles and the
// kernel's verdicts (a test's own Properties are named by the test).
func Oracles() []string { return append(slices.Clone(oracleNames), KernelVerdicts...) }

// Validate checks the options before anything runs: every bad one at once,
// each naming its field, on one line ("; " between them; no silent pass: an
// option the harness would ignore or misread is refused, not guessed at).
// A nil Scheme or no Managers is told alone: nothing else can be checked.
func (o Options) Validate() error {
	if o.Scheme == nil {
		return fmt.Errorf("Options.Scheme is nil")
	}
	if len(o.Managers) == 0 {
		return fmt.Errorf("Options.Managers is empty: nothing to test")
	}
	var bad []string
	add := func(err error) {
		if err != nil {
			bad = append(bad, err.Error())
		}
	}
	add(o.validateExec())
	for i, m := range o.Managers {
		switch {
		case m.Name == "":
			add(fmt.Errorf("Options.Managers[%d].Name is empty", i))
		case m.Setup == nil && m.SetupWithSystems == nil:
			add(fmt.Errorf("Options.Managers[%d] (%s): Setup is nil: nothing would run", i, m.Name))
		case m.Setup != nil && m.SetupWithSystems != nil:
			add(fmt.Errorf("Options.Managers[%d] (%s): set Setup or SetupWithSystems, not both", i, m.Name))
		case m.Replicas < 0:
			add(fmt.Errorf("Options.Managers[%d] (%s): Replicas is %d: want Replicas of 0 or more", i, m.Name, m.Replicas))
		case m.StartDelay < 0:
			add(fmt.Errorf("Options.Managers[%d] (%s): StartDelay is %s: want 0 (the default) or more", i, m.Name, m.StartDelay))
		case m.Deployment != nil && (m.Deployment.Namespace == "" || m.Deployment.Name == ""):
			add(fmt.Errorf("Options.Managers[%d] (%s): Deployment %q needs a namespace and a name", i, m.Name, m.Deployment.String()))
		case m.Deployment != nil && m.Replicas > 1:
			add(fmt.Errorf("Options.Managers[%d] (%s): Deployment with Replicas %d: a Deployment's manager runs as one pod", i, m.Name, m.Replicas))
		}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"Checks", int64(o.Checks)}, {"ShrinkRuns", int64(o.ShrinkRuns)},
		{"FaultPhase", int64(o.FaultPhase)}, {"HealBudget", int64(o.HealBudget)}, {"Workers", int64(o.Workers)},
		{"NamespaceTermination", int64(o.NamespaceTermination)}, {"PlanTimeout", int64(o.PlanTimeout)},
	} {
		if f.v < 0 {
			add(fmt.Errorf("Options.%s is negative (%d), want 0 (the default) or more", f.name, f.v))
		}
	}
	valid := o.verdictNames()
	for _, name := range o.Disable {
		if !slices.Contains(valid, name) {
			add(fmt.Errorf("Options.Disable: unknown oracle %q (valid: %s)", name, strings.Join(valid, ", ")))
		}
	}
	for _, name := range o.Expected() {
		switch {
		case name == AnyProperty && o.Expect != AnyProperty:
			add(fmt.Errorf("Options.Expect: %q among other names (%q): it expects any property alone", AnyProperty, o.Expect))
		case name == AnyProperty:
		case name == "":
			add(fmt.Errorf("Options.Expect: an empty name in %q (names are separated by single commas)", o.Expect))
		case !slices.Contains(valid, name):
			add(fmt.Errorf("Options.Expect: unknown property %q (valid: %s, or %q for any)", name, strings.Join(valid, ", "), AnyProperty))
		case slices.Contains(o.Disable, name):
			add(fmt.Errorf("Options.Expect: %q is also in Options.Disable: it could never be violated", name))
		}
	}
	add(o.validateOwn()) // validate.go
	if o.KeepGoing && o.Shard.Count > 1 {
		add(fmt.Errorf("Options.KeepGoing with Options.Shard %s: keeping going is not sharded (run it unsharded)", o.Shard))
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// verdictNames are the names a verdict of a run can carry: the generic
// oracles, the kernel's and the test's own properties.
func (o Options) verdictNames() []string {
	out := Oracles()
	for _, p := range o.Properties {
		out = append(out, p.Name)
	}
	return out
}

// Stops reports whether v is a violation that stopped its run before the
// end of its heal budget: a hot loop or a livelock. Such a run never came to
// rest, so nothing that judges its end is judged (Enabled; operatortest/
// reference judges it by the kernel's verdicts alone).
func Stops(v check.Verdict) bool {
	return !v.Holds && (v.Property == cluster.HotLoopProperty || v.Property == cluster.LivelockProperty)
}

// Enabled drops the verdicts Options.Disable turns off. A run that a
// disabled hot-loop or livelock stopped never reached the end of its heal
// budget: none of its verdicts is judged (its end state is not at rest).
func (o Options) Enabled(vs []check.Verdict) []check.Verdict {
	if len(o.Disable) == 0 {
		return vs
	}
	for _, v := range vs {
		if Stops(v) && slices.Contains(o.Disable, v.Property) {
			return nil
		}
	}
	return slices.DeleteFunc(slices.Clone(vs), func(v check.Verdict) bool { return slices.Contains(o.Disable, v.Property) })
}

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

// Processes are the manager's processes: its name and leader election for
// each replica.
func (m Manager) Processes() []process.Spec {
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
	// FaultPhase is how long faults are drawn over (default: a minute, made
	// longer where the operator's writes come later: until 30.5 s after the
	// first write of a kind its fault-free run makes after the minute,
	// search's AimFaultPhase); HealBudget (default 2m) how long the world then has
	// to converge.
	FaultPhase, HealBudget time.Duration
	// faultPhaseDefault: FaultPhase was left to its default (WithDefaults),
	// which the fault-free run may lengthen (FaultPhaseDefaulted).
	faultPhaseDefault bool
	// PlanTimeout (default 2m) bounds the wall time one plan or shrink
	// candidate may take to be judged: past it the run is cut, not judged,
	// named with its plan and counted among the cut plans, and the
	// exploration goes on (operatortest/search's longrun.go).
	PlanTimeout time.Duration
	// Checks (default 100) and Seed are the explorer's budget and seed (0
	// is 1: the same plans in every run); the flags -ctrlsim.checks and
	// -ctrlsim.seed override them.
	Checks int
	Seed   uint64
	// ShrinkRuns bounds the candidates the shrinker tries on a violation,
	// a recalled one included (0: twice the random plans drawn to find it,
	// 20 at the least, so that a shrink takes about twice the time to
	// find; then each line of the plan is left out in turn while the
	// violation still shows, a handful of runs more; Result's ShrinkCandidates and ShrinkRuns say what a shrink
	// tried and ran, and a finding says when it stopped at the bound). A
	// bound counts plans, not time: the minimal plan depends on the seed
	// and the Options only.
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
	// when another property is violated. An operator with more than one
	// known bug names each, separated by commas
	// ("at-most-once,retried-after-failure"): a plan that violates any of
	// them is expected.
	Expect string
	// Nondeterministic names fields that legitimately differ between two runs
	// of one workload in the operator's domain (a counter of attempts): the
	// comparing oracles ignore their values, and a finding's replay is
	// judged modulo them (a field an operator renders by ranging over a Go
	// map: examples/mapports). A last resort, for what neither
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
	// NoBuiltinControllers leaves the namespace controller, the garbage
	// collector and the serviceaccount and root-ca-cert-publisher
	// controllers (every namespace's default ServiceAccount and
	// kube-root-ca.crt ConfigMap) out of the world (they run by default, as
	// in a real cluster).
	NoBuiltinControllers bool
	// NamespaceTermination is how long a deleted Namespace stays Terminating
	// at least, empty or not: what its content's finalizers and the
	// discovery of every API group take on a real cluster (seconds, a
	// minute for a namespace with slow finalizers). 0: it goes as soon as
	// it is empty.
	NamespaceTermination time.Duration
	// DisallowPrivileged runs the apiserver with --allow-privileged=false,
	// kube-apiserver's own flag default: a pod, or a workload's pod
	// template, with a privileged container (or a Windows hostProcess one)
	// is refused with a 422, "disallowed by cluster policy". The zero value
	// allows them, as kubeadm, kind and the managed clusters run
	// kube-apiserver (--allow-privileged=true).
	DisallowPrivileged bool
	// NoWorkloadModels leaves the workload models out of the world: the
	// replicaset, deployment and job controllers (in kube-controller-manager)
	// and the kubelet (process kubelet), which run by default so that
	// Deployments roll out and Jobs complete (operatortest/kubeworld).
	NoWorkloadModels bool
	// IgnoreSIGTERM names the containers, by name or image (with or without
	// its tag), whose process ignores SIGTERM: a deleted pod with one stays
	// Terminating for its whole grace period, then its containers are killed
	// (137). Every other container's process exits on SIGTERM within seconds
	// of its preStop hooks, as a real process with a handler or the default
	// action does, however long the grace period (a week's included). A run
	// is judged after the kills its kubelet has scheduled: one due past the
	// heal budget is waited for, and the world heals a budget more (Known
	// gaps: a week's wait).
	IgnoreSIGTERM []string
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
	// (classes, processes, kinds, the author's own API faults; package faults).
	// The zero Faults draws them all.
	Faults Faults
}

// DefaultFaultPhase is Options.FaultPhase's default before the fault-free
// run lengthens it (search's AimFaultPhase).
const DefaultFaultPhase = time.Minute

// FaultPhaseDefaulted says whether o's FaultPhase was left to its default
// (WithDefaults filled it in), which the fault-free run may lengthen.
func (o Options) FaultPhaseDefaulted() bool { return o.faultPhaseDefault }

// EffectiveSeed is the explorer's seed as it runs: 0 is 1 (sim/explore).
func (o Options) EffectiveSeed() uint64 {
	if o.Seed == 0 {
		return 1
	}
	return o.Seed
}

func (o Options) WithDefaults() Options {
	if o.FaultPhase == 0 {
		o.FaultPhase, o.faultPhaseDefault = DefaultFaultPhase, true
	}
	if o.HealBudget == 0 {
		o.HealBudget = 2 * time.Minute
	}
	if o.PlanTimeout == 0 {
		o.PlanTimeout = 2 * time.Minute
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

// WithFlags applies -ctrlsim.shard.
func (o Options) WithFlags() (Options, error) {
	if *flagShard != "" {
		sh, err := ParseShard(*flagShard)
		if err != nil {
			return o, fmt.Errorf("-ctrlsim.shard: %v", err)
		}
		o.Shard = sh
	}
	return o, nil
}

// validateOwn checks what Options say alone (validate calls it).
func (o Options) validateOwn() error {
	if sh := o.Shard; sh != (Shard{}) && (sh.Count < 1 || sh.Index < 1 || sh.Index > sh.Count) {
		return fmt.Errorf("Options.Shard is {Index: %d, Count: %d}: want 1 <= Index <= Count (the zero Shard explores every plan)", sh.Index, sh.Count)
	}
	taken := Oracles()
	seen := map[string]bool{}
	for i, p := range o.Properties {
		switch {
		case p.Name == "":
			return fmt.Errorf("Options.Properties[%d]: Name is empty", i)
		case slices.Contains(taken, p.Name):
			return fmt.Errorf("Options.Properties[%d] (%s): the name of a generic oracle or kernel verdict (%s): its violations would read as the oracle's, and Options.Disable or Expect would name both; give it a name of its own",
				i, p.Name, strings.Join(taken, ", "))
		case seen[p.Name]:
			return fmt.Errorf("Options.Properties[%d] (%s): the name of an earlier property", i, p.Name)
		case p.Check == nil:
			return fmt.Errorf("Options.Properties[%d] (%s): Check is nil: nothing would be judged", i, p.Name)
		}
		seen[p.Name] = true
	}
	return nil
}

// Shard is one shard of an exploration: Index from 1 to Count.
type Shard struct{ Index, Count int }

// ParseShard reads "i/n".
func ParseShard(s string) (Shard, error) {
	var sh Shard
	if _, err := fmt.Sscanf(s, "%d/%d", &sh.Index, &sh.Count); err != nil || sh.Count < 1 || sh.Index < 1 || sh.Index > sh.Count || fmt.Sprintf("%d/%d", sh.Index, sh.Count) != s {
		return Shard{}, fmt.Errorf("bad shard %q: want i/n with 1 <= i <= n", s)
	}
	return sh, nil
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.Index, s.Count) }

// Owns reports whether the plan at place k (from 1) of the sequence is this
// shard's; the zero Shard owns every plan.
func (s Shard) Owns(k int) bool { return s.Count <= 1 || (k-1)%s.Count == s.Index-1 }
