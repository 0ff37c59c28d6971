package informer_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/informer"
)

// Unstructured and PartialObjectMetadata reads are served by informers of their own
// form, as controller-runtime keeps a structured, an unstructured and a metadata
// informer per kind: each lists and watches the kind itself, and holds the objects
// in its form, with the kind's apiVersion/kind.
func TestEachFormHasItsOwnInformer(t *testing.T) {
	w := newWorld(t, nil)
	w.src.create(configMap("ns", "x", map[string]string{"app": "web"}, map[string]string{"k": "v"}))
	key := client.ObjectKey{Namespace: "ns", Name: "x"}

	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(configMapGVK)
	if err := w.cache.Get(ctx, key, u); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(u.Object, "data", "k"); v != "v" || u.GetKind() != "ConfigMap" || u.GetAPIVersion() != "v1" || u.GetResourceVersion() != "1" {
		t.Errorf("unstructured Get: %v", u.Object)
	}
	unstructured.SetNestedField(u.Object, "changed", "data", "k")
	var cm corev1.ConfigMap
	if err := w.cache.Get(ctx, key, &cm); err != nil || cm.Data["k"] != "v" {
		t.Errorf("a read is a copy: %v %v", cm.Data, err)
	}
	if err := w.cache.Get(ctx, key, u); err != nil || u.Object["data"].(map[string]any)["k"] != "v" {
		t.Errorf("the unstructured store was changed through a read: %v %v", u.Object, err)
	}

	p := &metav1.PartialObjectMetadata{}
	p.SetGroupVersionKind(configMapGVK)
	if err := w.cache.Get(ctx, key, p); err != nil {
		t.Fatal(err)
	}
	if p.Labels["app"] != "web" || p.Kind != "ConfigMap" || p.ResourceVersion != "1" {
		t.Errorf("metadata Get: %+v", p)
	}

	infs := w.cache.Informers()
	if w.src.lists != 3 || len(infs) != 3 {
		t.Fatalf("one informer per form: %d lists, %d informers", w.src.lists, len(infs))
	}
	for n, want := range []forms.Form{forms.Typed, forms.Unstructured, forms.Metadata} {
		if infs[n].Form() != want || infs[n].GVK() != configMapGVK {
			t.Errorf("informer %d: %v %s, want ConfigMap %s", n, infs[n].GVK(), infs[n].Form(), want)
		}
	}
	if _, ok := infs[2].Indexer().List()[0].(*metav1.PartialObjectMetadata); !ok {
		t.Errorf("the metadata informer stores %T", infs[2].Indexer().List()[0])
	}
	if w.cache.Informer(configMapGVK) != infs[0] {
		t.Error("Informer(kind) is not the kind's typed informer")
	}
}

// Each form's informer draws its own lag (the cache asks the lag function once per
// informer), so the forms of one kind see a change at different times.
func TestEachFormLagsOnItsOwn(t *testing.T) {
	s := newScheme(t)
	src := newFakeSource(s)
	clk := clock.New(clock.Epoch)
	next := []time.Duration{time.Second, 3 * time.Second}
	c := informer.NewCache(src, clk, s, func(schema.GroupVersionKind) informer.Lag {
		d := next[0]
		next = next[1:]
		return lags(d)
	})
	typed := c.FormInformer(configMapGVK, forms.Typed)
	meta := c.FormInformer(configMapGVK, forms.Metadata)
	src.create(configMap("ns", "x", nil, nil))
	clk.Step(2 * time.Second)
	if got := fmt.Sprint(len(typed.Indexer().List()), len(meta.Indexer().List())); got != "1 0" {
		t.Fatalf("objects cached (typed metadata) after 2s = %s, want 1 0", got)
	}
	clk.Step(time.Second)
	if got := len(meta.Indexer().List()); got != 1 {
		t.Fatalf("metadata informer after 3s: %d objects", got)
	}
}

// A hold of a kind holds its informers of every form, those created while it
// lasts included, and a release applies each one's queue in creation order.
func TestAHoldHoldsEveryFormOfTheKind(t *testing.T) {
	w := newWorld(t, nil)
	typed := w.cache.FormInformer(configMapGVK, forms.Typed)
	u := w.cache.FormInformer(configMapGVK, forms.Unstructured)
	w.cache.Informer(configMapGVK).Hold()
	m := w.cache.FormInformer(configMapGVK, forms.Metadata)
	if !typed.Held() || !u.Held() || !m.Held() {
		t.Fatalf("held: typed %t unstructured %t metadata %t", typed.Held(), u.Held(), m.Held())
	}
	w.src.create(configMap("ns", "x", nil, nil))
	w.clk.Step(time.Second)
	if typed.Pending() != 1 || u.Pending() != 1 || m.Pending() != 1 {
		t.Fatalf("pending: %d %d %d", typed.Pending(), u.Pending(), m.Pending())
	}
	var order []string
	for _, i := range []*informer.Informer{typed, u, m} {
		i.AddEventHandler(toolscache.ResourceEventHandlerFuncs{AddFunc: func(obj any) { order = append(order, fmt.Sprintf("%T", obj)) }})
	}
	m.Release()
	if want := "[*v1.ConfigMap *unstructured.Unstructured *v1.PartialObjectMetadata]"; fmt.Sprint(order) != want {
		t.Errorf("release delivered %v, want %s", order, want)
	}
	if typed.Held() || u.Held() || m.Held() {
		t.Error("a release left a form held")
	}
}

// A kind that only a CRD defines has no Go type: its native form is Unstructured,
// and its metadata informer converts from that.
func TestAKindWithoutAGoTypeIsCachedUnstructured(t *testing.T) {
	w := newWorld(t, nil)
	gadget := schema.GroupVersionKind{Group: "test.ctrlsim.dev", Version: "v1", Kind: "Gadget"}
	g := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": int64(2)}}}
	g.SetGroupVersionKind(gadget)
	g.SetNamespace("ns")
	g.SetName("g")
	w.src.create(g)
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(gadget)
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "g"}, got); err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(got.Object, "spec", "size"); size != 2 {
		t.Errorf("Get: %v", got.Object)
	}
	pl := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "test.ctrlsim.dev/v1", Kind: "GadgetList"}}
	if err := w.cache.List(ctx, pl); err != nil || len(pl.Items) != 1 || pl.Items[0].Name != "g" || pl.Items[0].Kind != "Gadget" {
		t.Errorf("metadata list: %+v %v", pl.Items, err)
	}
	if inf := w.cache.Informer(gadget); inf.Form() != forms.Unstructured {
		t.Errorf("native informer of a kind without a Go type: %s", inf.Form())
	}
}

// A missing object is the typed read's NotFound; a form without apiVersion/kind is
// controller-runtime's error.
func TestFormReadErrors(t *testing.T) {
	w := newWorld(t, nil)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(configMapGVK)
	err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, u)
	if !apierrors.IsNotFound(err) || err.Error() != `ConfigMap "x" not found` {
		t.Errorf("missing: %v", err)
	}
	err = w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, &unstructured.Unstructured{})
	if err == nil || err.Error() != "Object 'Kind' is missing in 'unstructured object has no kind'" {
		t.Errorf("no kind: %v", err)
	}
	err = w.cache.List(ctx, &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{Kind: "ConfigMapList"}})
	if err == nil || err.Error() != "Object 'apiVersion' is missing in 'unstructured object has no version'" {
		t.Errorf("no version: %v", err)
	}
}

// Lists of a form take the typed list's options (namespace, labels, indexed fields);
// items carry the item kind; the list keeps the caller's apiVersion/kind (Foo or
// FooList) and gets the cache's list metadata.
func TestFormLists(t *testing.T) {
	w := newWorld(t, nil)
	w.src.create(configMap("a", "x", map[string]string{"app": "web"}, map[string]string{"owner": "o1"}))
	w.src.create(configMap("a", "y", nil, map[string]string{"owner": "o2"}))
	w.src.create(configMap("b", "z", map[string]string{"app": "web"}, nil))

	ul := &unstructured.UnstructuredList{}
	ul.SetAPIVersion("v1")
	ul.SetKind("ConfigMapList")
	if err := w.cache.List(ctx, ul, client.MatchingLabels{"app": "web"}); err != nil {
		t.Fatal(err)
	}
	if len(ul.Items) != 2 || ul.Items[0].GetName() != "x" || ul.Items[1].GetName() != "z" || ul.Items[0].GetKind() != "ConfigMap" {
		t.Errorf("label selector: %v", ul.Items)
	}
	if ul.GetKind() != "ConfigMapList" || ul.GetContinue() != "continue-not-supported" {
		t.Errorf("list: %v", ul.Object)
	}

	pl := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
	if err := w.cache.List(ctx, pl, client.InNamespace("a")); err != nil {
		t.Fatal(err)
	}
	if len(pl.Items) != 2 || pl.Items[1].Name != "y" || pl.Items[1].Kind != "ConfigMap" || pl.Kind != "ConfigMap" {
		t.Errorf("namespace: %+v", pl)
	}

	// An index added with an unstructured object sees unstructured objects, and
	// serves that form's field selectors only: each form has its own indexes.
	err := w.cache.IndexField(ctx, ul.Items[0].DeepCopy(), "data.owner", func(o client.Object) []string {
		v, _, _ := unstructured.NestedString(o.(*unstructured.Unstructured).Object, "data", "owner")
		return []string{v}
	})
	if err != nil {
		t.Fatal(err)
	}
	sel := &client.ListOptions{FieldSelector: fields.OneTermEqualSelector("data.owner", "o2"), LabelSelector: labels.Everything()}
	if err := w.cache.List(ctx, ul, sel); err != nil || len(ul.Items) != 1 || ul.Items[0].GetName() != "y" {
		t.Errorf("field index: %+v %v", ul.Items, err)
	}
	if err := w.cache.List(ctx, pl, sel); err == nil || err.Error() != "Index with name field:data.owner does not exist" {
		t.Errorf("the metadata informer used the unstructured informer's index: %v", err)
	}
	var typed corev1.ConfigMapList
	if err := w.cache.List(ctx, &typed, sel); err == nil {
		t.Errorf("the typed informer used the unstructured informer's index: %v", typed.Items)
	}
	// The same field indexed in another form is that form's own index (no conflict).
	err = w.cache.IndexField(ctx, &corev1.ConfigMap{}, "data.owner", func(o client.Object) []string {
		return []string{o.(*corev1.ConfigMap).Data["owner"]}
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.cache.List(ctx, &typed, sel); err != nil || len(typed.Items) != 1 || typed.Items[0].Name != "y" {
		t.Errorf("typed field index: %v %v", typed.Items, err)
	}
}

// A stale cache makes every form's informer stale: an unstructured informer
// started on an apiserver behind lists the past too, converted into its form.
func TestAStaleCacheMakesEveryFormStale(t *testing.T) {
	clk := clock.New(clock.Epoch)
	srv := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clk})
	srv.CreateDefaultNamespaces()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}, Data: map[string]string{"v": "1"}}
	if err := srv.Create(apiserver.Admin, cm); err != nil {
		t.Fatal(err)
	}
	clk.Step(10 * time.Second)
	cm.Data["v"] = "2"
	if err := srv.Update(apiserver.Admin, cm, ""); err != nil {
		t.Fatal(err)
	}
	c := informer.NewCache(srv.Watcher(), clk, apiservertest.Scheme(), nil,
		informer.WithStale(informer.Stale{Age: 5 * time.Second, Until: clk.Now().Add(5 * time.Second)}))
	u := c.FormInformer(configMapGVK, forms.Unstructured)
	value := func() any {
		o, ok, _ := u.Indexer().GetByKey("default/x")
		if !ok {
			return "none"
		}
		return o.(*unstructured.Unstructured).Object["data"].(map[string]any)["v"]
	}
	if v := value(); v != "1" {
		t.Errorf("the stale unstructured informer at 10s shows %v, want the 5s state 1", v)
	}
	clk.Step(5 * time.Second)
	if v := value(); v != "2" {
		t.Errorf("caught up at 15s: %v, want 2", v)
	}
}
