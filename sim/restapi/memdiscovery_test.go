package restapi_test

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

// Discovery read from the kind table gives client-go's preferred resources
// and its groups and resources exactly as discovery over the REST
// transport does; and apiextensions.k8s.io serves CustomResourceDefinitions
// alone (no ConversionReview), as kube-apiserver does.
func TestDiscoveryFromTheKindTableIsDiscoveryOverREST(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	clk := clock.New(clock.Epoch)
	server := apiserver.New(apiserver.Options{Scheme: s, Clock: clk,
		Later: func(d time.Duration, f func()) { clk.AfterFunc(d, f) }})
	tr := restapi.New(kubeclient.New(server, apiserver.Admin, kubeclient.Options{}), server, "op", nil)
	rest, err := discovery.NewDiscoveryClientForConfig(tr.Config())
	if err != nil {
		t.Fatal(err)
	}
	mem := tr.Discovery(rest)
	wantPreferred, err := rest.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	gotPreferred, err := mem.ServerPreferredResources()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(strip(gotPreferred), strip(wantPreferred)) {
		t.Errorf("preferred resources from the kind table:\n%v\nover REST:\n%v", strip(gotPreferred), strip(wantPreferred))
	}
	wantGroups, wantResources, err := rest.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	gotGroups, gotResources, err := mem.ServerGroupsAndResources()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(gotGroups, wantGroups) || !reflect.DeepEqual(strip(gotResources), strip(wantResources)) {
		t.Errorf("groups and resources from the kind table differ from those over REST")
	}
	ext, err := mem.ServerResourcesForGroupVersion(apiextensionsv1.SchemeGroupVersion.String())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range ext.APIResources {
		names = append(names, r.Name)
	}
	if want := []string{"customresourcedefinitions", "customresourcedefinitions/status"}; !reflect.DeepEqual(names, want) {
		t.Errorf("apiextensions.k8s.io/v1 serves %v, want %v", names, want)
	}
	if _, err := mem.ServerResourcesForGroupVersion(corev1.SchemeGroupVersion.String()); err != nil {
		t.Errorf("core v1: %v", err)
	}
}

// strip leaves the lists' group versions and resources, by name (REST's
// answers carry their TypeMeta, a list built in memory need not; and
// client-go's preferred resources come in the order of a map of its own).
func strip(ls []*metav1.APIResourceList) map[string][]metav1.APIResource {
	out := map[string][]metav1.APIResource{}
	for _, l := range ls {
		rs := slices.Clone(l.APIResources)
		slices.SortFunc(rs, func(a, b metav1.APIResource) int { return strings.Compare(a.Name, b.Name) })
		out[l.GroupVersion] = rs
	}
	return out
}
