package cluster

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
	"github.com/ctrlsim/ctrlsim/sim/rng"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Action is what a workload step does: Run runs in the kernel at the step's time,
// usually writing through c.Admin() (a user's kubectl). Args are the argument keys
// Run reads: a step that gives any other key (a typo such as nme= for name=) is
// refused when the plan is scheduled, rather than run as if it were absent.
type Action struct {
	Args []string
	Run  func(c *Cluster, args plan.Args) error
}

// Pending is what an action's Run returns when its step has not landed yet and
// goes on by itself (a user retrying a create that meets the old object still
// being deleted, or a step waiting behind that retry): the timeline records
// "pending: " and Reason, not an error. The world records how it ends
// (RecordAction).
type Pending struct{ Reason string }

func (p *Pending) Error() string { return p.Reason }

// Act is the action run that reads the argument keys args.
func Act(run func(c *Cluster, args plan.Args) error, args ...string) Action {
	return Action{Args: args, Run: run}
}

// Options describe a world: its types, its processes, its initial objects and the
// actions its workload can take.
type Options struct {
	Scheme    *runtime.Scheme
	CRDs      []apiserver.CRD
	Processes []process.Spec
	// Webhooks are the admission webhook configurations of the world
	// (process.WebhookConfigsFromYAML of config/webhook/manifests.yaml); nil
	// configures each webhook a manager registers through controller-runtime's
	// builder as kubebuilder scaffolds it (process.Webhooks). The apiserver
	// calls them from the start of time: Setup's objects are not admitted.
	Webhooks []process.WebhookConfig
	// Setup creates the initial objects, as cluster admin, before time starts.
	Setup func(c *Cluster) error
	// Actions interpret the plan's workload steps by name.
	Actions map[string]Action
	// Timing is how long API calls and watch deliveries take; nil means
	// DefaultTiming.
	Timing *Timing
	// Wall, if set, ties the wall clock that unmodified code reads (time.Now,
	// metav1.Now, time.Since, context deadlines) to the virtual clock: the run
	// starts at Wall.Now() and Wall.Sleep is called with every step of virtual
	// time. Inside a testing/synctest bubble, time.Now and time.Sleep make the
	// bubble's clock follow virtual time exactly (package wallclock does this).
	// Nil: the virtual clock starts at clock.Epoch and the wall clock is the
	// machine's.
	Wall *Wall
	// NamesSeed, when set, seeds the apiserver's random suffixes of generated
	// names instead of the plan's seed: they are the apiserver's randomness
	// (kube-apiserver draws them from util/rand), part of the environment, not
	// of the schedule, and operatortest gives the two schedules it compares
	// the same (operatortest/random.go). The schedule's own draws (the
	// scheduler, latencies, deliveries, CRD establishment) stay the plan's.
	NamesSeed *uint64
	// Exec runs the commands processes exec in containers (pods/exec and
	// attach through their REST configs): the fake of each operand's CLI,
	// given the container's files (ContainerFiles). Nil: an exec fails with
	// an error naming the pod, container and command.
	Exec restapi.ExecHandlers
	// MaxSteps, MaxWrites and MaxObjects bound the run's work: the task
	// steps it may take in all (scheduler.MaxSteps), the writes the apiserver
	// may commit, and the objects it may hold at once; past any of them the
	// run is cut (Cut). 0: DefaultMaxSteps, DefaultMaxWrites,
	// DefaultMaxObjects; negative: no bound.
	MaxSteps, MaxWrites, MaxObjects int
}

// The work bounds of a run. A run of the largest worlds here takes under
// four thousand task steps and commits under 2,300 writes (a catalogue entry:
// 3,665 steps at most; a seven-minute CronJob world: 830) and holds tens of
// objects. A storm of reconciles or writes at the rate of API latency, which
// a stalled watch may drive for the whole fault phase with correct code (a
// child re-created and collected again for 18 s: 34,000 steps, 4,100 writes;
// a loop that outlasts a 30 s stall by the hot-loop bound's 10 s: 49,000
// steps, 14,100 writes), costs a few seconds; writes are the dear steps (the
// field manager, validation, storage, every watch), and one that creates an
// object each time (a child of generated name its cache never shows) makes
// every later step dearer, each list and each event longer: unbounded, one
// such run took 198,000 steps, 22,000 writes and four minutes. The bounds
// keep any run to seconds (phases.go).
const (
	DefaultMaxSteps   = 200_000
	DefaultMaxWrites  = 20_000
	DefaultMaxObjects = 2_000
)

// Wall is the wall clock a world's virtual clock drives (see Options.Wall).
type Wall struct {
	Now func() time.Time
	// Sleep sleeps d, or less when wake (if not nil) is ready first, and
	// returns how long it slept: a manager Runnable woken by a timer of the
	// bubble stops the sleep to run at its instant (scheduler.SetWall).
	Sleep func(d time.Duration, wake <-chan struct{}) time.Duration
	// Settle, if set, waits until every other goroutine of the bubble is
	// durably blocked (synctest.Wait): with it a process may run manager
	// Runnables (scheduler.GoOutside).
	Settle func()
	// Cut, if set, is asked at each step of the run for a bound the harness
	// keeps outside the world (a plan's wall-clock bound): a reason cuts
	// the run there (scheduler.CutNow), "" lets it go on.
	Cut func() string
}

// Cluster is one simulated cluster running one plan: the apiserver model, the
// processes, the clock, the scheduler, and the trace of everything that happened.
type Cluster struct {
	Clock  *clock.Clock
	Server *apiserver.Server
	Sched  *scheduler.Scheduler
	Trace  *trace.Trace

	plan     *plan.Plan
	rng      *rng.Source
	start    time.Time
	admin    *kubeclient.Client
	reader   *kubeclient.Client // untraced admin reads, for properties
	procs    []*process.Process
	faults   *faults
	actions  map[string]Action
	findings []process.Finding
	closed   bool
	healAt   time.Duration
	hot      *hotLoops
	// containerFiles are what exec handlers keep in containers (exec.go).
	containerFiles map[fileKey]map[string]string
}

// New builds the world of opts running plan p: the server with the default
// namespaces, the initial objects, the processes, and the plan's workload and
// faults scheduled on the clock. Nothing runs until RunFor.
func New(p *plan.Plan, opts Options) (*Cluster, error) {
	if opts.Scheme == nil {
		return nil, fmt.Errorf("cluster: Options.Scheme is required")
	}
	if err := p.Validate(); err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	src := rng.New(p.Seed)
	clk := clock.New(clock.Epoch)
	if w := opts.Wall; w != nil {
		clk = clock.New(w.Now().UTC())
	}
	nameDraws := src.Stream("apiserver/names")
	if opts.NamesSeed != nil {
		nameDraws = rng.New(*opts.NamesSeed).Stream("apiserver/names")
	}
	c := &Cluster{
		Clock: clk,
		Server: apiserver.New(apiserver.Options{Scheme: opts.Scheme, Clock: clk, CRDs: opts.CRDs, Rand: nameDraws,
			Later: func(d time.Duration, f func()) { clk.AfterFunc(d, f) }, Delays: src.Stream("apiserver/crd")}),
		Sched:   newScheduler(clk, src.Stream("scheduler"), opts.Wall, opts.MaxSteps),
		Trace:   trace.New(),
		plan:    p,
		rng:     src,
		start:   clk.Now(),
		actions: opts.Actions,
	}
	c.faults = newFaults(c, p)
	c.boundLog(opts.MaxWrites, opts.MaxObjects, opts.Wall)
	timing := DefaultTiming
	if opts.Timing != nil {
		timing = *opts.Timing
	}
	c.hot = newHotLoops()
	c.hot.stalled = c.faults.stalled
	c.Trace.Observe = func(s *trace.Step) {
		if h := c.hot.observe(s); h != nil {
			h.Recent = c.recent(h)
			c.Sched.Stop()
		}
	}
	c.Server.CreateDefaultNamespaces()
	var pending process.PendingCall
	c.admin = kubeclient.New(c.Server, apiserver.Admin, kubeclient.Options{Hooks: kubeclient.Hooks{
		Before: func(call kubeclient.Call) error { pending = process.BeforeCall(c.Server, call); return nil },
		After: func(call kubeclient.Call, err error) {
			s := pending.Step(c.Server, call, err)
			s.Process = "admin"
			c.record(s)
		},
	}})
	c.reader = kubeclient.New(c.Server, apiserver.Admin, kubeclient.Options{})
	webhooks := process.NewWebhooks(c.Server, opts.Webhooks, opts.Webhooks == nil)
	// Conversion webhooks of multi-version CRDs: from the start, so that a
	// seed written in a version its webhook must convert fails while no
	// process serves it (operatortest retries it, as an applier would).
	c.Server.SetConverter(webhooks)
	if opts.Setup != nil {
		if err := opts.Setup(c); err != nil {
			return nil, fmt.Errorf("cluster setup: %w", err)
		}
	}
	c.Server.SetWebhookAdmission(webhooks)
	env := process.Env{
		Server: c.Server, Clock: clk, Scheduler: c.Sched, Trace: c.Trace, Start: c.start,
		Faults: injector{c.faults, timing}, OnFinding: func(f process.Finding) { c.findings = append(c.findings, f) },
		Webhooks: webhooks, Exec: c.withFiles(opts.Exec),
	}
	names := map[string]bool{}
	for _, spec := range opts.Processes {
		if names[spec.Name] {
			return nil, fmt.Errorf("cluster: two processes named %q", spec.Name)
		}
		names[spec.Name] = true
		c.procs = append(c.procs, process.New(env, spec))
	}
	if err := c.schedule(p, names); err != nil {
		return nil, err
	}
	for _, pr := range c.procs {
		pr.Boot()
	}
	return c, nil
}

// schedule puts the plan's steps and timed faults on the clock.
func (c *Cluster) schedule(p *plan.Plan, procs map[string]bool) error {
	for _, f := range p.Faults {
		if f.Process != "" && !procs[f.Process] {
			return fmt.Errorf("plan: fault %q names unknown process %q", f.String(), f.Process)
		}
	}
	steps := slices.Clone(p.Steps)
	slices.SortStableFunc(steps, func(a, b plan.Step) int { return int(a.At - b.At) })
	for _, s := range steps {
		act, ok := c.actions[s.Action]
		if !ok {
			return fmt.Errorf("plan: unknown action %q (this world has %v)", s.Action, c.actionNames())
		}
		for _, a := range s.Args {
			if !slices.Contains(act.Args, a.Key) {
				return fmt.Errorf("plan: action %s takes %s, not %s=", s.Action, keyList(act.Args), a.Key)
			}
		}
		var run func(attempt int)
		run = func(attempt int) {
			err := act.Run(c, s.Args)
			if process.WebhookUnavailable(err) {
				// A user's write refused because a webhook does not answer (its
				// operator is down) is applied again, as an applier retries.
				delay := min(time.Second<<min(attempt, 5), 30*time.Second)
				c.RecordAction(s.Action, fmt.Errorf("%w (tried again in %s, as an applier retries)", err, delay))
				c.Clock.AfterFunc(delay, func() { run(attempt + 1) })
				return
			}
			c.RecordAction(s.Action, err)
		}
		c.Clock.AfterFunc(s.At, func() { run(0) })
	}
	c.faults.schedule()
	return nil
}

// RecordAction adds the timeline line of a workload step named action that
// ended with err now: "ok", "pending: ..." (a *Pending) or "error: ...". The
// kernel records each step's first run so; a world records the later runs of
// a step it retries itself.
func (c *Cluster) RecordAction(action string, err error) {
	res := "ok"
	var p *Pending
	switch {
	case errors.As(err, &p):
		res = "pending: " + p.Reason
	case err != nil:
		res = "error: " + err.Error()
	}
	c.record(trace.Step{Op: "action", Object: action, Result: res})
}

func keyList(keys []string) string {
	if len(keys) == 0 {
		return "no arguments"
	}
	return strings.Join(keys, "=, ") + "="
}

func (c *Cluster) actionNames() []string {
	var out []string
	for n := range c.actions { // lint:order-independent sorted below
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}

// Admin is a cluster-admin client that reads and writes the server directly (a
// user with kubectl). Its calls are not yield points; they are traced as process
// "admin".
func (c *Cluster) Admin() client.Client { return c.admin }

// Process returns the process with this name, or nil.
func (c *Cluster) Process(name string) *process.Process {
	for _, p := range c.procs {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

// Processes returns the processes in the order they were given.
func (c *Cluster) Processes() []*process.Process { return c.procs }

// Findings are the reconcile panics seen so far.
func (c *Cluster) Findings() []process.Finding { return c.findings }

// Plan is the plan the cluster runs.
func (c *Cluster) Plan() *plan.Plan { return c.plan }

// Now is the virtual time since the start of the run.
func (c *Cluster) Now() time.Duration { return c.Clock.Now().Sub(c.start) }

// RunFor runs the world for d of virtual time. A run stopped by a hot loop does
// not run again.
func (c *Cluster) RunFor(d time.Duration) {
	if c.hot.found == nil {
		c.Sched.RunFor(d)
	}
}

// RunUntil runs the world until virtual time t since the start.
func (c *Cluster) RunUntil(t time.Duration) {
	if c.hot.found == nil {
		c.Sched.RunUntil(c.start.Add(t))
	}
}

// HotLoop returns the hot loop that stopped the run (a rate of reconciles or
// writes on one object above the bound for HotLoopSeconds), or nil.
func (c *Cluster) HotLoop() *HotLoop { return c.hot.found }

// StallStorms are the storms of reconciles or writes on one object, at the
// hot-loop bound for HotLoopSeconds, that a stalled watch drove (a hold was
// on in each of their seconds): notes, not hot loops (hotloop.go).
func (c *Cluster) StallStorms() []HotLoop {
	out := make([]HotLoop, len(c.hot.notes))
	for i, n := range c.hot.notes {
		out[i] = *n
	}
	return out
}

// recent returns the last trace lines of h's key, oldest first.
func (c *Cluster) recent(h *HotLoop) []string {
	var out []string
	steps := c.Trace.Steps()
	for i := len(steps) - 1; i >= 0 && len(out) < 6; i-- {
		s := steps[i]
		by := s.Process
		if s.Controller != "" {
			by += "/" + s.Controller
		}
		if by == h.By && s.Object == h.Object {
			out = append(out, s.String())
		}
	}
	slices.Reverse(out)
	return out
}

// Heal ends the fault phase: API faults are removed, holds released, lags and
// latencies drop to the default Timing and no more crashes happen. Processes in CrashLoopBackOff
// restart when their delay ends. The plan's workload faults stop too: the
// models that meet them (the kubelet of models/kube) read the heal from their
// process (process.Process.Healed).
func (c *Cluster) Heal() {
	if !c.faults.healed {
		c.healAt = c.Now()
	}
	c.faults.heal()
	c.record(trace.Step{Op: "heal"})
}

// Livelock returns the livelock that stopped the run, or nil: tasks that kept
// running without virtual time advancing. API calls take time, so a controller's
// hot loop is a HotLoop; a livelock is the harness's guard against code that
// spins without calling the API at all.
func (c *Cluster) Livelock() *scheduler.Livelock { return c.Sched.Livelock() }

// Cut returns the work bound that stopped the run (Options.MaxSteps,
// MaxObjects), or nil.
func (c *Cluster) Cut() *scheduler.Cut { return c.Sched.Cut() }

// boundLog cuts the run once the apiserver has committed more than
// maxWrites writes or holds more than maxObjects objects (0: the default;
// negative: no bound), counted from its log of commits after every task
// step.
func (c *Cluster) boundLog(maxWrites, maxObjects int, wall *Wall) {
	maxWrites = cmp.Or(maxWrites, DefaultMaxWrites)
	maxObjects = cmp.Or(maxObjects, DefaultMaxObjects)
	read, live := 0, 0
	c.Sched.OnStep = func(*scheduler.Task) {
		log := c.Server.Log()
		for _, e := range log[read:] {
			switch e.Type {
			case watch.Added:
				live++
			case watch.Deleted:
				live--
			}
		}
		read = len(log)
		switch {
		case maxWrites > 0 && len(log) > maxWrites:
			c.Sched.CutNow(fmt.Sprintf("more than %d writes", maxWrites))
		case maxObjects > 0 && live > maxObjects:
			c.Sched.CutNow(fmt.Sprintf("more than %d objects", maxObjects))
		case wall != nil && wall.Cut != nil:
			if why := wall.Cut(); why != "" {
				c.Sched.CutNow(why)
			}
		}
	}
}

// Healed reports whether Heal was called.
func (c *Cluster) Healed() bool { return c.faults.healed }

// Close ends every task so that no goroutine outlives the run. The cluster
// cannot run afterwards.
func (c *Cluster) Close() {
	if !c.closed {
		c.closed = true
		c.Sched.Close()
		for _, p := range c.procs {
			p.Close()
		}
	}
}

func (c *Cluster) record(s trace.Step) {
	s.At = c.Now()
	c.Trace.Add(s)
}

// Get reads an object as admin, for properties and tests: unlike Admin(), it is
// not traced, so judging a run does not change its trace.
func (c *Cluster) Get(key client.ObjectKey, obj client.Object) error {
	return c.reader.Get(context.Background(), key, obj)
}

// List lists objects as admin, for properties and tests (not traced).
func (c *Cluster) List(list client.ObjectList, opts ...client.ListOption) error {
	return c.reader.List(context.Background(), list, opts...)
}

// KindName formats a GVK as plans name kinds: "group/version/Kind" ("/v1/Pod").
func KindName(gvk schema.GroupVersionKind) string {
	return gvk.Group + "/" + gvk.Version + "/" + gvk.Kind
}

// Stream is the stream of the plan's seed with this key: the kernel's fault
// sites draw from theirs (one informer's lag draws), and a world from its own
// (a model's delays, a controller's order), keyed by what draws from it: the same plan
// gives the same draws, and a key of its own keeps them apart from every other
// site's. The kernel's keys start with apiserver/, scheduler, lag/, latency/,
// delivery/, call/ and list-order/; a world's must not.
func (c *Cluster) Stream(key string) *rng.Stream { return c.rng.Stream(key) }

// Observed is the run as properties judge it: the trace, the phases, the watch
// log and the final state.
func (c *Cluster) Observed() *check.Run {
	served := c.Server.StoredKinds() // each object once, as stored
	kinds := make([]schema.GroupVersionKind, 0, len(served))
	for _, k := range served {
		kinds = append(kinds, k.GVK)
	}
	var backoffs []check.Backoff
	var scheduled []check.Scheduled
	for _, p := range c.procs {
		backoffs = append(backoffs, p.Backoffs()...)
		for _, s := range p.Scheduled() {
			scheduled = append(scheduled, check.Scheduled{Process: p.Name(), Controller: s.Controller, Kind: s.Kind, Key: s.Key, What: s.What, Due: s.At.Sub(c.start)})
		}
	}
	return &check.Run{
		Steps: c.Trace.Steps(), HealAt: c.healAt, End: c.Now(), Log: c.Server.Log(), Start: c.start, Backoffs: backoffs, Scheduled: scheduled,
		Objects: func(gvk schema.GroupVersionKind) []client.Object {
			objs, _ := c.Server.Watcher().List(gvk)
			return objs
		},
		Kinds: kinds,
		Plan:  c.plan,
	}
}

// Judge checks properties against the run so far.
func (c *Cluster) Judge(props ...check.Property) []check.Verdict {
	r := c.Observed()
	out := make([]check.Verdict, len(props))
	for i, p := range props {
		out[i] = p.Check(r)
	}
	return out
}

func newScheduler(clk *clock.Clock, pick scheduler.Picker, w *Wall, maxSteps int) *scheduler.Scheduler {
	s := scheduler.New(clk, pick)
	switch {
	case maxSteps == 0:
		s.MaxSteps = DefaultMaxSteps
	case maxSteps > 0:
		s.MaxSteps = uint64(maxSteps)
	}
	if w != nil {
		s.SetWall(w.Sleep)
		if w.Settle != nil {
			s.SetSettle(w.Settle)
		}
	}
	return s
}

// Err is what stopped the run early, if anything did: a manager Runnable
// that woke outside the scheduler and called into the simulator (see
// scheduler.GoOutside). A run with an error has no verdicts worth reading.
func (c *Cluster) Err() error { return c.Sched.Err() }
