package restapi

import (
	"net/http"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// ServerVersion is what /version answers: the Kubernetes release that the
// vendored client-go (v0.37) belongs to.
var ServerVersion = version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2", Platform: "linux/amd64"}

// discovery serves /api, /apis, /version and a group version's resource list,
// in the unaggregated form (application/json): client-go's discovery client
// asks for the aggregated form first and falls back to this one when the
// answer is plain JSON, as it does with a server that has no aggregated
// discovery. It is read from the server's kind table without being a call of
// the process (no trace step, no yield, no latency, no fault): client-go
// fetches the group versions from goroutines of its own
// (fetchGroupVersionResources) while the calling task waits for them, and
// those goroutines must not enter the scheduler.
func (t *Transport) discovery(req *http.Request, path string, gv schema.GroupVersion) (int, any, error) {
	if req.Method != http.MethodGet {
		return 0, nil, notFound()
	}
	var out any
	switch path {
	case "api":
		v := &metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"},
			ServerAddressByClientCIDRs: []metav1.ServerAddressByClientCIDR{{ClientCIDR: "0.0.0.0/0", ServerAddress: "apiserver.ctrlsim.invalid:443"}}}
		out = v
	case "apis":
		l := t.groups()
		out = l
	case "version":
		v := ServerVersion
		out = &v
	default:
		l := t.resources(gv)
		out = l
	}
	if l, ok := out.(*metav1.APIResourceList); ok && len(l.APIResources) == 0 {
		return 0, nil, notFound()
	}
	return http.StatusOK, out, nil
}

// groups is /apis: every served group but the core one, with its versions,
// preferred first (the highest by Kubernetes version order).
func (t *Transport) groups() *metav1.APIGroupList {
	l := &metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList", APIVersion: "v1"}, Groups: []metav1.APIGroup{}}
	index := map[string]int{}
	for _, k := range t.server.Kinds() {
		g := k.GVK.Group
		if g == "" {
			continue
		}
		i, ok := index[g]
		if !ok {
			i = len(l.Groups)
			index[g] = i
			l.Groups = append(l.Groups, metav1.APIGroup{Name: g})
		}
		gvd := metav1.GroupVersionForDiscovery{GroupVersion: k.GVK.GroupVersion().String(), Version: k.GVK.Version}
		if !slices.Contains(l.Groups[i].Versions, gvd) {
			l.Groups[i].Versions = append(l.Groups[i].Versions, gvd)
		}
	}
	for i := range l.Groups {
		vs := l.Groups[i].Versions
		slices.SortStableFunc(vs, func(a, b metav1.GroupVersionForDiscovery) int {
			return -version.CompareKubeAwareVersionStrings(a.Version, b.Version)
		})
		l.Groups[i].PreferredVersion = vs[0]
	}
	return l
}

// resources is a group version's APIResourceList: each served kind, its
// status subresource, and namespaces/finalize.
func (t *Transport) resources(gv schema.GroupVersion) *metav1.APIResourceList {
	l := &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: gv.String()}
	for _, k := range t.server.Kinds() {
		if k.GVK.GroupVersion() != gv {
			continue
		}
		l.APIResources = append(l.APIResources, resource(k))
		if k.Status {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: k.Resource + "/status", Namespaced: k.Namespaced,
				Kind: k.GVK.Kind, Verbs: metav1.Verbs{"get", "patch", "update"}})
		}
		if k.GVK.GroupKind() == (schema.GroupKind{Kind: "Namespace"}) {
			l.APIResources = append(l.APIResources, metav1.APIResource{Name: "namespaces/finalize", Kind: "Namespace", Verbs: metav1.Verbs{"update"}})
		}
	}
	return l
}

func resource(k *apiserver.Kind) metav1.APIResource {
	return metav1.APIResource{
		Name:         k.Resource,
		SingularName: lower(k.GVK.Kind),
		Namespaced:   k.Namespaced,
		Kind:         k.GVK.Kind,
		Verbs:        metav1.Verbs{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"},
	}
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
