package differential

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// A CRD served in two versions (apiservertest's Gear: v1alpha1, and v1
// stored), against kube-apiserver, with each conversion strategy: objects
// created, read, listed, updated, patched and deleted in one version and the
// other, a watch of the non-storage version, each version's own schema
// (defaults, pruning, validation), status.storedVersions, and, for Webhook,
// the requests while the webhook's server is down. Every answer, error and
// watch event is compared whole, normalised as Compare normalises (uids,
// resourceVersions by rank, times); the webhook's address is the only text
// replaced (envtest's is a URL on the loopback, the model's a service).

// gearU is a Gear in version v (unstructured: the same requests on both
// sides, whether or not the side's scheme has Gear's Go types).
func gearU(v, ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := newU(schema.GroupVersionKind{Group: "conv.ctrlsim.dev", Version: v, Kind: "Gear"}, ns, name)
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

func gearList(v string) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(schema.GroupVersionKind{Group: "conv.ctrlsim.dev", Version: v, Kind: "GearList"})
	return l
}

// mvSide is one side: its admin client, a watch of v1alpha1 Gears, and how
// to take the conversion webhook's server down.
type mvSide struct {
	c      client.Client
	events func(n int) []watch.Event // the first n events (fewer after a timeout)
	down   func()
	crd    func() (*apiextensionsv1.CustomResourceDefinition, error)
}

type mvStep struct {
	name string
	do   func(c client.Client, ns string) raw
}

func mvGet(v, name string) func(client.Client, string) raw {
	return func(c client.Client, ns string) raw {
		o := gearU(v, ns, name, nil)
		err := c.Get(ctx, client.ObjectKeyFromObject(o), o)
		return raw{obj: o, err: err}
	}
}

func mvList(v string) func(client.Client, string) raw {
	return func(c client.Client, ns string) raw {
		l := gearList(v)
		err := c.List(ctx, l, client.InNamespace(ns))
		return raw{list: l, err: err}
	}
}

func mvCreate(v, name string, spec map[string]any) func(client.Client, string) raw {
	return func(c client.Client, ns string) raw {
		o := gearU(v, ns, name, spec)
		o.SetLabels(map[string]string{"app": "x"})
		err := c.Create(ctx, o)
		return raw{obj: o, err: err}
	}
}

// mvUpdate reads the object in v, changes it with f and updates it in v
// (the status subresource when status).
func mvUpdate(v, name string, status bool, f func(u *unstructured.Unstructured)) func(client.Client, string) raw {
	return func(c client.Client, ns string) raw {
		o := gearU(v, ns, name, nil)
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
			return raw{err: err}
		}
		f(o)
		var err error
		if status {
			err = c.Status().Update(ctx, o)
		} else {
			err = c.Update(ctx, o)
		}
		return raw{obj: o, err: err}
	}
}

// mvSteps: b is written in v1alpha1 with teeth "tt", which None stores in
// v1 as it is (a string where v1 has an integer: None does not convert) and
// the webhook as 2.
func mvSteps() []mvStep {
	return []mvStep{
		{"create a in v1", mvCreate("v1", "a", map[string]any{"teeth": int64(3), "color": "red", "unknown": "x"})},
		{"get a in v1alpha1", mvGet("v1alpha1", "a")},
		{"create b in v1alpha1", mvCreate("v1alpha1", "b", map[string]any{"teeth": "tt", "color": "blue"})},
		{"get b in v1", mvGet("v1", "b")},
		{"get b in v1alpha1", mvGet("v1alpha1", "b")},
		{"list in v1alpha1", mvList("v1alpha1")},
		{"list in v1", mvList("v1")},
		{"update a in v1alpha1", mvUpdate("v1alpha1", "a", false, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "green", "spec", "color")
			_ = unstructured.SetNestedField(u.Object, "big", "spec", "size")
		})},
		{"status of a in v1alpha1", mvUpdate("v1alpha1", "a", true, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, int64(2), "status", "turns")
		})},
		{"get a in v1", mvGet("v1", "a")},
		{"update a in v1", mvUpdate("v1", "a", false, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, int64(5), "spec", "teeth")
		})},
		{"create c in v1alpha1, invalid for v1alpha1", mvCreate("v1alpha1", "c", map[string]any{"teeth": strings.Repeat("t", 13)})},
		{"create c in v1, invalid for v1", mvCreate("v1", "c", map[string]any{"teeth": int64(11)})},
		{"status of a in v1alpha1, invalid", mvUpdate("v1alpha1", "a", true, func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, int64(-1), "status", "turns")
		})},
		{"merge patch b in v1alpha1", func(c client.Client, ns string) raw {
			o := gearU("v1alpha1", ns, "b", nil)
			err := c.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"color":"black"}}`)))
			return raw{obj: o, err: err}
		}},
		{"delete b in v1alpha1", func(c client.Client, ns string) raw {
			return raw{err: c.Delete(ctx, gearU("v1alpha1", ns, "b", nil))}
		}},
		{"get b in v1", mvGet("v1", "b")},
	}
}

// mvDownSteps run once the conversion webhook's server is down.
var mvDownSteps = []mvStep{
	{"down: get a in v1", mvGet("v1", "a")},
	{"down: get a in v1alpha1", mvGet("v1alpha1", "a")},
	{"down: create d in v1alpha1", mvCreate("v1alpha1", "d", map[string]any{"teeth": "t"})},
	{"down: update a in v1", mvUpdate("v1", "a", false, func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, "red", "spec", "color")
	})},
	{"down: delete a in v1alpha1", func(c client.Client, ns string) raw {
		return raw{err: c.Delete(ctx, gearU("v1alpha1", ns, "a", nil))}
	}},
}

// webhookAddress is where the conversion webhook was called: a URL on
// envtest, a service in the model, with the transport's error.
var webhookAddress = regexp.MustCompile(`Post "[^"]*": .*$`)

// storageRevision is the etcd revision a storage error names: the object's
// resourceVersion.
var storageRevision = regexp.MustCompile(`revision=(\d+)`)

// mvText replaces the webhook's address and the revision (by its rank, as
// resourceVersions are) in an error text.
func mvText(n *normaliser, s string) string {
	s = webhookAddress.ReplaceAllString(s, `Post <webhook>: <transport error>`)
	return storageRevision.ReplaceAllStringFunc(s, func(w string) string {
		if r, ok := n.ranks[storageRevision.FindStringSubmatch(w)[1]]; ok {
			return "revision=" + r
		}
		return "revision=?"
	})
}

type mvOutcome struct {
	Step    string
	Outcome Outcome
}

// runMV runs the steps on one side and normalises every answer and event
// with one normaliser.
func runMV(t *testing.T, s *mvSide, strategy apiextensionsv1.ConversionStrategyType) ([]mvOutcome, []string) {
	t.Helper()
	steps := mvSteps()
	if strategy == apiextensionsv1.WebhookConverter {
		steps = append(steps, mvStep{"(the webhook's server goes down)", nil})
		steps = append(steps, mvDownSteps...)
	}
	var raws []raw
	var names []string
	// The watch of v1alpha1 (read before the webhook goes down, so that
	// kube-apiserver has converted them): the changes to a and b; none to
	// c, refused.
	readEvents := func() {
		for _, ev := range s.events(7) {
			if o, ok := ev.Object.(client.Object); ok {
				raws = append(raws, raw{obj: o})
			} else {
				raws = append(raws, raw{err: fmt.Errorf("watch event %s of %T", ev.Type, ev.Object)})
			}
			names = append(names, "watch v1alpha1: "+string(ev.Type))
		}
	}
	read := false
	for _, st := range steps {
		if st.do == nil {
			readEvents()
			read = true
			s.down()
			continue
		}
		raws = append(raws, st.do(s.c, "default"))
		names = append(names, st.name)
	}
	if !read {
		readEvents()
	}
	n := newNormaliser(raws, nil, Tolerances{})
	out := make([]mvOutcome, len(raws))
	for i, r := range raws {
		o := n.outcome(r)
		if e := o.Error; e != nil {
			e.Message, e.Text = mvText(n, e.Message), mvText(n, e.Text)
			if e.Details != nil {
				for i := range e.Details.Causes {
					e.Details.Causes[i].Message = mvText(n, e.Details.Causes[i].Message)
				}
			}
		}
		out[i] = mvOutcome{Step: names[i], Outcome: o}
	}
	crd, err := s.crd()
	if err != nil {
		t.Fatalf("reading the CRD: %v", err)
	}
	return out, crd.Status.StoredVersions
}

func TestMultiVersionCRDMatchesKubeAPIServer(t *testing.T) {
	assets, err := assetsFromEnv()
	if err != nil {
		needReal(t) // skips, or fails under CI
		return
	}
	for _, strategy := range []apiextensionsv1.ConversionStrategyType{apiextensionsv1.NoneConverter, apiextensionsv1.WebhookConverter} {
		t.Run(string(strategy), func(t *testing.T) {
			model := mvModel(t, strategy)
			real := mvReal(t, assets, strategy)
			m, mStored := runMV(t, model, strategy)
			r, rStored := runMV(t, real, strategy)
			if d := cmp.Diff(r, m); d != "" {
				t.Errorf("model (+) vs kube-apiserver (-):\n%s", d)
			}
			if !cmp.Equal(mStored, rStored) || len(rStored) != 1 || rStored[0] != "v1" {
				t.Errorf("status.storedVersions: model %v, kube-apiserver %v", mStored, rStored)
			}
			// The cases test what they say: a write in v1alpha1 is stored
			// in v1 and the watch of v1alpha1 sees the changes.
			if len(r) < 20 || r[1].Outcome.Error != nil || r[2].Outcome.Error != nil || r[11].Outcome.Error == nil {
				t.Errorf("kube-apiserver's outcomes do not show what the test is about: %+v", r)
			}
		})
	}
}

// mvModel is a world serving the CRD (created through the client, as a
// platform operator would, so it is a CustomResourceDefinition object) and,
// for Webhook, a process serving the conversion webhook.
func mvModel(t *testing.T, strategy apiextensionsv1.ConversionStrategyType) *mvSide {
	t.Helper()
	opts := cluster.Options{Scheme: apiservertest.Scheme()}
	if strategy == apiextensionsv1.WebhookConverter {
		opts = cluster.Options{Scheme: apiservertest.GearScheme(),
			Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error { return apiservertest.SetUpGearWebhook(p.Manager()) }}}}
	}
	if err := apiextensionsv1.AddToScheme(opts.Scheme); err != nil {
		t.Fatal(err)
	}
	world, err := cluster.New(&plan.Plan{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(world.Close)
	if err := world.Admin().Create(ctx, apiservertest.GearCRD(strategy)); err != nil {
		t.Fatal(err)
	}
	world.RunFor(time.Second)
	var events []watch.Event
	stop := world.Server.Watcher().Watch(apiservertest.GearV1alpha1GV.WithKind("Gear"), func(ev apiserver.Event) {
		u := &unstructured.Unstructured{}
		if x, ok := ev.Object.(*unstructured.Unstructured); ok {
			u = x.DeepCopy()
		} else {
			m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(ev.Object)
			if err != nil {
				t.Fatal(err)
			}
			u.Object = m
			u.SetGroupVersionKind(ev.GVK)
		}
		events = append(events, watch.Event{Type: ev.Type, Object: u})
	})
	t.Cleanup(stop)
	return &mvSide{
		c: kubeclient.New(world.Server, apiserver.Admin, kubeclient.Options{}),
		events: func(n int) []watch.Event {
			return events[:min(n, len(events))]
		},
		down: func() { world.Process("op").Crash("test") },
		crd: func() (*apiextensionsv1.CustomResourceDefinition, error) {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			return crd, world.Admin().Get(ctx, client.ObjectKey{Name: "gears.conv.ctrlsim.dev"}, crd)
		},
	}
}

// mvReal is an envtest of its own serving the CRD, and, for Webhook, this
// binary serving the conversion webhook (envtest points the CRD's webhook at
// it when the scheme has Gear's convertible types).
func mvReal(t *testing.T, assets string, strategy apiextensionsv1.ConversionStrategyType) *mvSide {
	t.Helper()
	scheme := apiservertest.Scheme()
	if strategy == apiextensionsv1.WebhookConverter {
		scheme = apiservertest.GearScheme()
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets, Scheme: scheme,
		CRDs: []*apiextensionsv1.CustomResourceDefinition{apiservertest.GearCRD(strategy)}}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	down := func() {}
	if strategy == apiextensionsv1.WebhookConverter {
		wo := &env.WebhookInstallOptions
		mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"},
			WebhookServer: webhook.NewServer(webhook.Options{Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir})})
		if err != nil {
			t.Fatal(err)
		}
		if err := apiservertest.SetUpGearWebhook(mgr); err != nil {
			t.Fatal(err)
		}
		mctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- mgr.Start(mctx) }()
		stopped := false
		down = func() {
			if !stopped {
				stopped = true
				cancel()
				<-done
			}
		}
		t.Cleanup(down)
		deadline := time.Now().Add(30 * time.Second)
		for mgr.GetWebhookServer().StartedChecker()(nil) != nil {
			if time.Now().After(deadline) {
				t.Fatal("the webhook server did not start in 30s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	cs := apiservertest.Scheme()
	if err := apiextensionsv1.AddToScheme(cs); err != nil {
		t.Fatal(err)
	}
	c, err := client.NewWithWatch(cfg, client.Options{Scheme: cs})
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Watch(ctx, gearList("v1alpha1"), client.InNamespace("default"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Stop)
	var events []watch.Event
	return &mvSide{
		c: c,
		events: func(n int) []watch.Event {
			timeout := time.After(5 * time.Second)
			for len(events) < n {
				select {
				case ev, ok := <-w.ResultChan():
					if !ok {
						return events
					}
					events = append(events, ev)
				case <-timeout:
					return events
				}
			}
			return events
		},
		down: down,
		crd: func() (*apiextensionsv1.CustomResourceDefinition, error) {
			crd := &apiextensionsv1.CustomResourceDefinition{}
			return crd, c.Get(ctx, client.ObjectKey{Name: "gears.conv.ctrlsim.dev"}, crd)
		},
	}
}
