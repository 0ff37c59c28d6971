package process

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"
	"k8s.io/client-go/tools/cache"
)

// Every informer of the ordered factories lists in key order, whichever way
// it is asked for: a typed informer (client-go v0.37 wraps it in a
// typedSharedIndexInformer), a generic one, a dynamic or metadata one. A
// wrapper that sortIndexer no longer sees through fails here, not as a plan
// that gives two traces.
func TestTheOrderedFactoriesInformersListInKeyOrder(t *testing.T) {
	pods := schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	typed := newOrderedFactory(fake.NewClientset(), func() {})
	generic, err := newOrderedFactory(fake.NewClientset(), func() {}).ForResource(pods)
	if err != nil {
		t.Fatal(err)
	}
	scheme := runtime.NewScheme()
	_ = metav1.AddMetaToScheme(scheme)
	dyn := newOrderedDynamicFactory(dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(), map[schema.GroupVersionResource]string{pods: "PodList"}), func() {})
	meta := newOrderedMetadataFactory(metadatafake.NewSimpleMetadataClient(scheme), func() {})
	for name, inf := range map[string]cache.SharedIndexInformer{ // lint:order-independent each case on its own
		"typed":    typed.Core().V1().Pods().Informer(),
		"generic":  generic.Informer(),
		"dynamic":  dyn.ForResource(pods).Informer(),
		"metadata": meta.ForResource(pods).Informer(),
	} {
		if !sortIndexer(inf) {
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
