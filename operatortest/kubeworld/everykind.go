package kubeworld

import (
	"cmp"
	"fmt"
	"slices"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// NotStored are the kinds the apiserver model serves (its scheme has their
// Go types) that are no resource of kube-apiserver's with list and delete:
// reviews and requests answered without storage, subresources' bodies and
// options. Upstream's discovery does not list them as deletable, so neither
// the namespace controller nor the collector knows them.
var NotStored = map[schema.GroupKind]string{
	{Kind: "Binding"}:                                                 "pods/binding's body",
	{Kind: "ComponentStatus"}:                                         "read-only, not stored",
	{Kind: "RangeAllocation"}:                                         "internal to the apiserver, not served",
	{Kind: "SerializedReference"}:                                     "not a resource",
	{Kind: "NodeProxyOptions"}:                                        "options",
	{Kind: "PodAttachOptions"}:                                        "options",
	{Kind: "PodExecOptions"}:                                          "options",
	{Kind: "PodLogOptions"}:                                           "options",
	{Kind: "PodPortForwardOptions"}:                                   "options",
	{Kind: "PodProxyOptions"}:                                         "options",
	{Kind: "ServiceProxyOptions"}:                                     "options",
	{Group: "apps", Kind: "Scale"}:                                    "a scale subresource's body",
	{Group: "apps", Kind: "DeploymentRollback"}:                       "a rollback subresource's body",
	{Group: "extensions", Kind: "Scale"}:                              "a scale subresource's body",
	{Group: "extensions", Kind: "DeploymentRollback"}:                 "a rollback subresource's body",
	{Group: "autoscaling", Kind: "Scale"}:                             "a scale subresource's body",
	{Group: "policy", Kind: "Eviction"}:                               "pods/eviction's body",
	{Group: "lifecycle.k8s.io", Kind: "Eviction"}:                     "an eviction subresource's body",
	{Group: "authentication.k8s.io", Kind: "TokenReview"}:             "create-only review",
	{Group: "authentication.k8s.io", Kind: "TokenRequest"}:            "serviceaccounts/token's body",
	{Group: "authentication.k8s.io", Kind: "SelfSubjectReview"}:       "create-only review",
	{Group: "authorization.k8s.io", Kind: "SubjectAccessReview"}:      "create-only review",
	{Group: "authorization.k8s.io", Kind: "LocalSubjectAccessReview"}: "create-only review",
	{Group: "authorization.k8s.io", Kind: "SelfSubjectAccessReview"}:  "create-only review",
	{Group: "authorization.k8s.io", Kind: "SelfSubjectRulesReview"}:   "create-only review",
	// Stored, but its objects install kinds: the collector's discovery
	// (gcdiscovery_test.go) covers its life.
	{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}: "installs kinds",
}

// StoredKinds are the kinds server serves now and stores (all but
// NotStored), one version each, the preferred (kube.PreferredVersion of
// mapper), by group and kind: discovery's deletable resources.
func StoredKinds(server *apiserver.Server, mapper meta.RESTMapper) ([]schema.GroupVersionKind, error) {
	var out []schema.GroupVersionKind
	seen := map[schema.GroupKind]bool{}
	for _, k := range server.Kinds() {
		gk := k.GVK.GroupKind()
		if _, skip := NotStored[gk]; skip || seen[gk] {
			continue
		}
		seen[gk] = true
		gvk, ok := kube.PreferredVersion(mapper, gk)
		if !ok {
			return nil, fmt.Errorf("the RESTMapper does not map %s, which the apiserver serves", gk)
		}
		out = append(out, gvk)
	}
	slices.SortFunc(out, func(a, b schema.GroupVersionKind) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind))
	})
	return out, nil
}

// SetupEveryKind registers, in p, models/kube's namespace controller with
// every namespaced kind of kinds as Content and its garbage collector with
// every kind of kinds (typed, or as metadata for a kind with no Go type),
// its Events recorded as garbage-collector-controller's: as a world that
// holds every kind runs them.
func SetupEveryKind(p *process.Process, kinds []schema.GroupVersionKind) error {
	mgr := p.Manager()
	scheme := mgr.GetScheme()
	var content []client.ObjectList
	var collected []client.Object
	for _, gvk := range kinds {
		o, err := kube.ObjectOf(scheme, gvk)
		if err != nil {
			return err
		}
		collected = append(collected, o)
		namespaced, err := mgr.GetClient().IsObjectNamespaced(o)
		if err != nil {
			return err
		}
		if namespaced {
			l, err := kube.ListOf(scheme, gvk)
			if err != nil {
				return err
			}
			content = append(content, l)
		}
	}
	nc := &kube.NamespaceController{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: p.Clock(), Content: content}
	if err := nc.SetupWithManager(mgr); err != nil {
		return err
	}
	gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(), Kinds: collected,
		Recorder: p.GetEventRecorderFor("garbage-collector-controller")}
	return gc.SetupWithManager(mgr)
}
