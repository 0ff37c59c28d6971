package process

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/cache"

	"github.com/ctrlsim/ctrlsim/sim/informer"
	"github.com/ctrlsim/ctrlsim/sim/rng"
)

// Without a list order, every informer of the ordered factories lists in key order, whichever way
// it is asked for: a typed informer (client-go v0.37 wraps it in a
// typedSharedIndexInformer), a generic one, a dynamic or metadata one. A
// wrapper that sortIndexer no longer sees through fails here, not as a plan
// that gives two traces.
func TestTheOrderedFactoriesInformersListInKeyOrder(t *testing.T) {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	keyOrder := func(string) informer.Order { return nil }
	typed := newOrderedFactory(fake.NewClientset(), func() {}, keyOrder)
	generic, err := newOrderedFactory(fake.NewClientset(), func() {}, keyOrder).ForResource(pods)
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	_ = metav1.AddMetaToScheme(scheme)
	dyn := newOrderedDynamicFactory(dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{pods: "PodList"}), func() {}, keyOrder)
	meta := newOrderedMetadataFactory(metadatafake.NewSimpleMetadataClient(scheme), func() {}, keyOrder)
	for name, inf := range map[string]cache.SharedIndexInformer{ // lint:order-independent each case on its own
		"typed":    typed.Core().V1().Pods().Informer(),
		"generic":  generic.Informer(),
		"dynamic":  dyn.ForResource(pods).Informer(),
		"metadata": meta.ForResource(pods).Informer(),
	} {
		if !sortIndexer(inf, nil) {
			t.Errorf("%s: a %T: its indexer is not sorted", name, inf)
			continue
		}
		idx := inf.GetIndexer()
		for i := range 20 {
			_ = idx.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("p%02d", (i*7)%20)}})
		}
		want := ""
		for i := range 20 {
			want += fmt.Sprintf("default/p%02d ", i)
		}
		for range 5 {
			got := ""
			for _, obj := range idx.List() {
				got += keyOf(obj) + " "
			}
			if got != want {
				t.Fatalf("%s: List gives %s, want %s", name, got, want)
			}
			objs, err := idx.ByIndex(cache.NamespaceIndex, "default")
			if err != nil {
				t.Fatal(err)
			}
			got = ""
			for _, obj := range objs {
				got += keyOf(obj) + " "
			}
			if got != want {
				t.Fatalf("%s: ByIndex gives %s, want %s", name, got, want)
			}
		}
	}
}

// With the plan's list order, a client-go informer's lister lists in the
// order the process's shuffle for its type draws, another at each call (as
// client-go's map-backed store does), the same for the same draws.
func TestTheOrderedFactoriesInformersListInThePlansShuffle(t *testing.T) {
	var asked []string
	order := func(what string) informer.Order {
		asked = append(asked, what)
		return rng.New(7).Stream(what).Shuffle
	}
	inf := newOrderedFactory(fake.NewClientset(), func() {}, order).Core().V1().Pods()
	idx := inf.Informer().GetIndexer()
	if !slices.Equal(asked, []string{"k8s.io/api/core/v1.Pod"}) {
		t.Fatalf("order asked for %q, want the Pod type once", asked)
	}
	var sorted []string
	for i := range 20 {
		name := fmt.Sprintf("p%02d", i)
		sorted = append(sorted, "default/"+name)
		_ = idx.Add(&corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}})
	}
	ref := rng.New(7).Stream("k8s.io/api/core/v1.Pod")
	var lists [][]string
	for range 3 {
		pods, err := inf.Lister().Pods("default").List(labels.Everything())
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range pods {
			got = append(got, p.Namespace+"/"+p.Name)
		}
		want := slices.Clone(sorted)
		ref.Shuffle(len(want), func(i, j int) { want[i], want[j] = want[j], want[i] })
		if !slices.Equal(got, want) {
			t.Fatalf("lister gives %v, want the shuffle's %v", got, want)
		}
		if slices.Equal(got, sorted) {
			t.Fatal("lister gives key order")
		}
		lists = append(lists, got)
	}
	if slices.Equal(lists[0], lists[1]) {
		t.Fatalf("two lists in the same order %v: want a new draw at each", lists[0])
	}
}
