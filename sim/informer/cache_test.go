package informer_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/informer"
	"github.com/ctrlsim/ctrlsim/sim/rng"
)

// controller-runtime's CacheReader.Get (pkg/cache/internal/cache_reader.go) returns a
// deep copy with its GroupVersionKind set: the caller may mutate it freely.
func TestGetReturnsADeepCopyTheCallerMayMutate(t *testing.T) {
	w := newWorld(t, nil)
	w.src.create(configMap("ns", "x", map[string]string{"app": "web"}, map[string]string{"k": "v"}))
	var cm corev1.ConfigMap
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, &cm); err != nil {
		t.Fatal(err)
	}
	if gvk := cm.GroupVersionKind(); gvk != configMapGVK {
		t.Fatalf("GroupVersionKind = %v, want %v", gvk, configMapGVK)
	}
	cm.Data["k"] = "changed"
	cm.Labels["app"] = "changed"
	cm.Name = "changed"

	var again corev1.ConfigMap
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, &again); err != nil {
		t.Fatal(err)
	}
	if again.Data["k"] != "v" || again.Labels["app"] != "web" || again.Name != "x" {
		t.Fatalf("mutating a Get result changed the cache: %+v", again.ObjectMeta)
	}
	var list corev1.ConfigMapList
	if err := w.cache.List(ctx, &list); err != nil {
		t.Fatal(err)
	}
	list.Items[0].Data["k"] = "changed"
	cached, _, _ := w.cache.Informer(configMapGVK).Indexer().GetByKey("ns/x")
	if got := cached.(*corev1.ConfigMap).Data["k"]; got != "v" {
		t.Fatalf("mutating a List result changed the cache: data k = %q", got)
	}
}

// The cache's NotFound names the Kind where the apiserver would name the resource:
// controller-runtime builds it as NewNotFound(GroupResource{Group, Resource: Kind}, name).
func TestGetNotFoundNamesTheKindAsControllerRuntimeDoes(t *testing.T) {
	w := newWorld(t, nil)
	var cm corev1.ConfigMap
	err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, &cm)
	if !apierrors.IsNotFound(err) || err.Error() != `ConfigMap "x" not found` {
		t.Fatalf("err = %v, want NotFound `ConfigMap \"x\" not found`", err)
	}
	status := err.(apierrors.APIStatus).Status()
	if d := status.Details; d == nil || d.Kind != "ConfigMap" || d.Group != "" || d.Name != "x" {
		t.Fatalf("details = %+v", d)
	}
}

// With a RESTMapper, a Get of a cluster-scoped kind ignores the key's namespace and a
// kind the mapper does not know fails, as controller-runtime's cache.
func TestRESTMapperGivesScope(t *testing.T) {
	nsGVK := corev1.SchemeGroupVersion.WithKind("Namespace")
	m := meta.NewDefaultRESTMapper([]schema.GroupVersion{corev1.SchemeGroupVersion})
	m.Add(nsGVK, meta.RESTScopeRoot)
	m.Add(configMapGVK, meta.RESTScopeNamespace)
	w := newWorld(t, nil, informer.WithRESTMapper(m))
	w.src.create(&corev1.Namespace{ObjectMeta: configMap("", "prod", nil, nil).ObjectMeta})

	var ns corev1.Namespace
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ignored", Name: "prod"}, &ns); err != nil {
		t.Fatalf("Get of a cluster-scoped object with a namespace in the key: %v", err)
	}
	var s corev1.Secret
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "s"}, &s); !meta.IsNoMatchError(err) {
		t.Fatalf("Get of a kind the mapper does not know: %v, want a no-match error", err)
	}
}

// List follows CacheReader.List: namespace via the namespace index, exact field selectors
// via the "field:" indexes of IndexField (with the "__all_namespaces" variant when no
// namespace is given), label selectors, Limit; results here are in namespace/name order.
func TestListSelectors(t *testing.T) {
	w := newWorld(t, nil)
	for _, cm := range []*corev1.ConfigMap{
		configMap("b", "three", nil, map[string]string{"owner": "x"}),
		configMap("a", "two", map[string]string{"app": "db"}, map[string]string{"owner": "y"}),
		configMap("b", "one", map[string]string{"app": "web"}, map[string]string{"owner": "x"}),
		configMap("a", "one", map[string]string{"app": "web"}, map[string]string{"owner": "x"}),
	} {
		w.src.create(cm)
	}
	for _, ix := range []struct {
		field   string
		extract client.IndexerFunc
	}{
		{"data.owner", func(o client.Object) []string { return []string{o.(*corev1.ConfigMap).Data["owner"]} }},
		{"metadata.name", func(o client.Object) []string { return []string{o.GetName()} }},
	} {
		if err := w.cache.IndexField(ctx, &corev1.ConfigMap{}, ix.field, ix.extract); err != nil {
			t.Fatal(err)
		}
	}
	ownerAndName := fields.AndSelectors(fields.OneTermEqualSelector("data.owner", "x"),
		fields.OneTermEqualSelector("metadata.name", "one"))
	ownerAndUnindexed := fields.AndSelectors(fields.OneTermEqualSelector("data.owner", "x"),
		fields.OneTermEqualSelector("data.unindexed", "x"))

	for _, tc := range []struct {
		name    string
		opts    []client.ListOption
		want    []string
		wantErr string
	}{
		{name: "everything", want: []string{"a/one", "a/two", "b/one", "b/three"}},
		{name: "namespace", opts: []client.ListOption{client.InNamespace("a")}, want: []string{"a/one", "a/two"}},
		{name: "labels", opts: []client.ListOption{client.MatchingLabels{"app": "web"}}, want: []string{"a/one", "b/one"}},
		{name: "labels in namespace", opts: []client.ListOption{client.MatchingLabels{"app": "web"}, client.InNamespace("b")},
			want: []string{"b/one"}},
		{name: "field in all namespaces", opts: []client.ListOption{client.MatchingFields{"data.owner": "x"}},
			want: []string{"a/one", "b/one", "b/three"}},
		{name: "field in namespace", opts: []client.ListOption{client.MatchingFields{"data.owner": "x"}, client.InNamespace("b")},
			want: []string{"b/one", "b/three"}},
		{name: "field without match", opts: []client.ListOption{client.MatchingFields{"data.owner": "nobody"}}, want: nil},
		{name: "two fields", opts: []client.ListOption{client.MatchingFieldsSelector{Selector: ownerAndName}},
			want: []string{"a/one", "b/one"}},
		{name: "limit", opts: []client.ListOption{client.Limit(3)}, want: []string{"a/one", "a/two", "b/one"}},
		{name: "field without index", opts: []client.ListOption{client.MatchingFields{"data.unindexed": "x"}},
			wantErr: "Index with name field:data.unindexed does not exist"},
		{name: "second field without index", opts: []client.ListOption{client.MatchingFieldsSelector{Selector: ownerAndUnindexed}},
			wantErr: "index with name field:data.unindexed does not exist"},
		{name: "non-exact field", opts: []client.ListOption{
			client.MatchingFieldsSelector{Selector: fields.OneTermNotEqualSelector("data.owner", "x")}},
			wantErr: "non-exact field matches are not supported by the cache"},
		{name: "continue", opts: []client.ListOption{client.Continue("token")},
			wantErr: "continue list option is not supported by the cache"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var list corev1.ConfigMapList
			err := w.cache.List(ctx, &list, tc.opts...)
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, cm := range list.Items {
				got = append(got, cm.Namespace+"/"+cm.Name)
				if cm.GroupVersionKind() != configMapGVK {
					t.Errorf("%s has GroupVersionKind %v", cm.Name, cm.GroupVersionKind())
				}
			}
			if !cmp.Equal(got, tc.want) {
				t.Fatalf("List = %v, want %v", got, tc.want)
			}
			if list.Continue != "continue-not-supported" || list.ResourceVersion != "" {
				t.Fatalf("list metadata = %+v, want continue-not-supported and no resourceVersion", list.ListMeta)
			}
		})
	}
}

// Field indexes follow the store: an object that arrives later is found through them.
func TestFieldIndexFollowsLaterEvents(t *testing.T) {
	w := newWorld(t, nil)
	err := w.cache.IndexField(ctx, &corev1.ConfigMap{}, "data.owner",
		func(o client.Object) []string { return []string{o.(*corev1.ConfigMap).Data["owner"]} })
	if err != nil {
		t.Fatal(err)
	}
	w.src.create(configMap("a", "late", nil, map[string]string{"owner": "x"}))
	w.clk.Step(0)
	var list corev1.ConfigMapList
	if err := w.cache.List(ctx, &list, client.MatchingFields{"data.owner": "x"}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Name != "late" {
		t.Fatalf("List by field = %v", list.Items)
	}
	err = w.cache.IndexField(ctx, &corev1.ConfigMap{}, "data.owner",
		func(o client.Object) []string { return nil })
	if err == nil || err.Error() != "indexer conflict: map[field:data.owner:{}]" {
		t.Fatalf("second index of the same field: %v, want client-go's indexer conflict", err)
	}
}

// Reads of a Go type missing from the scheme fail.
func TestReadsOfUnregisteredTypesFail(t *testing.T) {
	w := newWorld(t, nil)
	type unregistered struct{ corev1.ConfigMap }
	if err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, &unregistered{}); err == nil {
		t.Fatal("Get of a type missing from the scheme succeeded")
	}
}

// A cache made WithListOrder lists in the order its shuffle for the kind
// draws, a new one at each call, whole lists, namespaced ones and index
// lookups alike; the same draws give the same orders (a plan's seed), and
// without an Order a list is in key order.
func TestAListComesInTheOrderItsShuffleDraws(t *testing.T) {
	names := func(w *world, opts ...client.ListOption) string {
		var list corev1.ConfigMapList
		if err := w.cache.List(ctx, &list, opts...); err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, cm := range list.Items {
			out = append(out, cm.Namespace+"/"+cm.Name)
		}
		return strings.Join(out, " ")
	}
	fill := func(w *world) {
		for i := range 8 {
			w.src.create(configMap("ns", fmt.Sprintf("cm-%d", i), nil, map[string]string{"owner": "x"}))
		}
	}
	run := func(seed uint64) []string {
		s := rng.New(seed).Stream("list-order")
		w := newWorld(t, nil, informer.WithListOrder(func(gvk schema.GroupVersionKind) informer.Order {
			if gvk != configMapGVK {
				t.Fatalf("order asked for %v", gvk)
			}
			return s.Shuffle
		}))
		fill(w)
		if err := w.cache.IndexField(ctx, &corev1.ConfigMap{}, "data.owner", func(o client.Object) []string {
			return []string{o.(*corev1.ConfigMap).Data["owner"]}
		}); err != nil {
			t.Fatal(err)
		}
		return []string{names(w), names(w), names(w, client.InNamespace("ns")), names(w, client.MatchingFields{"data.owner": "x"})}
	}
	sorted := "ns/cm-0 ns/cm-1 ns/cm-2 ns/cm-3 ns/cm-4 ns/cm-5 ns/cm-6 ns/cm-7"
	a, b, c := run(1), run(1), run(2)
	if !slices.Equal(a, b) {
		t.Fatalf("one seed, two runs: %q and %q", a, b)
	}
	if slices.Equal(a, c) {
		t.Fatalf("two seeds gave the same orders %q", a)
	}
	for i, l := range a {
		if l == sorted {
			t.Fatalf("list %d came sorted: %q", i, l)
		}
		if got := strings.Fields(l); len(got) != 8 || !slices.Equal(slices.Sorted(slices.Values(got)), strings.Fields(sorted)) {
			t.Fatalf("list %d = %q, want a permutation of %q", i, l, sorted)
		}
	}
	if a[0] == a[1] {
		t.Fatalf("two calls gave the same order %q: want a new draw at each", a[0])
	}
	w := newWorld(t, nil)
	fill(w)
	if got := names(w); got != sorted {
		t.Fatalf("without an Order: %q, want key order", got)
	}
}
