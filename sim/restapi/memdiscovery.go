package restapi

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// Discovery is d answering discovery's reads from the server's kind table,
// as the transport answers /api and /apis, without a request: the same
// groups and resource lists with no JSON both ways and no goroutine of
// client-go's per group version: it answers as aggregated discovery
// (GroupsAndMaybeResources), every group version's resources with the
// groups, so that client-go's helpers and its memory cache start no
// goroutine to fetch them (goroutines outside the scheduler, each waited
// for in wall time). Its preferred and namespaced resources are
// client-go's own helpers over those two reads, as a legacy (unaggregated)
// discovery client computes them. Everything else is d's.
func (t *Transport) Discovery(d discovery.DiscoveryInterface) discovery.DiscoveryInterface {
	return memDiscovery{d, t}
}

type memDiscovery struct {
	discovery.DiscoveryInterface
	t *Transport
}

// ServerGroups is /api's core group first, then /apis's, as client-go's
// DiscoveryClient merges them.
func (d memDiscovery) ServerGroups() (*metav1.APIGroupList, error) {
	l := d.t.groups()
	v1 := metav1.GroupVersionForDiscovery{GroupVersion: "v1", Version: "v1"}
	core := metav1.APIGroup{Versions: []metav1.GroupVersionForDiscovery{v1}, PreferredVersion: v1}
	l.Groups = append([]metav1.APIGroup{core}, l.Groups...)
	return l, nil
}

func (d memDiscovery) ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error) {
	gv, err := schema.ParseGroupVersion(groupVersion)
	if err != nil {
		return nil, err
	}
	l := d.t.resources(gv)
	if len(l.APIResources) == 0 {
		return nil, apierrors.NewNotFound(schema.GroupResource{}, "")
	}
	return l, nil
}

func (d memDiscovery) ServerGroupsAndResources() ([]*metav1.APIGroup, []*metav1.APIResourceList, error) {
	return discovery.ServerGroupsAndResources(d)
}

func (d memDiscovery) ServerPreferredResources() ([]*metav1.APIResourceList, error) {
	return discovery.ServerPreferredResources(d)
}

func (d memDiscovery) ServerPreferredNamespacedResources() ([]*metav1.APIResourceList, error) {
	return discovery.ServerPreferredNamespacedResources(d)
}

// GroupsAndMaybeResources is every group (ServerGroups) with every group
// version's resources, as an aggregated discovery document gives them.
func (d memDiscovery) GroupsAndMaybeResources() (*metav1.APIGroupList, map[schema.GroupVersion]*metav1.APIResourceList, map[schema.GroupVersion]error, error) {
	groups, _ := d.ServerGroups()
	resources := map[schema.GroupVersion]*metav1.APIResourceList{}
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			gv := schema.GroupVersion{Group: g.Name, Version: v.Version}
			if l := d.t.resources(gv); len(l.APIResources) > 0 {
				resources[gv] = l
			}
		}
	}
	return groups, resources, nil, nil
}
