package kcm

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery/cached/memory"
	fakediscovery "k8s.io/client-go/discovery/fake"
	"k8s.io/client-go/restmapper"
	clienttesting "k8s.io/client-go/testing"
)

func served(withCRD bool) []*metav1.APIResourceList {
	out := []*metav1.APIResourceList{
		{GroupVersion: "v1", APIResources: []metav1.APIResource{{Name: "configmaps", Kind: "ConfigMap", Namespaced: true}, {Name: "namespaces", Kind: "Namespace"}}},
		{GroupVersion: "apps/v1", APIResources: []metav1.APIResource{{Name: "deployments", Kind: "Deployment", Namespaced: true}}},
	}
	if withCRD {
		out = append(out, &metav1.APIResourceList{GroupVersion: "example.com/v1", APIResources: []metav1.APIResource{{Name: "widgets", Kind: "Widget", Namespaced: true}}})
	}
	return out
}

// orderedDiscovery serves its groups in the order of its resource lists, as
// the world's discovery serves them in a fixed order (client-go's fake
// serves them in a Go map's).
type orderedDiscovery struct{ *fakediscovery.FakeDiscovery }

func (d orderedDiscovery) ServerGroups() (*metav1.APIGroupList, error) {
	return d.ServerGroupsWithContext(context.Background())
}

func (d orderedDiscovery) ServerGroupsWithContext(ctx context.Context) (*metav1.APIGroupList, error) {
	list, err := d.FakeDiscovery.ServerGroupsWithContext(ctx)
	if err != nil {
		return nil, err
	}
	var order []string
	for _, r := range d.Resources {
		if g, _, _ := strings.Cut(r.GroupVersion, "/"); strings.Contains(r.GroupVersion, "/") {
			order = append(order, g)
		} else {
			order = append(order, "")
		}
	}
	slices.SortStableFunc(list.Groups, func(a, b metav1.APIGroup) int {
		return slices.Index(order, a.Name) - slices.Index(order, b.Name)
	})
	return list, nil
}

func fakeDiscovery(withCRD bool) orderedDiscovery {
	return orderedDiscovery{&fakediscovery.FakeDiscovery{Fake: &clienttesting.Fake{Resources: served(withCRD)}}}
}

// The collector's mapper answers every lookup as client-go's deferred
// discovery mapper does on the same discovery, through a CRD installed after
// its first lookup (found only once a lookup that misses finds the cache
// stale, or after Reset); and worlds that serve the same resources share
// one built mapper, while a world serving one more kind gets its own.
func TestTheCollectorsMapperAnswersAsTheDeferredMapperAndIsSharedByWhatDiscoveryServes(t *testing.T) {
	disc := fakeDiscovery(false)
	ours := newSharedMapper(memory.NewMemCacheClient(disc))
	theirs := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	widgets := schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}
	deployments := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	say := func(gvk schema.GroupVersionKind, err error) string { return fmt.Sprintf("%v %v", gvk, err) }
	same := func(step string, r schema.GroupVersionResource) {
		t.Helper()
		if got, want := say(ours.KindFor(r)), say(theirs.KindFor(r)); got != want {
			t.Errorf("%s: KindFor(%v) = %s, the deferred mapper's %s", step, r, got, want)
		}
		m1, err1 := ours.RESTMapping(schema.GroupKind{Group: r.Group, Kind: "Widget"})
		m2, err2 := theirs.RESTMapping(schema.GroupKind{Group: r.Group, Kind: "Widget"})
		if (err1 == nil) != (err2 == nil) || err1 == nil && m1.Resource != m2.Resource {
			t.Errorf("%s: RESTMapping = %v, %v; the deferred mapper's %v, %v", step, m1, err1, m2, err2)
		}
	}
	same("before the CRD", deployments)
	same("before the CRD", widgets)
	disc.Resources = served(true) // the CRD is installed
	same("the CRD installed, the cache fresh", widgets)
	ours.Reset()
	theirs.Reset()
	same("after Reset", widgets)
	if _, err := ours.KindFor(widgets); err != nil {
		t.Fatalf("after Reset the installed CRD's kind is not found: %v", err)
	}

	own := &mappers{} // not the process's: other tests build theirs at once
	mapper := func(d orderedDiscovery) *sharedMapper {
		return &sharedMapper{cl: memory.NewMemCacheClient(d), built: own}
	}
	builtNow := func() int { own.Lock(); defer own.Unlock(); return len(own.by) }
	for _, withCRD := range []bool{true, false} {
		if _, err := mapper(fakeDiscovery(withCRD)).KindFor(deployments); err != nil {
			t.Fatal(err)
		}
	}
	before := builtNow()
	for _, withCRD := range []bool{true, true, false, false} {
		if _, err := mapper(fakeDiscovery(withCRD)).KindFor(deployments); err != nil {
			t.Fatal(err)
		}
	}
	if n := builtNow() - before; n != 0 {
		t.Errorf("four worlds serving the two resource sets already met built %d mappers more, want none", n)
	}
	extra := fakeDiscovery(true)
	extra.Resources = append(extra.Resources, &metav1.APIResourceList{GroupVersion: "example.com/v2", APIResources: []metav1.APIResource{{Name: "widgets", Kind: "Widget", Namespaced: true}}})
	if _, err := mapper(extra).KindFor(deployments); err != nil {
		t.Fatal(err)
	}
	if n := builtNow() - before; n != 1 {
		t.Errorf("a world serving one version more built %d mappers, want its own", n)
	}
}
