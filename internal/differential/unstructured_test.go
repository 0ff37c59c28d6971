package differential

import (
	"context"

	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// Unstructured and metadata-only requests, against a real kube-apiserver: for a
// kind that only a CRD manifest defines (Gadget: the Widget manifest renamed, which
// no Go type in Scheme serves, so the model stores it as unstructured JSON) and for
// built-in kinds (served through their Go types).

// gadgetManifest is apiservertest.WidgetManifest for kind Gadget.
var gadgetManifest = strings.NewReplacer("Widget", "Gadget", "widgets", "gadgets", "widget", "gadget").Replace(apiservertest.WidgetManifest)

var gadgetGVK = schema.GroupVersionKind{Group: apiservertest.GroupVersion.Group, Version: "v1", Kind: "Gadget"}

var (
	gadgetOnce sync.Once
	gadgetErr  error
)

// needGadget installs the Gadget CRD on the shared envtest (once) and waits until
// the admin client can serve it.
func needGadget(t *testing.T) *Real {
	t.Helper()
	r := needReal(t)
	gadgetOnce.Do(func() { gadgetErr = installGadget(r) })
	if gadgetErr != nil {
		t.Fatalf("installing the Gadget CRD on envtest: %v", gadgetErr)
	}
	return r
}

func installGadget(r *Real) error {
	crd := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(gadgetManifest), &crd.Object); err != nil {
		return err
	}
	admin, err := r.Client(apiserver.Admin)
	if err != nil {
		return err
	}
	if err := admin.Create(ctx, crd); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gadgetGVK.GroupVersion().WithKind("GadgetList"))
		err := admin.List(ctx, list, client.InNamespace("default"))
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the Gadget CRD is not served after 30s: %w", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// gadgetModel is NewModel with the Gadget CRD, from its manifest, as a kind with no
// Go type.
func gadgetModel(t *testing.T) *Model {
	t.Helper()
	crds, err := apiserver.CRDsFromYAML([]byte(gadgetManifest))
	if err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{
		Scheme: Scheme, Clock: clock.New(clock.Epoch),
		CRDs: append([]apiserver.CRD{apiservertest.WidgetCRD}, crds...),
	})
	if k, ok := s.KindFor(gadgetGVK); !ok || !k.Unstructured() {
		t.Fatalf("the model does not serve Gadget as a kind without a Go type: %+v", k)
	}
	s.CreateDefaultNamespaces()
	return &Model{Server: s}
}

func compareGadgetSteps(t *testing.T, steps ...Step) *Comparison {
	t.Helper()
	c := CompareSteps(ctx, gadgetModel(t), needGadget(t), nextNames(), steps, Tolerances{})
	if d := c.Diff(); d != "" {
		t.Errorf("the model diverges from kube-apiserver:\n%s", d)
	}
	return c
}

func newU(gvk schema.GroupVersionKind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

func newPOM(gvk schema.GroupVersionKind, namespace, name string) *metav1.PartialObjectMetadata {
	p := &metav1.PartialObjectMetadata{}
	p.SetGroupVersionKind(gvk)
	p.SetNamespace(namespace)
	p.SetName(name)
	return p
}

// withU gets an unstructured object of gvk, lets f change it and returns what f's
// write left in it.
func withU(gvk schema.GroupVersionKind, name string, f func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error) func(context.Context, client.Client, string) (client.Object, error) {
	return func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
		u := newU(gvk, ns, name)
		if err := c.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return nil, err
		}
		return u, f(ctx, c, u)
	}
}

func createGadget(name string, spec map[string]any, extra map[string]any) func(context.Context, client.Client, string) (client.Object, error) {
	return func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
		u := newU(gadgetGVK, ns, name)
		u.Object["spec"] = spec
		for k, v := range extra {
			u.Object[k] = v
		}
		return u, c.Create(ctx, u)
	}
}

// lastItem returns the last item of an unstructured list, or the list's length as
// an error when it has none.
func lastItem(l *unstructured.UnstructuredList, err error) (client.Object, error) {
	if err != nil {
		return nil, err
	}
	if len(l.Items) == 0 {
		return nil, fmt.Errorf("empty list")
	}
	return &l.Items[len(l.Items)-1], nil
}

// A custom resource that only a CRD manifest defines, written and read as
// unstructured.Unstructured: create (pruned, defaulted, status dropped), schema
// validation, updates with and without resourceVersion, the status subresource,
// merge and JSON patches (strategic merge refused), list, and deletion held by a
// finalizer, each answered as kube-apiserver answers.
func TestUnstructuredCRDOnlyKindMatchesKubeAPIServer(t *testing.T) {
	gvk := gadgetGVK
	c := compareGadgetSteps(t,
		Step{"create g1 with an int, an unknown field and a status", createGadget("g1",
			map[string]any{"size": 3, "unknown": "x"}, map[string]any{"status": map[string]any{"phase": "Ready"}})},
		Step{"create g2 size 11", createGadget("g2", map[string]any{"size": int64(11)}, nil)},
		Step{"create g3 color purple, size -1", createGadget("g3", map[string]any{"size": int64(-1), "color": "purple"}, nil)},
		Step{"create g4 size as a string", createGadget("g4", map[string]any{"size": "3"}, nil)},
		Step{"get g1", withU(gvk, "g1", func(context.Context, client.Client, *unstructured.Unstructured) error { return nil })},
		Step{"update g1 without resourceVersion", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			u.SetResourceVersion("")
			return c.Update(ctx, u)
		})},
		Step{"update g1 with a stale resourceVersion", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			u.SetResourceVersion("1")
			_ = unstructured.SetNestedField(u.Object, int64(5), "spec", "size")
			return c.Update(ctx, u)
		})},
		Step{"update g1 size 4 without color", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			unstructured.RemoveNestedField(u.Object, "spec", "color")
			_ = unstructured.SetNestedField(u.Object, int64(4), "spec", "size")
			return c.Update(ctx, u)
		})},
		Step{"update g1 unchanged", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			return c.Update(ctx, u)
		})},
		Step{"status update g1 Bogus", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			_ = unstructured.SetNestedField(u.Object, "Bogus", "status", "phase")
			return c.Status().Update(ctx, u)
		})},
		Step{"status update g1 Ready, spec ignored", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			_ = unstructured.SetNestedField(u.Object, "Ready", "status", "phase")
			_ = unstructured.SetNestedField(u.Object, u.GetGeneration(), "status", "observedGeneration")
			_ = unstructured.SetNestedField(u.Object, int64(9), "spec", "size")
			return c.Status().Update(ctx, u)
		})},
		Step{"update g1 carrying a status (ignored)", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			_ = unstructured.SetNestedField(u.Object, "Pending", "status", "phase")
			_ = unstructured.SetNestedField(u.Object, "green", "spec", "color")
			return c.Update(ctx, u)
		})},
		Step{"merge patch g1 color null, size 2", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			return c.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"color":null,"size":2}}`)))
		})},
		Step{"merge patch g1 size 20", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			return c.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"size":20}}`)))
		})},
		Step{"merge patch g1 from a changed copy, optimistic lock", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			orig := u.DeepCopy()
			u.SetLabels(map[string]string{"app": "g"})
			return c.Patch(ctx, u, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
		})},
		Step{"merge patch g1 with a stale resourceVersion", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			return c.Patch(ctx, u, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"resourceVersion":"1"},"spec":{"size":1}}`)))
		})},
		Step{"JSON patch g1 status phase Stamped", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			return c.Status().Patch(ctx, u, client.RawPatch(types.JSONPatchType, []byte(`[{"op":"replace","path":"/status/phase","value":"Stamped"}]`)))
		})},
		Step{"JSON patch g1 a missing path", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			return c.Patch(ctx, u, client.RawPatch(types.JSONPatchType, []byte(`[{"op":"replace","path":"/spec/nothing/here","value":1}]`)))
		})},
		Step{"strategic merge patch g1", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			return c.Patch(ctx, u, client.RawPatch(types.StrategicMergePatchType, []byte(`{"spec":{"size":1}}`)))
		})},
		Step{"create g5", createGadget("g5", map[string]any{"size": int64(1), "color": "red"}, nil)},
		Step{"list gadgets with a label selector", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(gvk.GroupVersion().WithKind("GadgetList"))
			err := c.List(ctx, l, client.InNamespace(ns), client.MatchingLabels{"app": "g"})
			if err == nil && (len(l.Items) != 1 || l.GetKind() != "GadgetList") {
				return nil, fmt.Errorf("list: %d items, kind %q", len(l.Items), l.GetKind())
			}
			return lastItem(l, err)
		}},
		Step{"list gadgets", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(gvk.GroupVersion().WithKind("GadgetList"))
			return lastItem(l, c.List(ctx, l, client.InNamespace(ns)))
		}},
		Step{"add a finalizer to g1", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			u.SetFinalizers([]string{"test.ctrlsim.dev/hold"})
			return c.Update(ctx, u)
		})},
		Step{"delete g1 with a stale resourceVersion precondition", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			return nil, c.Delete(ctx, newU(gvk, ns, "g1"), client.Preconditions{ResourceVersion: ptr.To("1")})
		}},
		Step{"delete g1", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			return nil, c.Delete(ctx, newU(gvk, ns, "g1"))
		}},
		Step{"get g1 deleting", withU(gvk, "g1", func(context.Context, client.Client, *unstructured.Unstructured) error { return nil })},
		Step{"add a second finalizer to g1 deleting", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			u.SetFinalizers(append(u.GetFinalizers(), "test.ctrlsim.dev/late"))
			return c.Update(ctx, u)
		})},
		Step{"remove the finalizer of g1", withU(gvk, "g1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			u.SetFinalizers(nil)
			return c.Update(ctx, u)
		})},
		Step{"get g1 gone", withU(gvk, "g1", func(context.Context, client.Client, *unstructured.Unstructured) error { return nil })},
		Step{"delete g1 gone", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			return nil, c.Delete(ctx, newU(gvk, ns, "g1"))
		}},
	)
	// The cases must test what they say: kube-apiserver refused some and
	// accepted others.
	refused := 0
	for _, o := range c.Real {
		if o.Error != nil {
			refused++
		}
	}
	if refused < 10 || refused > len(c.Real)-10 {
		t.Errorf("kube-apiserver refused %d of %d steps: the cases do not test what they say", refused, len(c.Real))
	}
}

// Metadata-only requests (PartialObjectMetadata, as builder.OnlyMetadata
// controllers and metadata clients make them) of a CRD-only kind and of built-in
// kinds, and unstructured requests of built-in kinds (served through their Go
// types by the model), answered as kube-apiserver answers.
func TestMetadataAndUnstructuredBuiltinsMatchKubeAPIServer(t *testing.T) {
	cmGVK := schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}
	secretGVK := schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
	metaOf := func(gvk schema.GroupVersionKind, name string) func(context.Context, client.Client, string) (client.Object, error) {
		return func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			p := newPOM(gvk, ns, name)
			return p, c.Get(ctx, client.ObjectKeyFromObject(p), p)
		}
	}
	metaPatch := func(gvk schema.GroupVersionKind, name string, f func(p *metav1.PartialObjectMetadata)) func(context.Context, client.Client, string) (client.Object, error) {
		return func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			p := newPOM(gvk, ns, name)
			if err := c.Get(ctx, client.ObjectKeyFromObject(p), p); err != nil {
				return nil, err
			}
			orig := p.DeepCopy()
			f(p)
			return p, c.Patch(ctx, p, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
		}
	}
	metaList := func(gvk schema.GroupVersionKind) func(context.Context, client.Client, string) (client.Object, error) {
		return func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			l := &metav1.PartialObjectMetadataList{}
			l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
			if err := c.List(ctx, l, client.InNamespace(ns)); err != nil {
				return nil, err
			}
			if len(l.Items) == 0 {
				return nil, fmt.Errorf("empty list")
			}
			return &l.Items[len(l.Items)-1], nil
		}
	}
	compareGadgetSteps(t,
		Step{"create gadget m1", createGadget("m1", map[string]any{"size": int64(2)}, nil)},
		Step{"metadata get m1", metaOf(gadgetGVK, "m1")},
		Step{"metadata get missing", metaOf(gadgetGVK, "nope")},
		Step{"metadata merge patch m1 labels and a finalizer", metaPatch(gadgetGVK, "m1", func(p *metav1.PartialObjectMetadata) {
			p.Labels = map[string]string{"seen": "yes"}
			p.Finalizers = []string{"test.ctrlsim.dev/m"}
		})},
		Step{"metadata list gadgets", metaList(gadgetGVK)},
		Step{"metadata create refused", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			return nil, c.Create(ctx, newPOM(gadgetGVK, ns, "m2"))
		}},
		Step{"metadata update refused", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			return nil, c.Update(ctx, newPOM(gadgetGVK, ns, "m1"))
		}},
		Step{"metadata delete m1 (finalizer holds it)", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			return nil, c.Delete(ctx, newPOM(gadgetGVK, ns, "m1"))
		}},
		Step{"metadata patch m1 removes the finalizer", metaPatch(gadgetGVK, "m1", func(p *metav1.PartialObjectMetadata) { p.Finalizers = nil })},
		Step{"metadata get m1 gone", metaOf(gadgetGVK, "m1")},

		Step{"create configmap unstructured with an unknown field", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			u := newU(cmGVK, ns, "c1")
			u.Object["data"] = map[string]any{"k": "v"}
			u.Object["bogus"] = "x"
			return u, c.Create(ctx, u)
		}},
		Step{"metadata get c1", metaOf(cmGVK, "c1")},
		Step{"update c1 unstructured", withU(cmGVK, "c1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			_ = unstructured.SetNestedField(u.Object, "w", "data", "k")
			return c.Update(ctx, u)
		})},
		Step{"update c1 unstructured, data not a map", withU(cmGVK, "c1", func(ctx context.Context, c client.Client, u *unstructured.Unstructured) error {
			u.Object["data"] = "nope"
			return c.Update(ctx, u)
		})},
		Step{"metadata patch c1 label", metaPatch(cmGVK, "c1", func(p *metav1.PartialObjectMetadata) { p.Labels = map[string]string{"a": "b"} })},
		Step{"list configmaps unstructured", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			l := &unstructured.UnstructuredList{}
			l.SetGroupVersionKind(cmGVK.GroupVersion().WithKind("ConfigMapList"))
			err := c.List(ctx, l, client.InNamespace(ns))
			if err == nil && l.GetKind() != "ConfigMapList" {
				return nil, fmt.Errorf("list kind %q", l.GetKind())
			}
			return lastItem(l, err)
		}},
		Step{"metadata list configmaps", metaList(cmGVK)},
		Step{"create secret unstructured with stringData", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			u := newU(secretGVK, ns, "s1")
			u.Object["stringData"] = map[string]any{"token": "abc"}
			return u, c.Create(ctx, u)
		}},
		Step{"metadata delete s1", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			return nil, c.Delete(ctx, newPOM(secretGVK, ns, "s1"))
		}},
		Step{"metadata get s1 gone", metaOf(secretGVK, "s1")},
	)
}

// A kind no CRD serves fails in every form with the RESTMapper's error on both sides.
func TestUnservedKindsInEveryForm(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "test.ctrlsim.dev", Version: "v1", Kind: "Nothing"}
	c := compareGadgetSteps(t,
		Step{"get unstructured", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			u := newU(gvk, ns, "x")
			return nil, c.Get(ctx, client.ObjectKeyFromObject(u), u)
		}},
		Step{"get metadata", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			p := newPOM(gvk, ns, "x")
			return nil, c.Get(ctx, client.ObjectKeyFromObject(p), p)
		}},
	)
	for _, o := range c.Real {
		if o.Error == nil {
			t.Errorf("kube-apiserver served an unserved kind: %v", o)
		}
	}
}

// gadgetWatchScript writes Gadgets as unstructured objects: a spec update, a status
// write, a deletion held by a finalizer and released by an update, a plain delete.
func gadgetWatchScript(ctx context.Context, c client.Client, ns string) error {
	g := newU(gadgetGVK, ns, "w1")
	g.Object["spec"] = map[string]any{"size": 1}
	g.SetFinalizers([]string{"test.ctrlsim.dev/hold"})
	steps := []func() error{
		func() error { return c.Create(ctx, g) },
		func() error { return unstructured.SetNestedField(g.Object, int64(2), "spec", "size") },
		func() error { return c.Update(ctx, g) },
		func() error { return unstructured.SetNestedField(g.Object, "Ready", "status", "phase") },
		func() error { return c.Status().Update(ctx, g) },
		func() error { return c.Delete(ctx, g) },
		func() error { return c.Get(ctx, client.ObjectKeyFromObject(g), g) },
		func() error { g.SetFinalizers(nil); return c.Update(ctx, g) },
		func() error {
			h := newU(gadgetGVK, ns, "w2")
			h.Object["spec"] = map[string]any{"size": 3, "unknown": true}
			if err := c.Create(ctx, h); err != nil {
				return err
			}
			return c.Delete(ctx, h)
		},
	}
	for i, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("step %d: %w", i, err)
		}
	}
	return nil
}

// gadgetEvent is a watch event of a Gadget as compared: type, name, finalizers,
// deleting, spec and status, and the resourceVersion's rank among the events'.
type gadgetEvent struct {
	Type       watch.EventType
	Name       string
	Finalizers []string
	Deleting   bool
	Spec       any
	Status     any
	RV         int
}

func gadgetEvents(events []watch.Event) []gadgetEvent {
	var rvs []string
	for _, e := range events {
		rvs = append(rvs, e.Object.(client.Object).GetResourceVersion())
	}
	out := make([]gadgetEvent, len(events))
	for i, e := range events {
		u := e.Object.(*unstructured.Unstructured)
		rank := 0
		for _, rv := range rvs {
			if len(rv) < len(u.GetResourceVersion()) || len(rv) == len(u.GetResourceVersion()) && rv < u.GetResourceVersion() {
				rank++
			}
		}
		out[i] = gadgetEvent{Type: e.Type, Name: u.GetName(), Finalizers: u.GetFinalizers(), Deleting: u.GetDeletionTimestamp() != nil,
			Spec: u.Object["spec"], Status: u.Object["status"], RV: rank}
	}
	return out
}

// The watch of a kind only a CRD defines delivers what kube-apiserver's does:
// unstructured objects, pruned and defaulted, a Deleted event carrying the last
// stored state (finalizers and all) when the last finalizer goes.
func TestWatchOfACRDOnlyKindMatchesKubeAPIServer(t *testing.T) {
	r := needGadget(t)
	names := nextNames()

	m := gadgetModel(t)
	ms := newSide(m, names)
	ms.do(ctx, Op{Verb: Create, Kind: Namespace, Namespace: "a"})
	var modelEvents []watch.Event
	stop := m.Server.Watcher().Watch(gadgetGVK, func(e apiserver.Event) {
		if e.Object.GetNamespace() == names.Namespace("a") {
			modelEvents = append(modelEvents, watch.Event{Type: e.Type, Object: e.Object.DeepCopyObject()})
		}
	})
	defer stop()
	mc, err := m.Client(apiserver.Admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := gadgetWatchScript(ctx, mc, names.Namespace("a")); err != nil {
		t.Fatalf("model: %v", err)
	}

	rs := newSide(r, names)
	rs.do(ctx, Op{Verb: Create, Kind: Namespace, Namespace: "a"})
	wc, err := client.NewWithWatch(r.Config, client.Options{Scheme: Scheme, Mapper: r.admin.RESTMapper()})
	if err != nil {
		t.Fatal(err)
	}
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(gadgetGVK.GroupVersion().WithKind("GadgetList"))
	w, err := wc.Watch(ctx, list, client.InNamespace(names.Namespace("a")))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	rc, err := r.Client(apiserver.Admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := gadgetWatchScript(ctx, rc, names.Namespace("a")); err != nil {
		t.Fatalf("kube-apiserver: %v", err)
	}
	var realEvents []watch.Event
	timeout := time.After(10 * time.Second)
	for len(realEvents) < len(modelEvents) {
		select {
		case e, ok := <-w.ResultChan():
			if !ok || e.Type == watch.Error {
				t.Fatalf("the watch ended after %d events: %v", len(realEvents), e.Object)
			}
			if _, ok := e.Object.(*unstructured.Unstructured); !ok {
				t.Fatalf("kube-apiserver's watch event carries %T", e.Object)
			}
			realEvents = append(realEvents, e)
		case <-timeout:
			t.Fatalf("%d events within 10s, the model had %d", len(realEvents), len(modelEvents))
		}
	}
	if len(modelEvents) != 7 {
		t.Errorf("the model sent %d events, want 7 (2 adds, 3 modifications, 2 deletions)", len(modelEvents))
	}
	if d := cmp.Diff(gadgetEvents(modelEvents), gadgetEvents(realEvents)); d != "" {
		t.Errorf("the watch events of the model differ from kube-apiserver's (-model +real):\n%s", d)
	}
}
