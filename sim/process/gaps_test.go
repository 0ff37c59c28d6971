package process_test

// The tests of this file show the Known gaps of doc.go (and of sim/clock's
// and sim/trace's that only a process shows), each as it is today: a change
// that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	kclock "k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

func TestEveryProcessReadsTheSameNow(t *testing.T) {
	clocks := map[string]kclock.WithTicker{}
	spec := func(name string) process.Spec {
		return process.Spec{Name: name, Setup: func(p *process.Process) error {
			clocks[name] = p.Clock()
			return nil
		}}
	}
	c, err := cluster.New(&plan.Plan{}, cluster.Options{Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{spec("a"), spec("b")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Minute)
	a, b := clocks["a"], clocks["b"]
	if a == nil || b == nil || a != b || !a.Now().Equal(b.Now()) {
		t.Fatalf("processes a and b read clocks %p and %p, want one clock", a, b)
	}
}

func TestTheKubeconfigTransportServesNoCallerOutsideAProcess(t *testing.T) {
	_, err := process.KubeconfigTransport(&http.Request{URL: &url.URL{Path: "/api/v1/configmaps"}})
	if err == nil || !strings.Contains(err.Error(), "was called outside every process of the simulated cluster") {
		t.Fatalf("KubeconfigTransport from the test: %v, want it refused", err)
	}
}

// A write that stores carries the digest of what it stored (sim/trace's
// Known gaps); a delete carries none, and neither does a read.
func TestADeleteAndAReadCarryNoDigest(t *testing.T) {
	steps := runConfigMaps(t, "seed 1\n",
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x", Finalizers: []string{"example.com/f"}}},
		func(c client.Client) reconcile.Func {
			return func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				var cm corev1.ConfigMap
				if err := c.Get(ctx, req.NamespacedName, &cm); err != nil {
					return reconcile.Result{}, client.IgnoreNotFound(err)
				}
				switch {
				case cm.DeletionTimestamp != nil:
					cm.Finalizers = nil
					return reconcile.Result{}, c.Update(ctx, &cm)
				case cm.Labels["seen"] == "":
					cm.Labels = map[string]string{"seen": "yes"}
					return reconcile.Result{}, c.Update(ctx, &cm)
				}
				return reconcile.Result{}, c.Delete(ctx, &cm)
			}
		})
	ops := map[string]int{}
	for _, s := range steps {
		if s.Process != "op" || s.Result != "ok" {
			continue
		}
		switch {
		case s.Op == "delete" || trace.IsRead(s.Op):
			ops[s.Op]++
			if s.Digest != "" {
				t.Errorf("%s carries the digest %q, want none", s, s.Digest)
			}
		case s.Op == "update":
			ops[s.Op]++
			if s.Digest == "" {
				t.Errorf("%s carries no digest", s)
			}
		}
	}
	if ops["delete"] != 1 || ops["update"] != 2 || ops["cached-get"] == 0 {
		t.Fatalf("ops %v, want a delete, two updates and cached gets; the trace:\n%s", ops, timeline(steps))
	}
}

// eventsWorld runs a process whose ConfigMap reconciler calls record (given
// the process and ConfigMap default/x) at each reconcile, for 5 s, and
// returns the Events stored and the trace's log lines.
func eventsWorld(t *testing.T, record func(p *process.Process, cm *corev1.ConfigMap) reconcile.Result) ([]corev1.Event, []string) {
	t.Helper()
	var proc *process.Process
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			proc = p
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(reconcile.Func(
				func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					cm := &corev1.ConfigMap{}
					if err := p.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
						return reconcile.Result{}, client.IgnoreNotFound(err)
					}
					return record(proc, cm), nil
				}))
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(5 * time.Second)
	var events corev1.EventList
	if err := c.List(&events); err != nil {
		t.Fatal(err)
	}
	var logs []string
	for _, s := range c.Trace.Steps() {
		if s.Op == "log" {
			logs = append(logs, s.Result)
		}
	}
	return events.Items, logs
}

func TestTheEventsRecorderDropsTheActionAndTheRelatedObject(t *testing.T) {
	events, _ := eventsWorld(t, func(p *process.Process, cm *corev1.ConfigMap) reconcile.Result {
		related := &corev1.Pod{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"}, ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "related"}}
		p.Manager().GetEventRecorder("announcer").Eventf(cm, related, corev1.EventTypeNormal, "Seen", "Observe", "saw %s", cm.Name)
		return reconcile.Result{}
	})
	if len(events) != 1 {
		t.Fatalf("%d Events, want 1: %+v", len(events), events)
	}
	e := events[0]
	if e.Action != "" || e.Related != nil || e.Reason != "Seen" || e.Message != "saw x" || e.InvolvedObject.Name != "x" {
		t.Fatalf("Event action %q, related %v, reason %q, message %q, of %q; want no action, no related object, Seen, saw x, of x",
			e.Action, e.Related, e.Reason, e.Message, e.InvolvedObject.Name)
	}
}

func TestARepeatedEventIsWrittenAgainNotCounted(t *testing.T) {
	reconciles := 0
	events, logs := eventsWorld(t, func(p *process.Process, cm *corev1.ConfigMap) reconcile.Result {
		reconciles++
		rec := p.GetEventRecorderFor("announcer")
		rec.Event(cm, corev1.EventTypeWarning, "Again", "the same message")
		if reconciles == 1 {
			rec.Event(cm, corev1.EventTypeWarning, "Again", "the same message") // at the same instant
		}
		if reconciles < 3 {
			return reconcile.Result{RequeueAfter: time.Second}
		}
		return reconcile.Result{}
	})
	if len(events) != 3 {
		t.Fatalf("%d Events for the same Event at three instants, want 3 (client-go's correlator would patch one's Count)", len(events))
	}
	for _, e := range events {
		if e.Count != 1 || e.Reason != "Again" {
			t.Errorf("Event %s: reason %q, count %d; want Again, 1", e.Name, e.Reason, e.Count)
		}
	}
	rejected := 0
	for _, l := range logs {
		if strings.HasPrefix(l, "ERROR Server rejected event (will not retry!) reason=Again") && strings.Contains(l, "already exists") {
			rejected++
		}
	}
	if rejected != 1 {
		t.Errorf("the second Event of one instant: %d rejections logged, want 1 (its name is the first's); logs %q", rejected, logs)
	}
}

func TestOutsideABubbleAReconcilerReadsTheMachinesClock(t *testing.T) {
	var wall, virtual time.Time
	eventsWorld(t, func(p *process.Process, _ *corev1.ConfigMap) reconcile.Result {
		wall, virtual = time.Now(), p.Clock().Now()
		return reconcile.Result{}
	})
	if virtual.IsZero() {
		t.Fatal("the reconciler did not run")
	}
	if d := wall.Sub(virtual); d > -time.Hour && d < time.Hour {
		t.Fatalf("time.Now() in a reconcile read %v, the virtual clock %v: want the machine's clock, far from virtual time", wall, virtual)
	}
}

func TestManagerStartIsRefusedAndItsProbesAreNeverCalled(t *testing.T) {
	var startErr error
	probed := 0
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			mgr := p.Manager()
			check := func(*http.Request) error { probed++; return nil }
			if err := mgr.AddHealthzCheck("healthz", check); err != nil {
				return err
			}
			if err := mgr.AddReadyzCheck("readyz", check); err != nil {
				return err
			}
			startErr = mgr.Start(context.Background())
			return nil
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Minute)
	if startErr == nil || !strings.Contains(startErr.Error(), "Start must not be called") {
		t.Errorf("Manager.Start: %v, want it refused", startErr)
	}
	if probed != 0 {
		t.Errorf("the health and readiness checks were called %d times in a minute, want never", probed)
	}
}

func TestLeaderElectionOptionsNotModelledAreRefused(t *testing.T) {
	for name, o := range map[string]manager.Options{ // lint:order-independent each case on its own
		"LeaderElectionReleaseOnCancel": {LeaderElectionReleaseOnCancel: true},
		"LeaderElectionResourceLock":    {LeaderElectionResourceLock: "configmapsleases"},
		"LeaderElectionLabels":          {LeaderElectionLabels: map[string]string{"a": "b"}},
	} {
		if err := process.CheckOptions(o); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("CheckOptions with %s: %v, want it refused by name", name, err)
		}
	}
}

// A client the process builds itself on its REST config, impersonating
// another user, still calls as the process's ServiceAccount: one identity.
func TestAClientThatImpersonatesStillCallsAsTheProcess(t *testing.T) {
	var createErr error
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", ServiceAccount: &types.NamespacedName{Namespace: "default", Name: "op"},
			Setup: func(p *process.Process) error {
				cfg := rest.CopyConfig(p.Manager().GetConfig())
				cfg.Impersonate = rest.ImpersonationConfig{UserName: "kubernetes-admin", Groups: []string{"system:masters"}}
				admin, err := client.New(cfg, client.Options{Scheme: p.GetScheme()})
				if err != nil {
					return err
				}
				createErr = admin.Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "as-admin"}})
				return nil
			}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Second)
	if !apierrors.IsForbidden(createErr) || !strings.Contains(createErr.Error(), "system:serviceaccount:default:op") {
		t.Fatalf("a create as kubernetes-admin through the process's config: %v, want the ServiceAccount's forbidden", createErr)
	}
}

func TestAClientGoWatchIgnoresTimeoutSecondsAndRefusesOtherFieldSelectors(t *testing.T) {
	var selectorErr error
	var events int
	closed, waited := false, false
	inBubble(t, func(t *testing.T, wall *cluster.Wall) {
		p, o := clientGoWorld("seed 1\n", &clientGoSeen{})
		o.Processes = []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			cs, err := kubernetes.NewForConfig(p.Manager().GetConfig())
			if err != nil {
				return err
			}
			return p.Manager().Add(manager.RunnableFunc(func(ctx context.Context) error {
				_, selectorErr = cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=n1"})
				w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{TimeoutSeconds: ptr.To[int64](1)})
				if err != nil {
					return err
				}
				defer w.Stop()
				deadline := time.NewTimer(3 * time.Second)
				defer deadline.Stop()
				for !closed && !waited {
					select {
					case _, ok := <-w.ResultChan():
						if ok {
							events++
						}
						closed = !ok
					case <-deadline.C:
						waited = true
					}
				}
				<-ctx.Done()
				return nil
			}))
		}}}
		o.Wall = wall
		c, err := cluster.New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(5 * time.Second)
		c.Close()
	})
	if !apierrors.IsBadRequest(selectorErr) || !strings.Contains(selectorErr.Error(), "only metadata.name and metadata.namespace are served") {
		t.Errorf("a watch of Pods by spec.nodeName: %v, want a 400", selectorErr)
	}
	if closed || !waited {
		t.Errorf("a watch with timeoutSeconds=1: closed %v after %d events; want it open at 3s", closed, events)
	}
}

// ctxHooks is widgetHooks's defaulter, keeping the context it was called with.
type ctxHooks struct {
	widgetHooks
	ctx context.Context
}

func (h *ctxHooks) Default(ctx context.Context, w *apiservertest.Widget) error {
	h.ctx = ctx
	return h.widgetHooks.Default(ctx, w)
}

// A write of the kernel (the world's admin client, outside any task) calls the
// webhook inline: its handler's context has no deadline and never ends.
func TestAWebhookCalledByTheKernelRunsInlineWithAContextThatNeverEnds(t *testing.T) {
	hooks := &ctxHooks{}
	c, err := cluster.New(&plan.Plan{}, cluster.Options{
		Scheme: apiservertest.Scheme(),
		CRDs:   []apiserver.CRD{apiservertest.WidgetCRD},
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			return ctrl.NewWebhookManagedBy(p.Manager(), &apiservertest.Widget{}).WithDefaulter(hooks).Complete()
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Second)
	w := widget("w", 1)
	if err := c.Admin().Create(ctx, w); err != nil || w.Spec.Color != "red" {
		t.Fatalf("create: %v, color %q; want the defaulter's red", err, w.Spec.Color)
	}
	c.RunFor(time.Minute)
	if hooks.ctx == nil {
		t.Fatal("the defaulter was not called")
	}
	if _, ok := hooks.ctx.Deadline(); ok || hooks.ctx.Err() != nil {
		t.Fatalf("the handler's context: deadline set %v, err %v a minute later; want no deadline and never ended", ok, hooks.ctx.Err())
	}
}

func TestAWebhookGivenByURLIsRefused(t *testing.T) {
	manifest := strings.Replace(widgetManifests("Fail"), `    service:
      name: widget-webhooks
      namespace: widget-system
      path: /validate-test-ctrlsim-dev-v1-widget`, `    url: https://webhooks.example.com/validate`, 1)
	if _, err := process.WebhookConfigsFromYAML([]byte(manifest)); err == nil || !strings.Contains(err.Error(), "clientConfig.url is not") {
		t.Fatalf("a webhook given by URL: %v, want it refused", err)
	}
}

// A lister of an informer factory the operator builds itself lists in Go
// map order (client-go's threadSafeMap, out of the simulator's reach), a
// new order at many calls, where the ordered factories' listers list in
// the plan's shuffle: 20 lists of eight ConfigMaps in one run come in more
// than one order.
func TestAListerOfTheOperatorsOwnFactoryListsInMapOrder(t *testing.T) {
	orders := map[string]bool{}
	ownFactoryRun(t, 1, func(f informers.SharedInformerFactory, _ kubernetes.Interface) {
		for range 20 {
			cms, err := f.Core().V1().ConfigMaps().Lister().List(labels.Everything())
			if err != nil {
				t.Error(err)
				return
			}
			var names []string
			for _, cm := range cms {
				names = append(names, cm.Name)
			}
			orders[strings.Join(names, ",")] = true
		}
	})
	if len(orders) < 2 {
		t.Errorf("20 lists came in one order %v: the lister lists in a fixed order", orders)
	}
}
