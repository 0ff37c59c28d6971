package apiserver

import (
	"cmp"
	"reflect"
	"slices"
	"strings"
	"sync"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Generation says when metadata.generation changes, as each type's registry
// strategy decides it in a real kube-apiserver.
type Generation int

const (
	// GenerationNone: metadata.generation stays 0 (ConfigMap, Secret, Namespace, RBAC, ...).
	GenerationNone Generation = iota
	// GenerationSpec: 1 on create, +1 when .spec changes (Pod, ReplicaSet, Job, ...).
	GenerationSpec
	// GenerationSpecAndAnnotations: as GenerationSpec, and annotation changes bump it too
	// (Deployment: pkg/registry/apps/deployment/strategy.go PrepareForUpdate).
	GenerationSpecAndAnnotations
	// GenerationContent: 1 on create, +1 when anything but metadata (and status, when
	// the status subresource is on) changes. Custom resources
	// (apiextensions-apiserver pkg/registry/customresource/strategy.go) and built-ins
	// without a spec, such as EndpointSlice and webhook configurations.
	GenerationContent
)

// Kind is what the model serves for one kind: its REST mapping and the parts of
// its registry strategy that the model reproduces.
type Kind struct {
	GVK        schema.GroupVersionKind
	Resource   string // plural, lower case: "configmaps"
	Namespaced bool
	// Status is true when the kind has a status subresource: Update keeps the stored
	// status, and Status().Update keeps the stored spec (see StatusMeta for the
	// metadata).
	Status bool
	// StatusMeta is what a status update does with the request's metadata.
	StatusMeta StatusMeta
	Generation Generation
	// UnconditionalUpdate is the strategy's AllowUnconditionalUpdate: an Update
	// without metadata.resourceVersion overwrites instead of failing with 422.
	// False for custom resources.
	UnconditionalUpdate bool
	// Strategic is true when strategic merge patch is accepted (built-in types).
	Strategic bool
	// Custom is true for custom resources (installed with InstallCRD).
	Custom bool
	// CreateOnUpdate is the strategy's AllowCreateOnUpdate: an Update of a
	// missing object creates it (RBAC objects, Lease, Service, ...).
	CreateOnUpdate bool

	goType reflect.Type // the struct type (not the pointer)
	schema *crSchema    // a custom resource's schema, or nil
	// terminating: the CRD object that installed this kind is being deleted
	// (crdserve.go): creates are refused.
	terminating bool
	// versions links the versions of a CRD with several (versions.go); nil
	// for a kind served in one version.
	versions *crdVersions
	// crd is the CRD that installed a custom kind (its schema builds the
	// field manager's types).
	crd CRD
	// fm are the kind's field managers (fieldmanager.go), built on first use.
	fm kindFieldManagers
}

// storageKey is the object's etcd key, as storage errors name it: built-in
// resources are stored under /registry/<resource>, custom ones under
// /registry/<group>/<resource>.
func (k *Kind) storageKey(namespace, name string) string {
	key := "/registry/" + k.Resource
	if k.Custom {
		key = "/registry/" + k.GVK.Group + "/" + k.Resource
	}
	if namespace != "" {
		key += "/" + namespace
	}
	return key + "/" + name
}

// GroupResource is the kind's resource with its group, as errors name it.
func (k *Kind) GroupResource() schema.GroupResource {
	return schema.GroupResource{Group: k.GVK.Group, Resource: k.Resource}
}

// CRD describes a custom resource to install, as a CustomResourceDefinition would.
type CRD struct {
	GVK        schema.GroupVersionKind
	Plural     string // defaults to the lower-case kind plus "s" (meta.UnsafeGuessKindToResource)
	Namespaced bool
	Status     bool // the status subresource is enabled
	// Schema is the version's openAPIV3Schema (CRDsFromYAML reads it from a
	// manifest). With it, writes are pruned, defaulted and validated as
	// kube-apiserver does; without it, any content is accepted.
	Schema *apiextensionsv1.JSONSchemaProps
	// Definition is the whole CustomResourceDefinition (CRDFromDefinition sets
	// it): when it has several versions, every served one is served, stored in
	// the storage version and converted with its conversion strategy
	// (versions.go). GVK, Schema and Status are then the storage version's.
	Definition *apiextensionsv1.CustomResourceDefinition
}

// builtinClusterScoped lists the cluster-scoped kinds of k8s.io/api (group/Kind).
var builtinClusterScoped = map[string]bool{
	"/Namespace": true, "/Node": true, "/PersistentVolume": true, "/ComponentStatus": true,
	"rbac.authorization.k8s.io/ClusterRole": true, "rbac.authorization.k8s.io/ClusterRoleBinding": true,
	"apiextensions.k8s.io/CustomResourceDefinition": true, "apiregistration.k8s.io/APIService": true,
	"storage.k8s.io/StorageClass": true, "storage.k8s.io/CSIDriver": true, "storage.k8s.io/CSINode": true,
	"storage.k8s.io/VolumeAttachment": true, "storage.k8s.io/VolumeAttributesClass": true,
	"scheduling.k8s.io/PriorityClass": true, "node.k8s.io/RuntimeClass": true,
	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     true,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": true,
	"admissionregistration.k8s.io/MutatingAdmissionPolicy":          true,
	"admissionregistration.k8s.io/MutatingAdmissionPolicyBinding":   true,
	"certificates.k8s.io/CertificateSigningRequest":                 true,
	"certificates.k8s.io/ClusterTrustBundle":                        true,
	"networking.k8s.io/IngressClass":                                true,
	"networking.k8s.io/IPAddress":                                   true,
	"networking.k8s.io/ServiceCIDR":                                 true,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                       true,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":       true,
	"authentication.k8s.io/TokenReview":                             true,
	"authentication.k8s.io/SelfSubjectReview":                       true,
	"authorization.k8s.io/SubjectAccessReview":                      true,
	"authorization.k8s.io/SelfSubjectAccessReview":                  true,
	"authorization.k8s.io/SelfSubjectRulesReview":                   true,
	"internal.apiserver.k8s.io/StorageVersion":                      true,
	"storagemigration.k8s.io/StorageVersionMigration":               true,
	"resource.k8s.io/DeviceClass":                                   true,
	"resource.k8s.io/ResourceSlice":                                 true,
	"resource.k8s.io/DeviceTaintRule":                               true,
}

// builtinStatus lists the built-in kinds with a status subresource.
var builtinStatus = map[string]bool{
	"/Pod": true, "/Service": true, "/ReplicationController": true, "/Namespace": true, "/Node": true,
	"/PersistentVolume": true, "/PersistentVolumeClaim": true, "/ResourceQuota": true,
	"apps/Deployment": true, "apps/ReplicaSet": true, "apps/StatefulSet": true, "apps/DaemonSet": true,
	"batch/Job": true, "batch/CronJob": true, "autoscaling/HorizontalPodAutoscaler": true,
	"policy/PodDisruptionBudget": true, "networking.k8s.io/Ingress": true,
	"networking.k8s.io/ServiceCIDR":                           true,
	"certificates.k8s.io/CertificateSigningRequest":           true,
	"apiextensions.k8s.io/CustomResourceDefinition":           true,
	"apiregistration.k8s.io/APIService":                       true,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                 true,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": true,
	"storage.k8s.io/VolumeAttachment":                         true,
	"resource.k8s.io/ResourceClaim":                           true,
	"storagemigration.k8s.io/StorageVersionMigration":         true,
}

// StatusMeta is what a kind's status strategy (its PrepareForUpdate) does with the
// metadata of a status update's request.
type StatusMeta int

const (
	// StatusMetaFromRequest: the strategy resets only spec, so the request's labels,
	// annotations, finalizers and ownerReferences are written (most built-in kinds:
	// Namespace, Service, ReplicaSet, Job, ...; a status update that drops the last
	// finalizer of a deleting object deletes it).
	StatusMetaFromRequest StatusMeta = iota
	// StatusMetaKept: all metadata stays as stored (custom resources; flowcontrol).
	StatusMetaKept
	// StatusMetaReset: metav1.ResetObjectMetaForStatus keeps the stored labels,
	// annotations, finalizers and ownerReferences (the newer built-in kinds).
	StatusMetaReset
	// StatusMetaKeepsLabels: Deployment keeps the stored labels only.
	StatusMetaKeepsLabels
	// StatusMetaKeepsOwners: Pod keeps the stored ownerReferences only.
	StatusMetaKeepsOwners
)

// builtinStatusMeta lists the built-in kinds whose status strategy keeps some of the
// stored metadata (pkg/registry/*/strategy.go *StatusStrategy PrepareForUpdate);
// the others take it from the request.
var builtinStatusMeta = map[string]StatusMeta{
	"apps/Deployment":               StatusMetaKeepsLabels,
	"/Pod":                          StatusMetaKeepsOwners,
	"networking.k8s.io/ServiceCIDR": StatusMetaReset,
	"storagemigration.k8s.io/StorageVersionMigration":         StatusMetaReset,
	"resource.k8s.io/ResourceClaim":                           StatusMetaReset,
	"storage.k8s.io/VolumeAttachment":                         StatusMetaReset,
	"apiregistration.k8s.io/APIService":                       StatusMetaReset, // labels, annotations, finalizers, ownerReferences by hand
	"flowcontrol.apiserver.k8s.io/FlowSchema":                 StatusMetaKept,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration": StatusMetaKept,
}

// builtinGeneration lists the built-in kinds whose strategy maintains metadata.generation
// (those whose PrepareForCreate sets Generation = 1 in pkg/registry).
var builtinGeneration = map[string]Generation{
	"/Pod": GenerationSpec, "/PodTemplate": GenerationSpec, "/ReplicationController": GenerationSpec,
	"apps/Deployment": GenerationSpecAndAnnotations, "apps/ReplicaSet": GenerationSpec,
	"apps/StatefulSet": GenerationSpec, "apps/DaemonSet": GenerationSpec,
	"batch/Job": GenerationSpec, "batch/CronJob": GenerationSpec,
	"autoscaling/HorizontalPodAutoscaler": GenerationSpec, "policy/PodDisruptionBudget": GenerationSpec,
	"networking.k8s.io/Ingress": GenerationSpec, "networking.k8s.io/IngressClass": GenerationSpec,
	"networking.k8s.io/NetworkPolicy":                               GenerationSpec,
	"discovery.k8s.io/EndpointSlice":                                GenerationContent,
	"scheduling.k8s.io/PriorityClass":                               GenerationContent,
	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     GenerationContent,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   GenerationContent,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        GenerationSpec,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": GenerationSpec,
	"flowcontrol.apiserver.k8s.io/FlowSchema":                       GenerationSpec,
	"flowcontrol.apiserver.k8s.io/PriorityLevelConfiguration":       GenerationSpec,
	"apiextensions.k8s.io/CustomResourceDefinition":                 GenerationSpec,
}

// builtinConditionalOnly lists built-in kinds whose strategy refuses updates without
// a resourceVersion (AllowUnconditionalUpdate false).
var builtinConditionalOnly = map[string]bool{
	"policy/PodDisruptionBudget": true, "coordination.k8s.io/Lease": true,
	"apiextensions.k8s.io/CustomResourceDefinition":                 true,
	"admissionregistration.k8s.io/MutatingWebhookConfiguration":     true,
	"admissionregistration.k8s.io/ValidatingWebhookConfiguration":   true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicy":        true,
	"admissionregistration.k8s.io/ValidatingAdmissionPolicyBinding": true,
	"node.k8s.io/RuntimeClass":                                      true,
	"storage.k8s.io/CSIDriver":                                      true, "storage.k8s.io/CSINode": true,
	"storage.k8s.io/VolumeAttachment": true,
}

// builtinCreateOnUpdate lists the built-in kinds whose strategy allows create on
// update (AllowCreateOnUpdate true in pkg/registry).
var builtinCreateOnUpdate = map[string]bool{
	"rbac.authorization.k8s.io/Role": true, "rbac.authorization.k8s.io/RoleBinding": true,
	"rbac.authorization.k8s.io/ClusterRole": true, "rbac.authorization.k8s.io/ClusterRoleBinding": true,
	"coordination.k8s.io/Lease": true, "/Service": true, "/Endpoints": true, "/Event": true,
	"events.k8s.io/Event": true, "/LimitRange": true, "node.k8s.io/RuntimeClass": true,
}

// builtinKind returns the Kind of a type from k8s.io/api, or false for any other type.
func builtinKind(gvk schema.GroupVersionKind, t reflect.Type) (*Kind, bool) {
	// apiextensions.k8s.io serves CustomResourceDefinitions alone: its
	// ConversionReview is a webhook's message, no resource (discovery
	// offering it made kube-controller-manager's garbage collector wait for
	// a monitor of it that could never sync).
	if !(strings.HasPrefix(t.PkgPath(), "k8s.io/api/") || t.PkgPath() == crdPkgPath && gvk.Kind == "CustomResourceDefinition") || strings.HasSuffix(gvk.Kind, "List") {
		return nil, false
	}
	gk := gvk.Group + "/" + gvk.Kind
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	return &Kind{
		GVK:                 gvk,
		Resource:            plural.Resource,
		Namespaced:          !builtinClusterScoped[gk],
		Status:              builtinStatus[gk],
		StatusMeta:          builtinStatusMeta[gk],
		Generation:          builtinGeneration[gk],
		UnconditionalUpdate: !builtinConditionalOnly[gk],
		CreateOnUpdate:      builtinCreateOnUpdate[gk],
		Strategic:           true,
		goType:              t,
	}, true
}

// customKind returns the Kind of an installed CRD.
func customKind(crd CRD, t reflect.Type) *Kind {
	plural := crd.Plural
	if plural == "" {
		r, _ := meta.UnsafeGuessKindToResource(crd.GVK)
		plural = r.Resource
	}
	return &Kind{
		GVK:        crd.GVK,
		Resource:   plural,
		Namespaced: crd.Namespaced,
		Status:     crd.Status,
		StatusMeta: StatusMetaKept,
		Generation: GenerationContent,
		Custom:     true,
		goType:     t,
		crd:        crd,
	}
}

// kindTable maps GVKs and Go types to kinds. Lookups are by map key only; nothing
// iterates a map.
type kindTable struct {
	byGVK  map[schema.GroupVersionKind]*Kind
	byType map[reflect.Type]*Kind // pointer types of objects, and of their lists
	order  []*Kind                // registration order, for deterministic iteration
	// key is KindsKey's text of order, made at its first use after a change
	// ("" then: an empty table's text is empty too, and cheap); a shared
	// table (the built-ins') has it made before it is shared.
	key string
}

// text is the table's part of KindsKey.
func (t *kindTable) text() string {
	if t.key == "" && len(t.order) > 0 {
		var b strings.Builder
		for _, k := range t.order {
			b.WriteString(k.GVK.Group)
			b.WriteByte('/')
			b.WriteString(k.GVK.Version)
			b.WriteByte('/')
			b.WriteString(k.GVK.Kind)
			b.WriteByte('/')
			b.WriteString(k.Resource)
			if k.Namespaced {
				b.WriteString("/n")
			}
			b.WriteByte('\n')
		}
		t.key = b.String()
	}
	return t.key
}

func newKindTable() *kindTable {
	return &kindTable{byGVK: map[schema.GroupVersionKind]*Kind{}, byType: map[reflect.Type]*Kind{}}
}

func (t *kindTable) add(scheme *runtime.Scheme, k *Kind) {
	t.key = ""
	if _, dup := t.byGVK[k.GVK]; !dup {
		t.order = append(t.order, k)
	}
	t.byGVK[k.GVK] = k
	if k.Unstructured() {
		return // resolved by apiVersion/kind, not by Go type
	}
	t.byType[reflect.PointerTo(k.goType)] = k
	listGVK := k.GVK.GroupVersion().WithKind(k.GVK.Kind + "List")
	if lt, ok := scheme.AllKnownTypes()[listGVK]; ok {
		t.byType[reflect.PointerTo(lt)] = k
	}
}

// builtinTables caches the built-in kinds of each scheme (and size of it): every
// simulated world builds a server, and most share one scheme. The tables are
// immutable once built.
var builtinTables = struct {
	sync.Mutex
	m map[schemeKey]*kindTable
}{m: map[schemeKey]*kindTable{}}

type schemeKey struct {
	scheme *runtime.Scheme
	types  int
}

func builtinTable(scheme *runtime.Scheme) *kindTable {
	known := scheme.AllKnownTypes()
	key := schemeKey{scheme, len(known)}
	builtinTables.Lock()
	defer builtinTables.Unlock()
	if t, ok := builtinTables.m[key]; ok {
		return t
	}
	gvks := make([]schema.GroupVersionKind, 0, len(known))
	for gvk := range known { // lint:order-independent sorted below
		gvks = append(gvks, gvk)
	}
	slices.SortFunc(gvks, func(a, b schema.GroupVersionKind) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Kind, b.Kind))
	})
	t := newKindTable()
	for _, gvk := range gvks {
		if k, ok := builtinKind(gvk, known[gvk]); ok {
			t.add(scheme, k)
		}
	}
	t.text() // before it is shared: never written again
	builtinTables.m[key] = t
	return t
}

// kinds resolves Go types and GVKs to the kinds one server serves: the scheme's
// built-in kinds (shared) and the server's own CRDs.
type kinds struct {
	scheme *runtime.Scheme
	base   *kindTable // shared, never modified
	own    *kindTable // InstallCRD
}

func newKinds(scheme *runtime.Scheme) *kinds {
	return &kinds{scheme: scheme, base: builtinTable(scheme), own: newKindTable()}
}

func (ks *kinds) add(k *Kind) { ks.own.add(ks.scheme, k) }

// crdPkgPath is where CustomResourceDefinition's Go type lives: served as a
// built-in kind when the scheme has it (apiextensions.k8s.io/v1).
const crdPkgPath = "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

// remove stops serving k, a kind installed with add.
func (ks *kinds) remove(k *Kind) {
	t := ks.own
	if t.byGVK[k.GVK] != k {
		return
	}
	delete(t.byGVK, k.GVK)
	t.key = ""
	for i, x := range t.order {
		if x == k {
			t.order = append(t.order[:i:i], t.order[i+1:]...)
			break
		}
	}
	if !k.Unstructured() {
		delete(t.byType, reflect.PointerTo(k.goType))
		listGVK := k.GVK.GroupVersion().WithKind(k.GVK.Kind + "List")
		if lt, ok := ks.scheme.AllKnownTypes()[listGVK]; ok {
			delete(t.byType, reflect.PointerTo(lt))
		}
	}
}

func (ks *kinds) byGVK(gvk schema.GroupVersionKind) (*Kind, bool) {
	if k, ok := ks.own.byGVK[gvk]; ok {
		return k, true
	}
	k, ok := ks.base.byGVK[gvk]
	return k, ok
}

func (ks *kinds) byType(t reflect.Type) (*Kind, bool) {
	if k, ok := ks.own.byType[t]; ok {
		return k, true
	}
	k, ok := ks.base.byType[t]
	return k, ok
}

// key is a text that identifies order: the same for two servers that serve
// the same kinds (group, version, kind, resource and scope), in the same
// order. The built-ins' part is made once per shared table, the CRDs' once
// per change.
func (ks *kinds) key() string { return ks.base.key + ks.own.text() }

// order is every served kind: built-ins in GVK order, then CRDs as installed.
func (ks *kinds) order() []*Kind {
	return append(append([]*Kind(nil), ks.base.order...), ks.own.order...)
}

// forObject returns the served kind of a typed object or list, or an error a client
// sees for a kind that is not served.
func (ks *kinds) forObject(obj runtime.Object) (*Kind, error) {
	if isUnstructured(obj) {
		return ks.forUnstructured(obj)
	}
	if k, ok := ks.byType(reflect.TypeOf(obj)); ok {
		return k, nil
	}
	gvks, _, err := ks.scheme.ObjectKinds(obj)
	if err != nil {
		return nil, err // runtime.notRegisteredErr, as controller-runtime's client returns it
	}
	gvk := gvks[0]
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	return nil, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
}

func (ks *kinds) new(k *Kind) client.Object { return newObjectOf(k) }
