package kopf

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kclock "k8s.io/utils/clock"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	kopfop "github.com/ctrlsim/ctrlsim/controllers/kopf"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// PropAllHandled is kopf/no-event-after-failure's property on operatortest:
// check.Converges with AllHandled, named apart from the generic oracle
// converges (operatortest refuses a property named like an oracle).
const PropAllHandled = "all-handled"

// Names of the systems outside the cluster the operatortest entries model.
const (
	// Webhook is a flaky admission webhook on KopfExample PATCHes: its fault
	// alternate-422 refuses every other PATCH of an object.
	Webhook = "webhook"
	// Wire is the path the operator's watch events come by: its fault
	// poison makes an object's events undecodable to the operator.
	Wire = "wire"
	// Editor is a user (a CI bot) who edits an object over and over: the
	// domain step edit-every starts it.
	Editor = "editor"
)

// Alternating422 is the kopf/alternating-422 entry as an operatortest test
// of v's operator: a flaky admission webhook (the system Webhook, whose
// fault alternate-422 refuses every other PATCH of x, the first included,
// until the heal) while a user edits x every 200 ms to 2 s for up to 40 s,
// with informer lag and API latency, judged by bounded-retry-rate with the
// robust operator's quiet period beside the generic oracles.
func Alternating422(v variant.Variant) operatortest.Options {
	o := kopfOptions(v, kopfop.ReportHandler)
	o.Workload = operatortest.Workload{
		Steps:  []operatortest.StepKind{},
		Domain: []operatortest.DomainStep{editEvery()},
	}
	o.Systems = []operatortest.System{webhookSystem(), editorSystem()}
	o.Faults = operatortest.Faults{
		Classes: []plan.FaultKind{plan.Lag, plan.Latency},
		Kinds:   []schema.GroupVersionKind{kopfop.KopfExampleGVK},
		MaxLag:  time.Second,
	}
	o.Properties = []operatortest.Property{world.FromCheck(RetryRate{Quiet: kopfop.RobustResetAfter})}
	o.FaultPhase = time.Minute
	return o
}

// PoisonEvent is the kopf/poison-event entry as an operatortest test of v's
// operator: from some time in the first 30 s, the operator cannot decode x's
// watch events (the system Wire's fault poison, until the heal), someone
// else writes x's status (an event of x), and y's spec is edited 1-3 times;
// with informer lag and API latency, judged by isolation: y's
// every spec change is handled within 30 s in the fault phase.
func PoisonEvent(v variant.Variant) operatortest.Options {
	o := kopfOptions(v, kopfop.ReportHandler)
	o.Workload = operatortest.Workload{
		Steps: []operatortest.StepKind{},
		Domain: []operatortest.DomainStep{
			{Name: "touch", Params: []operatortest.Param{{Key: "name", Values: []string{"x"}}}, Within: 40 * time.Second, Max: 1,
				Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
					return touchAs(ctx, env.Client, a.Get("name"))
				}},
			{Name: "edit", Params: []operatortest.Param{{Key: "name", Values: []string{"y"}}, {Key: "field", Values: []string{"e0", "e1", "e2"}}},
				Within: time.Minute, Max: 3, Do: editStep},
		},
	}
	o.Systems = []operatortest.System{wireSystem()}
	o.Faults = operatortest.Faults{
		Classes: []plan.FaultKind{plan.Lag, plan.Latency}, // no workers fault: operatortest draws none

		Kinds:  []schema.GroupVersionKind{kopfop.KopfExampleGVK},
		MaxLag: time.Second,
	}
	o.Properties = []operatortest.Property{world.FromCheck(Isolation{Healthy: []string{"y"}, Within: 30 * time.Second})}
	o.FaultPhase = 2 * time.Minute
	return o
}

// NoEventAfterFailure is the kopf/no-event-after-failure entry as an
// operatortest test of v's operator with QuietHandler (handling an object
// makes no event of its own): 0-3 edits of x or y in the first minute, a 422
// window on x's or every KopfExample's PATCH, informer lag and API latency,
// judged by converges (kopf's diff base holds every object's spec by the end
// of the 3 min heal budget, with no write in its last minute).
func NoEventAfterFailure(v variant.Variant) operatortest.Options {
	o := kopfOptions(v, func(client.Client, client.Reader) kopfop.Handler { return kopfop.QuietHandler() })
	o.Workload = operatortest.Workload{
		Steps: []operatortest.StepKind{},
		Domain: []operatortest.DomainStep{{Name: "edit", Params: []operatortest.Param{
			{Key: "name", Values: []string{"x", "y"}}, {Key: "field", Values: []string{"e0", "e1", "e2"}}},
			Within: time.Minute, Max: 3, Do: editStep}},
	}
	o.Faults = operatortest.Faults{
		Classes: []plan.FaultKind{plan.API, plan.Lag, plan.Latency},
		Kinds:   []schema.GroupVersionKind{kopfop.KopfExampleGVK},
		API:     patch422,
		MaxLag:  time.Second,
	}
	handled := world.FromCheck(check.Converges{Desired: AllHandled, Window: time.Minute})
	handled.Name = PropAllHandled // not the generic oracle's name "converges"
	o.Properties = []operatortest.Property{handled}
	o.FaultPhase, o.HealBudget = time.Minute, 3*time.Minute
	return o
}

// Test is the world of o as an operatortest test over faultPhase: o's
// variant, QuietHandler when o.Quiet, x and y, the systems Webhook, Wire
// and Editor, and every step of the world declared, no fault class drawn
// (a plan's faults are its text's): the world the package's specs replay
// their plans on (operatortest.Replay). Steps:
//
//	at 1s edit name=x field=b            change spec.field (an update cause)
//	at 1s touch name=x                   a status write by someone else: an event, no change kopf diffs
//	at 1s grow name=x bytes=300000       a spec so large that kopf's diff-base annotation passes 256 KiB
//	at 1s edit-every name=x every=500ms for=2m   the editor's stream of edits
//	at 1s alternate-422 name=x           the webhook refuses every other PATCH of x
//	at 1s poison name=x                  the operator cannot decode x's watch events
//
// The streams and the systems' faults end at the heal.
func Test(o Options, faultPhase time.Duration) operatortest.Options {
	h := kopfop.ReportHandler
	if o.Quiet {
		h = func(client.Client, client.Reader) kopfop.Handler { return kopfop.QuietHandler() }
	}
	opts := kopfOptions(o.Variant, h)
	opts.Systems = []operatortest.System{webhookSystem(), wireSystem(), editorSystem()}
	opts.Workload = operatortest.Workload{Steps: []operatortest.StepKind{}, Domain: []operatortest.DomainStep{
		{Name: "edit", Keys: []string{"name", "field"}, Draw: func(*rapid.T) operatortest.Args { return args("name", "x", "field", "b") }, Do: editStep},
		{Name: "touch", Keys: []string{"name"}, Draw: func(*rapid.T) operatortest.Args { return args("name", "x") },
			Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
				return touchAs(ctx, env.Client, a.Get("name"))
			}},
		{Name: "grow", Keys: []string{"name", "bytes"}, Draw: func(*rapid.T) operatortest.Args { return args("name", "x", "bytes", "300000") },
			Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
				n, err := strconv.Atoi(a.Get("bytes"))
				if err != nil {
					return fmt.Errorf("grow: bytes: %w", err)
				}
				var k kopfop.KopfExample
				if err := env.Client.Get(ctx, types.NamespacedName{Namespace: Namespace, Name: a.Get("name")}, &k); err != nil {
					return err
				}
				k.Spec.Items = []string{strings.Repeat("x", n)}
				return env.Client.Update(ctx, &k)
			}},
		editEvery(),
	}}
	opts.Faults = operatortest.Faults{Classes: []plan.FaultKind{}}
	opts.FaultPhase = faultPhase
	return opts
}

// kopfOptions are the Options every kopf entry shares: the CRD, x and y, and
// v's operator with the handler h makes, on a client that the run's
// systems (Webhook, Wire; either may be absent) act on.
func kopfOptions(v variant.Variant, h func(client.Client, client.Reader) kopfop.Handler) operatortest.Options {
	return operatortest.Options{
		Scheme: sharedScheme(),
		CRDs:   [][]byte{crdYAML},
		Managers: []operatortest.Manager{{Name: Operator, SetupWithSystems: func(mgr manager.Manager, s operatortest.Systems) error {
			c := &systemsClient{Client: mgr.GetClient()}
			c.webhook, _ = s[Webhook].(*webhook)
			c.wire, _ = s[Wire].(*wire)
			r := &kopfop.Reconciler{Client: c, Variant: v, Exit: exitOf(mgr), Clock: catalogue.ClockOf(mgr),
				Handlers: []kopfop.Handler{h(c, mgr.GetAPIReader())}}
			return r.SetupWithManager(mgr)
		}}},
		Objects: []client.Object{example("x"), example("y")},
		// The example handler counts its runs, and kopf runs a handler at
		// least once: a crash or a lost response between the handler's
		// status write and kopf's progress PATCH runs it again. The count is
		// the run's history, not a state the operator converges to.
		Nondeterministic: []operatortest.NondeterministicField{{Kind: "KopfExample", Path: "status.handlerRuns"}},
	}
}

func editStep(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
	return editAs(ctx, env.Client, a.Get("name"), a.Get("field"))
}

func editAs(ctx context.Context, c client.Client, name, field string) error {
	var k kopfop.KopfExample
	if err := c.Get(ctx, types.NamespacedName{Namespace: Namespace, Name: name}, &k); err != nil {
		return err
	}
	k.Spec.Field = field
	return c.Update(ctx, &k)
}

func touchAs(ctx context.Context, c client.Client, name string) error {
	var k kopfop.KopfExample
	if err := c.Get(ctx, types.NamespacedName{Namespace: Namespace, Name: name}, &k); err != nil {
		return err
	}
	k.Status.Touches++
	return c.Status().Update(ctx, &k)
}

// systemsClient is the operator's client with the faults of the run's
// systems: the webhook's refusals (the API server's answers) and the
// poisoned objects' undecodable events.
type systemsClient struct {
	client.Client
	webhook *webhook
	wire    *wire
}

// Get stands for kopf's reading of a raw watch event: for a poisoned object
// it fails as decoding a malformed event would, outside kopf's throttled
// span (kopf #509's exit).
func (f *systemsClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	err := f.Client.Get(ctx, key, obj, opts...)
	if _, ok := obj.(*kopfop.KopfExample); ok && f.wire.poisoned(key) {
		return fmt.Errorf("decoding KopfExample %s from its watch event: json: cannot unmarshal number into Go struct field KopfExampleSpec.spec.field of type string", key)
	}
	return err
}

// Patch asks the webhook first: it may refuse this PATCH.
func (f *systemsClient) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
	if _, ok := obj.(*kopfop.KopfExample); ok {
		defer f.webhook.before(obj.GetNamespace(), obj.GetName())()
	}
	return f.Client.Patch(ctx, obj, p, opts...)
}

// webhook is a flaky admission webhook: under alternate-422, every other
// PATCH of the object fails with 422 Invalid, the first one included, until
// the heal. Its refusals are the API server's answers (RefuseNext).
type webhook struct {
	env         operatortest.SystemEnv
	alternating map[string]int // name -> PATCHes seen since alternate-422
}

func webhookSystem() operatortest.System {
	return operatortest.System{
		Name: Webhook,
		New: func(env operatortest.SystemEnv) (any, error) {
			return &webhook{env: env, alternating: map[string]int{}}, nil
		},
		Faults: []operatortest.DomainStep{{Name: "alternate-422", Params: []operatortest.Param{{Key: "name", Values: []string{"x"}}},
			Within: 20 * time.Second, Max: 1,
			Do: func(_ context.Context, env operatortest.StepEnv, a operatortest.Args) error {
				env.System(Webhook).(*webhook).alternating[a.Get("name")] = 0
				return nil
			}}},
	}
}

// before is called before a PATCH of namespace/name; the caller calls what
// it returns after the PATCH.
func (w *webhook) before(namespace, name string) (after func()) {
	if w == nil || namespace != Namespace || w.env.Healed() {
		return func() {}
	}
	n, ok := w.alternating[name]
	if !ok {
		return func() {}
	}
	w.alternating[name] = n + 1
	if n%2 != 0 {
		return func() {}
	}
	return w.env.RefuseNext(apiserver.Fault{Verb: "patch", Resource: kopfop.Plural, Namespace: Namespace, Name: name,
		Code: 422, Field: "metadata.annotations", Message: "rejected by a flaky admission webhook"})
}

// wire is the path of the operator's watch events: a poisoned object's
// events cannot be decoded, until the heal.
type wire struct {
	env operatortest.SystemEnv
	bad map[string]bool
}

func wireSystem() operatortest.System {
	return operatortest.System{
		Name: Wire,
		New: func(env operatortest.SystemEnv) (any, error) {
			return &wire{env: env, bad: map[string]bool{}}, nil
		},
		Faults: []operatortest.DomainStep{{Name: "poison", Params: []operatortest.Param{{Key: "name", Values: []string{"x"}}},
			Within: 30 * time.Second, Max: 1,
			Do: func(_ context.Context, env operatortest.StepEnv, a operatortest.Args) error {
				env.System(Wire).(*wire).bad[a.Get("name")] = true
				return nil
			}}},
	}
}

func (w *wire) poisoned(key client.ObjectKey) bool {
	return w != nil && key.Namespace == Namespace && w.bad[key.Name] && !w.env.Healed()
}

// editor is a user who edits an object over and over (edit-every), on the
// run's clock, until the heal or the stream's end.
type editor struct{ env operatortest.SystemEnv }

func editorSystem() operatortest.System {
	return operatortest.System{Name: Editor, New: func(env operatortest.SystemEnv) (any, error) { return &editor{env: env}, nil }}
}

// editEvery starts a stream of edits of x: every 200 ms to 2 s, for 1 to 40 s.
func editEvery() operatortest.DomainStep {
	return operatortest.DomainStep{
		Name: "edit-every", Keys: []string{"name", "every", "for"}, Within: 20 * time.Second, Max: 1,
		Draw: func(t *rapid.T) operatortest.Args {
			return args("name", "x", "every", millis(t, "edit-every", 200, 2000).String(), "for", seconds(t, "edit-length", 1, 40).String())
		},
		Do: func(_ context.Context, env operatortest.StepEnv, a operatortest.Args) error {
			every, err := time.ParseDuration(a.Get("every"))
			if err != nil || every <= 0 {
				return fmt.Errorf("edit-every: every: want a positive duration, got %q", a.Get("every"))
			}
			length, err := time.ParseDuration(a.Get("for"))
			if err != nil {
				return fmt.Errorf("edit-every: for: %w", err)
			}
			env.System(Editor).(*editor).stream(a.Get("name"), every, env.Now+length, env.Now)
			return nil
		},
	}
}

// stream edits name now and then every period while the run's time (now at
// the start) is before until, stopping at the heal or a failed edit.
func (e *editor) stream(name string, period, until, now time.Duration) {
	clk, ok := e.env.Clock.(interface {
		AfterFunc(time.Duration, func()) kclock.Timer
	})
	if !ok {
		panic("kopf: the run's clock has no AfterFunc")
	}
	n := 0
	var tick func()
	tick = func() {
		if e.env.Healed() || now >= until {
			return
		}
		n++
		if editAs(context.Background(), e.env.Client, name, "edit-"+strconv.Itoa(n)) != nil {
			return
		}
		now += period
		clk.AfterFunc(period, tick)
	}
	tick()
}

// OnOperatortest are the kopf entries written as operatortest tests, each in
// place of the catalogue's kernel entry of its ID (scenarios.All):
// persistent-422, alternating-422, poison-event and no-event-after-failure.
func OnOperatortest() []*catalogue.Entry {
	tests := map[string]func(variant.Variant) operatortest.Options{
		"kopf/persistent-422":         Persistent422,
		"kopf/alternating-422":        Alternating422,
		"kopf/poison-event":           PoisonEvent,
		"kopf/no-event-after-failure": NoEventAfterFailure,
	}
	return catalogue.Ported(Entries(), tests)
}

func seconds(t *rapid.T, label string, lo, hi int) time.Duration {
	return time.Duration(rapid.IntRange(lo, hi).Draw(t, label)) * time.Second
}

func millis(t *rapid.T, label string, lo, hi int) time.Duration {
	return time.Duration(rapid.IntRange(lo, hi).Draw(t, label)) * time.Millisecond
}

func args(kv ...string) plan.Args {
	var out plan.Args
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, plan.Arg{Key: kv[i], Value: kv[i+1]})
	}
	return out
}
