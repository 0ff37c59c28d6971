package apiserver

import (
	"maps"
	"reflect"
	"slices"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// This file holds the parts of the registry strategies (pkg/registry/*/strategy.go in
// k8s.io/kubernetes, pkg/registry/customresource in apiextensions-apiserver) that the
// model reproduces generically: status handling, generation, metadata validation.

// statusField returns the addressable Status field of obj, if its type has one.
func statusField(obj client.Object) (reflect.Value, bool) {
	v := reflect.ValueOf(obj).Elem().FieldByName("Status")
	return v, v.IsValid()
}

// setStatus copies from's status into to.
func setStatus(to, from client.Object) {
	if u, ok := to.(*unstructured.Unstructured); ok {
		setUnstructuredStatus(u, from.(*unstructured.Unstructured))
		return
	}
	if t, ok := statusField(to); ok {
		f, _ := statusField(from)
		t.Set(f)
	}
}

// prepareForCreate is PrepareForCreate: kinds with a status subresource start with
// an empty status; generation starts at 1 where the strategy tracks it.
func prepareForCreate(k *Kind, obj client.Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok && k.Status {
		delete(u.Object, "status")
	} else if k.Status {
		if st, ok := statusField(obj); ok {
			st.Set(reflect.Zero(st.Type()))
		}
	}
	if k.Generation != GenerationNone {
		obj.SetGeneration(1)
	}
	if ns, ok := obj.(*corev1.Namespace); ok {
		// pkg/registry/core/namespace/strategy.go: phase Active, the kubernetes
		// finalizer; defaulting adds the kubernetes.io/metadata.name label.
		ns.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
		has := false
		for _, f := range ns.Spec.Finalizers {
			has = has || f == corev1.FinalizerKubernetes
		}
		if !has {
			ns.Spec.Finalizers = append(ns.Spec.Finalizers, corev1.FinalizerKubernetes)
		}
		setNamespaceNameLabel(ns)
	}
	defaultRBAC(obj)
}

// mergeStringData moves a Secret's stringData into data, as the conversion to the
// internal type does on every write (pkg/apis/core/v1/conversion.go
// Convert_v1_Secret_To_core_Secret).
func mergeStringData(obj client.Object) {
	sec, ok := obj.(*corev1.Secret)
	if !ok || len(sec.StringData) == 0 {
		return
	}
	if sec.Data == nil {
		sec.Data = map[string][]byte{}
	}
	for k, v := range sec.StringData { // lint:order-independent each key is set independently
		sec.Data[k] = []byte(v)
	}
	sec.StringData = nil
}

func setNamespaceNameLabel(ns *corev1.Namespace) {
	if ns.Labels == nil {
		ns.Labels = map[string]string{}
	}
	ns.Labels[corev1.LabelMetadataName] = ns.Name
}

// prepareForUpdate is PrepareForUpdate of the main resource (subresource "") or of
// the status/finalize subresource. It returns the object to store: for a
// subresource, the stored object with only the subresource's part taken from in.
func prepareForUpdate(k *Kind, subresource string, in, old client.Object) client.Object {
	switch subresource {
	case "status":
		return prepareForStatusUpdate(k, in, old)
	case "finalize":
		// namespaceFinalizeStrategy: everything but status comes from the request.
		in.(*corev1.Namespace).Status = old.(*corev1.Namespace).Status
		return in
	}
	if k.Status {
		setStatus(in, old)
	}
	mergeStringData(in)
	defaultRBAC(in)
	if ns, ok := in.(*corev1.Namespace); ok {
		ns.Spec.Finalizers = old.(*corev1.Namespace).Spec.Finalizers
		ns.Status = old.(*corev1.Namespace).Status
		setNamespaceNameLabel(ns)
	}
	return in
}

// prepareForStatusUpdate is a status strategy's PrepareForUpdate: the stored spec
// (every field but metadata and status) with the request's status, and the
// request's metadata but what the kind's strategy keeps (Kind.StatusMeta). A custom
// resource keeps everything but status (customresource statusStrategy).
func prepareForStatusUpdate(k *Kind, in, old client.Object) client.Object {
	if k.StatusMeta == StatusMetaKept {
		out := old.DeepCopyObject().(client.Object)
		setStatus(out, in)
		out.SetResourceVersion(in.GetResourceVersion())
		out.SetUID(in.GetUID())
		return out
	}
	old = old.DeepCopyObject().(client.Object) // the stored snapshot is shared
	a, b := reflect.ValueOf(in).Elem(), reflect.ValueOf(old).Elem()
	for i := 0; i < a.NumField(); i++ {
		switch a.Type().Field(i).Name {
		case "TypeMeta", "ObjectMeta", "Status":
		default:
			a.Field(i).Set(b.Field(i))
		}
	}
	switch k.StatusMeta {
	case StatusMetaReset:
		in.SetLabels(old.GetLabels())
		in.SetAnnotations(old.GetAnnotations())
		in.SetFinalizers(old.GetFinalizers())
		in.SetOwnerReferences(old.GetOwnerReferences())
	case StatusMetaKeepsLabels:
		in.SetLabels(old.GetLabels())
	case StatusMetaKeepsOwners:
		in.SetOwnerReferences(old.GetOwnerReferences())
	}
	return in
}

// change says which parts of an object an update changes.
type change struct {
	meta    bool // ObjectMeta, resourceVersion aside
	content bool // every top-level field but TypeMeta, ObjectMeta and Status (spec, data, ...)
	status  bool
}

func (c change) any() bool { return c.meta || c.content || c.status }

// diff compares obj with old field by field: equality.Semantic for the content, a
// hand-written comparison for ObjectMeta (the hot path of every update).
func diff(obj, old client.Object) change {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return diffUnstructured(u, old.(*unstructured.Unstructured))
	}
	var c change
	c.meta = !metaEqual(obj, old)
	a, b := reflect.ValueOf(obj).Elem(), reflect.ValueOf(old).Elem()
	t := a.Type()
	for i := 0; i < t.NumField(); i++ {
		name := t.Field(i).Name
		if name == "TypeMeta" || name == "ObjectMeta" {
			continue
		}
		if (name == "Status" && c.status) || (name != "Status" && c.content) {
			continue
		}
		if !equality.Semantic.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			if name == "Status" {
				c.status = true
			} else {
				c.content = true
			}
		}
	}
	return c
}

// bumpGeneration applies the kind's generation policy to an update.
func bumpGeneration(k *Kind, obj, old client.Object, c change) {
	obj.SetGeneration(old.GetGeneration())
	changed := false
	switch k.Generation {
	case GenerationNone:
		return
	case GenerationSpec:
		changed = c.content
	case GenerationSpecAndAnnotations:
		changed = c.content || !mapsEqual(obj.GetAnnotations(), old.GetAnnotations())
	case GenerationContent:
		changed = c.content || (c.status && !k.Status)
	}
	if changed {
		obj.SetGeneration(old.GetGeneration() + 1)
	}
}

// metaEqual is equality.Semantic.DeepEqual of two ObjectMetas, resourceVersion aside:
// nil and empty maps and slices are equal, times compare as instants.
func metaEqual(a, b client.Object) bool {
	return a.GetName() == b.GetName() && a.GetGenerateName() == b.GetGenerateName() &&
		a.GetNamespace() == b.GetNamespace() && a.GetUID() == b.GetUID() &&
		a.GetGeneration() == b.GetGeneration() && a.GetSelfLink() == b.GetSelfLink() &&
		a.GetCreationTimestamp().Time.Equal(b.GetCreationTimestamp().Time) &&
		timePtrEqual(a.GetDeletionTimestamp(), b.GetDeletionTimestamp()) &&
		int64PtrEqual(a.GetDeletionGracePeriodSeconds(), b.GetDeletionGracePeriodSeconds()) &&
		mapsEqual(a.GetLabels(), b.GetLabels()) && mapsEqual(a.GetAnnotations(), b.GetAnnotations()) &&
		slices.Equal(a.GetFinalizers(), b.GetFinalizers()) &&
		ownerRefsEqual(a.GetOwnerReferences(), b.GetOwnerReferences()) &&
		equality.Semantic.DeepEqual(a.GetManagedFields(), b.GetManagedFields())
}

func timePtrEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

func int64PtrEqual(a, b *int64) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

func mapsEqual(a, b map[string]string) bool {
	return len(a) == len(b) && maps.Equal(a, b)
}

func ownerRefsEqual(a, b []metav1.OwnerReference) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.APIVersion != y.APIVersion || x.Kind != y.Kind || x.Name != y.Name || x.UID != y.UID ||
			!boolPtrEqual(x.Controller, y.Controller) || !boolPtrEqual(x.BlockOwnerDeletion, y.BlockOwnerDeletion) {
			return false
		}
	}
	return true
}

func boolPtrEqual(a, b *bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// nameValidator is the name rule of the kind's strategy.
func nameValidator(k *Kind) validation.ValidateNameFunc {
	switch k.GVK.GroupKind() {
	case schema.GroupKind{Kind: "Namespace"}:
		return validation.NameIsDNSLabel
	case schema.GroupKind{Kind: "Service"}:
		return validation.NameIsDNS1035Label
	}
	if k.GVK.Group == "rbac.authorization.k8s.io" {
		// pkg/apis/rbac/validation ValidateRBACName: any valid path segment, so
		// names such as "configsync.gke.io:ns-reconciler" are allowed.
		return path.ValidatePathSegmentName
	}
	return validation.NameIsDNSSubdomain
}

func invalid(k *Kind, name string, errs field.ErrorList) error {
	return apierrors.NewInvalid(k.GVK.GroupKind(), name, errs)
}

// validateCreate is the metadata part of ValidateCreate, and the type validation of
// the few kinds the model validates.
func validateCreate(k *Kind, obj client.Object) error {
	errs := validation.ValidateObjectMetaAccessor(obj, k.Namespaced, nameValidator(k), field.NewPath("metadata"))
	errs = append(errs, validateKind(obj)...)
	if len(errs) > 0 {
		return invalid(k, obj.GetName(), errs)
	}
	return nil
}

// validateUpdate is the metadata part of ValidateUpdate. obj comes from
// rest.BeforeUpdate, so name, namespace, resourceVersion, generation, timestamps and
// managedFields are already those validation accepts; the upstream validation runs
// only when a field it can refuse has changed (the messages are upstream's).
func validateUpdate(k *Kind, obj, old client.Object) error {
	if obj.GetUID() == old.GetUID() &&
		int64PtrEqual(obj.GetDeletionGracePeriodSeconds(), old.GetDeletionGracePeriodSeconds()) &&
		mapsEqual(obj.GetLabels(), old.GetLabels()) && mapsEqual(obj.GetAnnotations(), old.GetAnnotations()) &&
		slices.Equal(obj.GetFinalizers(), old.GetFinalizers()) &&
		ownerRefsEqual(obj.GetOwnerReferences(), old.GetOwnerReferences()) {
		if errs := append(validateKind(obj), validateKindUpdate(obj, old)...); len(errs) > 0 {
			return invalid(k, obj.GetName(), errs)
		}
		return nil
	}
	path := field.NewPath("metadata")
	errs := validation.ValidateObjectMetaAccessorUpdate(obj, old, path)
	if k.Custom {
		// rest.BeforeUpdate's common validation and the custom resource validator
		// both validate the metadata update: a real server reports each cause twice
		// (the message, an aggregate, lists it once).
		errs = append(append(validation.ValidateFinalizers(obj.GetFinalizers(), path.Child("finalizers")), errs...), errs...)
	} else {
		errs = append(errs, validation.ValidateFinalizers(obj.GetFinalizers(), path.Child("finalizers"))...)
	}
	errs = append(errs, validateKind(obj)...)
	errs = append(errs, validateKindUpdate(obj, old)...)
	if len(errs) > 0 {
		return invalid(k, obj.GetName(), errs)
	}
	return nil
}

// validateKindUpdate is the update validation of bindings: RoleBinding roleRefs
// are immutable.
func validateKindUpdate(obj, old client.Object) field.ErrorList {
	var errs field.ErrorList
	switch o := obj.(type) {
	case *rbacv1.RoleBinding:
		errs = append(errs, roleRefImmutable(o.RoleRef, old.(*rbacv1.RoleBinding).RoleRef)...)
	case *rbacv1.ClusterRoleBinding:
		errs = append(errs, roleRefImmutable(o.RoleRef, old.(*rbacv1.ClusterRoleBinding).RoleRef)...)
	}
	return errs
}

// internalRoleRef prints as the internal rbac.RoleRef does in a real server's
// message (no JSON tags: capitalised keys).
type internalRoleRef struct{ APIGroup, Kind, Name string }

// roleRefImmutable is pkg/apis/rbac/validation ValidateRoleBindingUpdate:
// ValidateImmutableField on the internal roleRef.
func roleRefImmutable(ref, old rbacv1.RoleRef) field.ErrorList {
	if ref == old {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("roleRef"), internalRoleRef{ref.APIGroup, ref.Kind, ref.Name}, validation.FieldImmutableErrorMsg)}
}

// defaultRBAC applies the v1 defaults of bindings (pkg/apis/rbac/v1/defaults.go):
// roleRef.apiGroup and the apiGroup of User and Group subjects.
func defaultRBAC(obj client.Object) {
	var ref *rbacv1.RoleRef
	var subjects []rbacv1.Subject
	switch o := obj.(type) {
	case *rbacv1.RoleBinding:
		ref, subjects = &o.RoleRef, o.Subjects
	case *rbacv1.ClusterRoleBinding:
		ref, subjects = &o.RoleRef, o.Subjects
	default:
		return
	}
	if ref.APIGroup == "" {
		ref.APIGroup = rbacv1.GroupName
	}
	for i := range subjects {
		if subjects[i].APIGroup == "" && (subjects[i].Kind == rbacv1.UserKind || subjects[i].Kind == rbacv1.GroupKind) {
			subjects[i].APIGroup = rbacv1.GroupName
		}
	}
}

// validateKind is the spec validation of bindings (pkg/apis/rbac/validation
// ValidateRoleBinding, ValidateClusterRoleBinding, ValidateRoleBindingSubject).
func validateKind(obj client.Object) field.ErrorList {
	var ref rbacv1.RoleRef
	var subjects []rbacv1.Subject
	kinds := []string{"Role", "ClusterRole"}
	namespaced := true
	switch o := obj.(type) {
	case *rbacv1.RoleBinding:
		ref, subjects = o.RoleRef, o.Subjects
	case *rbacv1.ClusterRoleBinding:
		ref, subjects, kinds, namespaced = o.RoleRef, o.Subjects, []string{"ClusterRole"}, false
	default:
		return nil
	}
	var errs field.ErrorList
	rr := field.NewPath("roleRef")
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(rr.Child("apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	if !slices.Contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(rr.Child("kind"), ref.Kind, kinds))
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(rr.Child("name"), ""))
	} else {
		for _, msg := range path.ValidatePathSegmentName(ref.Name, false) {
			errs = append(errs, field.Invalid(rr.Child("name"), ref.Name, msg))
		}
	}
	sp := field.NewPath("subjects")
	for i, sub := range subjects {
		p := sp.Index(i)
		if sub.Name == "" {
			errs = append(errs, field.Required(p.Child("name"), ""))
		}
		switch sub.Kind {
		case rbacv1.ServiceAccountKind:
			if sub.Name != "" {
				for _, msg := range validation.NameIsDNSSubdomain(sub.Name, false) {
					errs = append(errs, field.Invalid(p.Child("name"), sub.Name, msg))
				}
			}
			if sub.APIGroup != "" {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), sub.APIGroup, []string{""}))
			}
			if !namespaced && sub.Namespace == "" {
				errs = append(errs, field.Required(p.Child("namespace"), ""))
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if sub.APIGroup != rbacv1.GroupName {
				errs = append(errs, field.NotSupported(p.Child("apiGroup"), sub.APIGroup, []string{rbacv1.GroupName}))
			}
		default:
			errs = append(errs, field.NotSupported(p.Child("kind"), sub.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
		}
	}
	return errs
}
