package forms

import (
	"encoding/json"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	kjson "sigs.k8s.io/json"
)

// Form is the shape an object of a kind takes.
type Form int

const (
	// Typed is the kind's Go type from the scheme.
	Typed Form = iota
	// Unstructured is *unstructured.Unstructured or *unstructured.UnstructuredList.
	Unstructured
	// Metadata is *metav1.PartialObjectMetadata or *metav1.PartialObjectMetadataList.
	Metadata
)

func (f Form) String() string {
	switch f {
	case Unstructured:
		return "unstructured"
	case Metadata:
		return "metadata"
	}
	return "typed"
}

// Of returns the form of obj.
func Of(obj runtime.Object) Form {
	switch obj.(type) {
	case *unstructured.Unstructured, *unstructured.UnstructuredList:
		return Unstructured
	case *metav1.PartialObjectMetadata, *metav1.PartialObjectMetadataList:
		return Metadata
	}
	return Typed
}

// GVK resolves the GroupVersionKind of obj as controller-runtime's client does: the
// scheme's for a typed object, apiVersion/kind for the other forms (runtime's
// MissingKind/MissingVersion errors when one is empty).
func GVK(obj runtime.Object, scheme *runtime.Scheme) (schema.GroupVersionKind, error) {
	return apiutil.GVKForObject(obj, scheme)
}

// ItemGVK is the kind a list of gvk lists: FooList lists Foo, and a list whose kind
// is Foo lists Foo too (controller-runtime trims the suffix, and accepts both).
func ItemGVK(gvk schema.GroupVersionKind) schema.GroupVersionKind {
	gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	return gvk
}

// New returns an empty typed object of gvk, TypeMeta empty.
func New(scheme *runtime.Scheme, gvk schema.GroupVersionKind) (client.Object, error) {
	o, err := scheme.New(gvk)
	if err != nil {
		return nil, err
	}
	co, ok := o.(client.Object)
	if !ok {
		return nil, fmt.Errorf("forms: %T (%v) is not a client.Object", o, gvk)
	}
	return co, nil
}

// NewList returns an empty typed list of item kind gvk (the scheme's <Kind>List).
func NewList(scheme *runtime.Scheme, gvk schema.GroupVersionKind) (client.ObjectList, error) {
	listGVK := gvk.GroupVersion().WithKind(gvk.Kind + "List")
	o, err := scheme.New(listGVK)
	if err != nil {
		return nil, err
	}
	l, ok := o.(client.ObjectList)
	if !ok {
		return nil, fmt.Errorf("forms: %T (%v) is not a client.ObjectList", o, listGVK)
	}
	return l, nil
}

// ToTyped converts a form object (Unstructured or PartialObjectMetadata) into a new
// typed object of its kind, with an empty TypeMeta. A PartialObjectMetadata gives
// only the ObjectMeta.
func ToTyped(scheme *runtime.Scheme, obj client.Object) (client.Object, error) {
	gvk, err := GVK(obj, scheme)
	if err != nil {
		return nil, err
	}
	typed, err := New(scheme, gvk)
	if err != nil {
		return nil, err
	}
	var content map[string]any
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		content = o.Object
	case *metav1.PartialObjectMetadata:
		content, err = runtime.DefaultUnstructuredConverter.ToUnstructured(&metav1.PartialObjectMetadata{ObjectMeta: o.ObjectMeta})
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("forms: %T is not an unstructured or metadata-only object", obj)
	}
	// As the apiserver decodes a request body into the Go type: its JSON, read by
	// the serializer's case-sensitive decoder (k8s.io/apimachinery
	// pkg/runtime/serializer/json), whose errors a 400 quotes.
	b, err := json.Marshal(content)
	if err != nil {
		return nil, err
	}
	if err := kjson.UnmarshalCaseSensitivePreserveInts(b, typed); err != nil {
		return nil, err
	}
	typed.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
	return typed, nil
}

// Into writes a deep copy of typed into out (Unstructured or PartialObjectMetadata),
// with apiVersion/kind set to gvk. typed may be an Unstructured itself: the native
// object of a kind with no Go type.
func Into(typed runtime.Object, out client.Object, gvk schema.GroupVersionKind) error {
	switch o := out.(type) {
	case *unstructured.Unstructured:
		var m map[string]any
		if u, ok := typed.(*unstructured.Unstructured); ok {
			m = runtime.DeepCopyJSON(u.Object) // a kind whose native form is Unstructured
		} else {
			var err error
			if m, err = runtime.DefaultUnstructuredConverter.ToUnstructured(typed); err != nil {
				return err
			}
		}
		o.SetUnstructuredContent(m)
		o.SetGroupVersionKind(gvk)
	case *metav1.PartialObjectMetadata:
		acc, err := meta.Accessor(typed)
		if err != nil {
			return err
		}
		*o = *meta.AsPartialObjectMetadata(acc).DeepCopy()
		o.SetGroupVersionKind(gvk)
	default:
		return fmt.Errorf("forms: %T is not an unstructured or metadata-only object", out)
	}
	return nil
}

// ListInto writes the items of typed into out (UnstructuredList or
// PartialObjectMetadataList), each with apiVersion/kind set to itemGVK, and the list
// metadata. The list's own apiVersion/kind stay as out has them.
func ListInto(typed client.ObjectList, out client.ObjectList, itemGVK schema.GroupVersionKind) error {
	items, err := meta.ExtractList(typed)
	if err != nil {
		return err
	}
	switch o := out.(type) {
	case *unstructured.UnstructuredList:
		list := make([]unstructured.Unstructured, len(items))
		for i, item := range items {
			if err := Into(item, &list[i], itemGVK); err != nil {
				return err
			}
		}
		apiVersion, kind := o.GetAPIVersion(), o.GetKind()
		o.Object = map[string]any{}
		o.SetAPIVersion(apiVersion)
		o.SetKind(kind)
		o.Items = list
	case *metav1.PartialObjectMetadataList:
		list := make([]metav1.PartialObjectMetadata, len(items))
		for i, item := range items {
			if err := Into(item, &list[i], itemGVK); err != nil {
				return err
			}
		}
		o.ListMeta = metav1.ListMeta{}
		o.Items = list
	default:
		return fmt.Errorf("forms: %T is not an unstructured or metadata-only list", out)
	}
	if rv := typed.GetResourceVersion(); rv != "" {
		out.SetResourceVersion(rv)
	}
	if c := typed.GetContinue(); c != "" {
		out.SetContinue(c)
	}
	if n := typed.GetRemainingItemCount(); n != nil {
		out.SetRemainingItemCount(n)
	}
	return nil
}

// A kind's native form is the form the apiserver model stores and serves it in:
// its Go type when the scheme has one, else Unstructured (a custom resource that
// only a CRD defines, as kube-apiserver's custom resource handler serves every
// custom resource). The other forms are converted from it.

// Native is the native form of gvk: Typed when the scheme has its Go type, else
// Unstructured.
func Native(scheme *runtime.Scheme, gvk schema.GroupVersionKind) Form {
	if scheme.Recognizes(gvk) {
		return Typed
	}
	return Unstructured
}

// IsNative reports whether obj (an object or a list) is in its kind's native
// form. An Unstructured or PartialObjectMetadata whose kind cannot be resolved is
// not (the caller's form path reports the error).
func IsNative(scheme *runtime.Scheme, obj runtime.Object) bool {
	f := Of(obj)
	switch f {
	case Typed:
		return true
	case Metadata:
		return false
	}
	gvk, err := GVK(obj, scheme)
	if err != nil {
		return false
	}
	if meta.IsListType(obj) {
		gvk = ItemGVK(gvk)
	}
	return Native(scheme, gvk) == Unstructured
}

// NewNative returns an empty object of gvk in its native form: the Go type (with
// an empty TypeMeta), or an Unstructured naming gvk.
func NewNative(scheme *runtime.Scheme, gvk schema.GroupVersionKind) (client.Object, error) {
	if Native(scheme, gvk) == Typed {
		return New(scheme, gvk)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	return u, nil
}

// NewNativeList returns an empty list of item kind gvk in its native form: the
// scheme's <Kind>List, or an UnstructuredList naming <Kind>List.
func NewNativeList(scheme *runtime.Scheme, gvk schema.GroupVersionKind) (client.ObjectList, error) {
	if Native(scheme, gvk) == Typed {
		return NewList(scheme, gvk)
	}
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
	return l, nil
}

// ToNative converts a form object into a new object of its kind's native form:
// ToTyped for a kind with a Go type; for a kind without one, an Unstructured
// (a deep copy of an Unstructured, the metadata of a PartialObjectMetadata).
func ToNative(scheme *runtime.Scheme, obj client.Object) (client.Object, error) {
	gvk, err := GVK(obj, scheme)
	if err != nil {
		return nil, err
	}
	if Native(scheme, gvk) == Typed {
		return ToTyped(scheme, obj)
	}
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		return o.DeepCopy(), nil
	case *metav1.PartialObjectMetadata:
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&metav1.PartialObjectMetadata{ObjectMeta: o.ObjectMeta})
		if err != nil {
			return nil, err
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetGroupVersionKind(gvk)
		return u, nil
	}
	return nil, fmt.Errorf("forms: %T is not an unstructured or metadata-only object", obj)
}
