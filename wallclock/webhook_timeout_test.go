package wallclock_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// slowDefaulter sleeps for the duration a Widget's "sleep" label names, then
// defaults its color: a webhook that waits on something slow. With the label
// "ctx" it waits for its request's context to end instead, and notes when
// (handlerEnds) and with what error.
type slowDefaulter struct{}

// handlerEnds are the handlers' ends, by widget name: how long the handler
// ran and why it ended ("answered", or its context's error).
var handlerEnds = struct {
	sync.Mutex
	m map[string]string
}{m: map[string]string{}}

func noteEnd(name string, took time.Duration, why string) {
	handlerEnds.Lock()
	defer handlerEnds.Unlock()
	handlerEnds.m[name] = took.String() + " " + why
}

func (slowDefaulter) Default(ctx context.Context, w *apiservertest.Widget) error {
	start := time.Now() // the bubble's clock: virtual time
	if w.Labels["sleep"] == "ctx" {
		<-ctx.Done()
		noteEnd(w.Name, time.Since(start), ctx.Err().Error())
		return ctx.Err()
	}
	if d, err := time.ParseDuration(w.Labels["sleep"]); err == nil {
		time.Sleep(d)
		noteEnd(w.Name, time.Since(start), "answered")
	}
	if w.Spec.Color == "" {
		w.Spec.Color = "red"
	}
	return nil
}

// timeoutWorld: process "hooks" serves slowDefaulter; process "writer"
// reconciles each ConfigMap by creating a Widget of its name whose sleep label
// is the ConfigMap's data.sleep, and records the outcome in data.result
// ("created color=<color>" or the error).
func timeoutWorld(configs []process.WebhookConfig, sleeps map[string]string) func() cluster.Options {
	return func() cluster.Options {
		return cluster.Options{
			Scheme: apiservertest.Scheme(), CRDs: []apiserver.CRD{apiservertest.WidgetCRD}, Webhooks: configs,
			Processes: []process.Spec{
				{Name: "hooks", Setup: func(p *process.Process) error {
					return ctrl.NewWebhookManagedBy(p.Manager(), &apiservertest.Widget{}).WithDefaulter(slowDefaulter{}).Complete()
				}},
				{Name: "writer", Setup: func(p *process.Process) error {
					c := p.Manager().GetClient()
					return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).
						Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
							cm := &corev1.ConfigMap{}
							if err := c.Get(ctx, req.NamespacedName, cm); err != nil || cm.Data["sleep"] == "" || cm.Data["result"] != "" {
								return reconcile.Result{}, client.IgnoreNotFound(err)
							}
							w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name,
								Labels: map[string]string{"sleep": cm.Data["sleep"]}}, Spec: apiservertest.WidgetSpec{Size: 1}}
							var result string
							if err := c.Create(ctx, w); err != nil {
								result = err.Error()
							} else {
								result = "created color=" + w.Spec.Color
							}
							cm.Data["result"] = result
							return reconcile.Result{}, c.Update(ctx, cm)
						}))
				}},
			},
			Setup: func(c *cluster.Cluster) error {
				for _, name := range slices.Sorted(maps.Keys(sleeps)) {
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Data: map[string]string{"sleep": sleeps[name]}}
					if err := c.Admin().Create(context.Background(), cm); err != nil {
						return err
					}
				}
				return nil
			},
		}
	}
}

// runTimeouts runs the world for a minute in a bubble (twice, checking the
// trace is the same) and returns each ConfigMap's result and the trace.
func runTimeouts(t *testing.T, configs []process.WebhookConfig, sleeps map[string]string) (map[string]string, []trace.Step) {
	t.Helper()
	return runTimeoutsPlan(t, "seed 3\n", configs, sleeps)
}

// runTimeoutsPlan is runTimeouts under the plan text.
func runTimeoutsPlan(t *testing.T, text string, configs []process.WebhookConfig, sleeps map[string]string) (map[string]string, []trace.Step) {
	t.Helper()
	results := map[string]string{}
	var steps []trace.Step
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	err = wallclock.CheckDeterminism(t, p, timeoutWorld(configs, sleeps), func(c *cluster.Cluster) {
		c.RunFor(time.Minute)
		for name := range sleeps { // each read on its own
			cm := &corev1.ConfigMap{}
			if err := c.Get(client.ObjectKey{Namespace: "default", Name: name}, cm); err != nil {
				t.Fatal(err)
			}
			results[name] = cm.Data["result"]
		}
		steps = c.Trace.Steps()
	})
	if err != nil {
		t.Fatal(err)
	}
	return results, steps
}

// createTook is how long the writer's create of the Widget name took: from
// its read of the ConfigMap that asked for it (the reconcile's previous
// call) to the create's step (recorded once the response came).
func createTook(steps []trace.Step, name string) time.Duration {
	var read time.Duration = -1
	for _, s := range steps {
		if s.Process != "writer" {
			continue
		}
		if s.Object == "ConfigMap default/"+name && strings.Contains(s.Op, "get") {
			read = s.At
		}
		if s.Op == "create" && s.Object == "Widget default/"+name && read >= 0 {
			return s.At - read
		}
	}
	return -1
}

// A webhook handler that waits longer than the configuration's
// timeoutSeconds (10 s by default) fails the write as kube-apiserver's
// client gives up on it ("context deadline exceeded", an Internal error under
// failurePolicy Fail); one that answers in time passes. The handler's wait
// is the calling reconcile's, in virtual time.
func TestAWebhookThatOutlastsItsTimeoutFailsTheWriteDeterminism(t *testing.T) {
	results, steps := runTimeouts(t, nil, map[string]string{"quick": "2s", "slow": "15s"})
	if results["quick"] != "created color=red" {
		t.Errorf("a handler answering in 2s: %q, want the defaulted widget created", results["quick"])
	}
	want := `Internal error occurred: failed calling webhook "mwidget-v1.kb.io": failed to call webhook: Post "https://webhook-service.system.svc:443/mutate-test-ctrlsim-dev-v1-widget?timeout=10s": context deadline exceeded`
	if results["slow"] != want {
		t.Errorf("a handler taking 15s:\n got %q\nwant %q", results["slow"], want)
	}
	if took := createTook(steps, "quick"); took < 2*time.Second || took > 2*time.Second+100*time.Millisecond {
		t.Errorf("the create through a 2s handler took %v of virtual time, want 2s", took)
	}
}

// Under failurePolicy Ignore a timed-out webhook is skipped: the write goes
// on without its patch. timeoutSeconds is the configuration's.
func TestATimedOutWebhookWithFailurePolicyIgnoreIsSkippedDeterminism(t *testing.T) {
	configs, err := process.WebhookConfigsFromYAML([]byte(`apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: mutating-webhook-configuration
webhooks:
- admissionReviewVersions: [v1]
  clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /mutate-test-ctrlsim-dev-v1-widget
  failurePolicy: Ignore
  timeoutSeconds: 3
  name: mwidget-v1.kb.io
  rules:
  - apiGroups: [test.ctrlsim.dev]
    apiVersions: [v1]
    operations: [CREATE, UPDATE]
    resources: [widgets]
  sideEffects: None
`))
	if err != nil {
		t.Fatal(err)
	}
	results, steps := runTimeouts(t, configs, map[string]string{"quick": "2s", "slow": "5s"})
	if results["quick"] != "created color=red" || results["slow"] != "created color=" {
		t.Errorf("results %v: want quick defaulted (2s < 3s) and slow created without the webhook's patch", results)
	}
	failedOpen := false
	for _, s := range steps {
		if strings.HasPrefix(s.Op, "webhook ") && strings.HasSuffix(s.Object, "default/slow") && strings.Contains(s.Result, "failed open") && strings.Contains(s.Result, "context deadline exceeded") {
			failedOpen = true
		}
	}
	if !failedOpen {
		t.Error("no trace step says the slow webhook failed open on its deadline")
	}
}

// webhookSteps are the trace's steps of the webhook about widget name.
func webhookSteps(steps []trace.Step, name string) []trace.Step {
	var out []trace.Step
	for _, s := range steps {
		if strings.HasPrefix(s.Op, "webhook ") && strings.HasSuffix(s.Object, "Widget default/"+name) {
			out = append(out, s)
		}
	}
	return out
}

// kube-apiserver's client gives up on a webhook at timeoutSeconds and the
// write goes on (here: fails) then, not when the handler ends: the create
// through a handler that takes 15s returns after the 10s deadline, and the
// handler runs on to its end, 5s later, its answer discarded.
func TestTheCallerWaitsForAWebhookOnlyUntilItsDeadlineDeterminism(t *testing.T) {
	results, steps := runTimeouts(t, nil, map[string]string{"slow": "15s"})
	if !strings.HasSuffix(results["slow"], "context deadline exceeded") {
		t.Fatalf("a handler taking 15s: %q, want the deadline's error", results["slow"])
	}
	if took := createTook(steps, "slow"); took < 10*time.Second || took > 10*time.Second+100*time.Millisecond {
		t.Errorf("the create through a 15s handler took %v of virtual time, want the 10s deadline", took)
	}
	hooks := webhookSteps(steps, "slow")
	if len(hooks) != 2 || !strings.Contains(hooks[0].Result, "context deadline exceeded") ||
		!strings.Contains(hooks[1].Result, "after the caller gave up") || hooks[1].Process != "hooks" {
		t.Fatalf("webhook steps %+v: want the failure at the deadline, then the handler's late answer", hooks)
	}
	if d := hooks[1].At - hooks[0].At; d != 5*time.Second {
		t.Errorf("the handler answered %v after its caller gave up, want 5s (it runs on to its end)", d)
	}
}

// The handler's request context ends when kube-apiserver's client gives up,
// at timeoutSeconds: a handler that waits on its context (a poll, a call it
// passes the context to) stops there, with context.Canceled (net/http
// cancels a request's context when its client goes away).
func TestAWebhookHandlersContextEndsAtTheDeadlineDeterminism(t *testing.T) {
	results, _ := runTimeouts(t, nil, map[string]string{"waits": "ctx"})
	if !strings.HasSuffix(results["waits"], "context deadline exceeded") {
		t.Errorf("a handler waiting on its context: %q, want the deadline's error", results["waits"])
	}
	handlerEnds.Lock()
	got := handlerEnds.m["waits"]
	handlerEnds.Unlock()
	if got != "10s context canceled" {
		t.Errorf("the handler's context ended %q, want after 10s with context canceled", got)
	}
}

// A webhook whose serving process crashes while its handler runs ends the
// call at the crash: kube-apiserver's client reads the connection's end
// (EOF) then, and failurePolicy Fail fails the write, without waiting for the
// deadline.
func TestAWebhookWhoseProcessCrashesMidCallFailsTheWriteAtTheCrashDeterminism(t *testing.T) {
	results, steps := runTimeoutsPlan(t, "seed 3\ncrash process=hooks at=4s\n", nil, map[string]string{"slow": "8s"})
	if !strings.HasSuffix(results["slow"], ": EOF") {
		t.Fatalf("a handler whose process crashed mid-call: %q, want the connection's end (EOF)", results["slow"])
	}
	if took := createTook(steps, "slow"); took >= 8*time.Second {
		t.Errorf("the create took %v, want it to end at the crash, before the handler's 8s", took)
	}
	for _, s := range webhookSteps(steps, "slow") {
		if strings.Contains(s.Result, "after the caller gave up") {
			t.Errorf("a killed handler answered: %+v", s)
		}
	}
}

// patchWorld: process "hooks" serves slowDefaulter (on CREATE and UPDATE of
// Widgets); Widget w is stored green with size 1. Process "a" merge-patches
// w to size 2 with the label sleep=3s (so its webhook call takes 3s);
// process "b", a second later, merge-patches w blue. Each does so once, on
// its ConfigMap.
func patchWorld() cluster.Options {
	patcher := func(name string, wait time.Duration, patch string) process.Spec {
		return process.Spec{Name: name, Setup: func(p *process.Process) error {
			c := p.Manager().GetClient()
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Named("patch-" + name).
				Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					cm := &corev1.ConfigMap{}
					if req.Name != name {
						return reconcile.Result{}, nil
					}
					if err := c.Get(ctx, req.NamespacedName, cm); err != nil || cm.Data["result"] != "" {
						return reconcile.Result{}, client.IgnoreNotFound(err)
					}
					time.Sleep(wait)
					w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}}
					result := "patched"
					if err := c.Patch(ctx, w, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
						result = err.Error()
					}
					cm.Data = map[string]string{"result": result}
					return reconcile.Result{}, c.Update(ctx, cm)
				}))
		}}
	}
	return cluster.Options{
		Scheme: apiservertest.Scheme(), CRDs: []apiserver.CRD{apiservertest.WidgetCRD},
		Processes: []process.Spec{
			{Name: "hooks", Setup: func(p *process.Process) error {
				return ctrl.NewWebhookManagedBy(p.Manager(), &apiservertest.Widget{}).WithDefaulter(slowDefaulter{}).Complete()
			}},
			patcher("a", 0, `{"metadata":{"labels":{"sleep":"3s"}},"spec":{"size":2}}`),
			patcher("b", time.Second, `{"spec":{"color":"blue"}}`),
		},
		Setup: func(c *cluster.Cluster) error {
			ctx := context.Background()
			w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}, Spec: apiservertest.WidgetSpec{Size: 1, Color: "green"}}
			if err := c.Admin().Create(ctx, w); err != nil {
				return err
			}
			for _, name := range []string{"a", "b"} {
				if err := c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}); err != nil {
					return err
				}
			}
			return nil
		},
	}
}

// A write whose admission waits (a slow webhook) does not overwrite what
// others wrote meanwhile: kube-apiserver runs admission inside etcd's
// compare-and-swap loop, so a's patch, whose webhook call spans b's patch, is
// applied again to the object b stored, and its webhook called again. Both
// changes are kept; without the retry, a's patch would store the green widget
// it read before b's write (a lost update no real cluster makes).
func TestAWriteWhoseWebhookWaitedDoesNotOverwriteWritesMadeMeanwhileDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 3\n")
	if err != nil {
		t.Fatal(err)
	}
	var w apiservertest.Widget
	var calls int
	results := map[string]string{}
	err = wallclock.CheckDeterminism(t, p, patchWorld, func(c *cluster.Cluster) {
		c.RunFor(time.Minute)
		if err := c.Get(client.ObjectKey{Namespace: "default", Name: "w"}, &w); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"a", "b"} {
			cm := &corev1.ConfigMap{}
			if err := c.Get(client.ObjectKey{Namespace: "default", Name: name}, cm); err != nil {
				t.Fatal(err)
			}
			results[name] = cm.Data["result"]
		}
		calls = 0
		for _, s := range webhookSteps(c.Trace.Steps(), "w") {
			if strings.HasPrefix(s.Object, "UPDATE ") {
				calls++
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if results["a"] != "patched" || results["b"] != "patched" {
		t.Fatalf("patch results %v, want both patched", results)
	}
	if w.Spec.Size != 2 || w.Spec.Color != "blue" || w.Labels["sleep"] != "3s" {
		t.Errorf("widget spec %+v labels %v: want size 2 (a's patch) and blue (b's), both kept", w.Spec, w.Labels)
	}
	if calls != 3 {
		t.Errorf("%d webhook calls on updates of w, want 3 (a's, b's, a's again on b's object)", calls)
	}
}

// uniqueColor refuses a Widget whose color another Widget of its namespace
// has: a validator that reads the cluster, through its manager's live
// reader, as real validators check uniqueness.
type uniqueColor struct{ reader client.Reader }

func (u uniqueColor) ValidateCreate(ctx context.Context, w *apiservertest.Widget) (admission.Warnings, error) {
	var list apiservertest.WidgetList
	if err := u.reader.List(ctx, &list, client.InNamespace(w.Namespace)); err != nil {
		return nil, err
	}
	for _, o := range list.Items {
		if o.Name != w.Name && o.Spec.Color == w.Spec.Color {
			return nil, fmt.Errorf("color %s is taken by widget %s", w.Spec.Color, o.Name)
		}
	}
	return nil, nil
}

func (uniqueColor) ValidateUpdate(context.Context, *apiservertest.Widget, *apiservertest.Widget) (admission.Warnings, error) {
	return nil, nil
}

func (uniqueColor) ValidateDelete(context.Context, *apiservertest.Widget) (admission.Warnings, error) {
	return nil, nil
}

// A webhook handler's own API calls are its process's calls: a validator
// that lists Widgets to keep colors unique sees the first Widget and refuses
// the second, and its list is a traced call of the serving process.
func TestAWebhookHandlersAPICallsAreItsProcesssCallsDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 3\n")
	if err != nil {
		t.Fatal(err)
	}
	world := func() cluster.Options {
		o := timeoutWorld(nil, map[string]string{"one": "0s", "two": "0s"})()
		o.Processes[0].Setup = func(p *process.Process) error {
			return ctrl.NewWebhookManagedBy(p.Manager(), &apiservertest.Widget{}).WithValidator(uniqueColor{p.Manager().GetAPIReader()}).Complete()
		}
		return o
	}
	results := map[string]string{}
	lists := 0
	err = wallclock.CheckDeterminism(t, p, world, func(c *cluster.Cluster) {
		c.RunFor(time.Minute)
		for _, name := range []string{"one", "two"} {
			cm := &corev1.ConfigMap{}
			if err := c.Get(client.ObjectKey{Namespace: "default", Name: name}, cm); err != nil {
				t.Fatal(err)
			}
			results[name] = cm.Data["result"]
		}
		lists = 0
		for _, s := range c.Trace.Steps() {
			if s.Process == "hooks" && s.Op == "list" && strings.Contains(s.Object, "Widget") {
				lists++
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	created, refused := 0, 0
	for name, r := range results {
		other := map[string]string{"one": "two", "two": "one"}[name]
		switch {
		case r == "created color=":
			created++
		case strings.Contains(r, "color  is taken by widget "+other):
			refused++
		}
	}
	if created != 1 || refused != 1 {
		t.Errorf("results %v: want one widget created and the other refused by the validator's list", results)
	}
	if lists != 2 {
		t.Errorf("%d lists of Widgets by process hooks in the trace, want one per validation (2)", lists)
	}
}
