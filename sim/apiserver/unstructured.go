package apiserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
)

// Custom resources whose kind has no Go type in the scheme (only a CRD) are
// stored as *unstructured.Unstructured, as kube-apiserver's custom resource
// handler stores every custom resource: JSON with apiVersion and kind. This file
// holds what differs for them; the verbs are the same code.

var unstructuredType = reflect.TypeOf(unstructured.Unstructured{})

// Unstructured reports whether the kind's objects are *unstructured.Unstructured:
// a custom resource installed without a Go type in the scheme. Requests for it take
// *unstructured.Unstructured and *unstructured.UnstructuredList.
func (k *Kind) Unstructured() bool { return k.goType == unstructuredType }

// isUnstructured reports whether obj is an Unstructured object or list.
func isUnstructured(obj runtime.Object) bool {
	switch obj.(type) {
	case *unstructured.Unstructured, *unstructured.UnstructuredList:
		return true
	}
	return false
}

// forUnstructured resolves the kind of an Unstructured object or list from its
// apiVersion/kind (a list's kind is Foo or FooList). Only kinds without a Go type
// are served in this form: the client converts the others to their Go type.
func (ks *kinds) forUnstructured(obj runtime.Object) (*Kind, error) {
	gvk, err := apiutil.GVKForObject(obj, ks.scheme)
	if err != nil {
		return nil, err // runtime's MissingKind / MissingVersion
	}
	if _, list := obj.(*unstructured.UnstructuredList); list {
		gvk.Kind = trimList(gvk.Kind)
	}
	k, ok := ks.byGVK(gvk)
	if !ok {
		return nil, noKindMatch(gvk)
	}
	if !k.Unstructured() {
		return nil, fmt.Errorf("apiserver: %v has a Go type (%v): the model serves it typed", gvk, k.goType)
	}
	return k, nil
}

// stamp sets the apiVersion/kind a stored object carries: none for a Go type (the
// typed decoder clears them), the kind's for an unstructured object (the JSON a
// real server stores and answers has them).
func stamp(k *Kind, obj runtime.Object) {
	if k.Unstructured() {
		obj.GetObjectKind().SetGroupVersionKind(k.GVK)
		return
	}
	obj.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
}

// wireForm gives an unstructured request body what sending it does: the client
// encodes it as JSON and the server decodes that (integers int64, other numbers
// float64, Go values of other types as their JSON), then the custom resource
// handler's schemaCoercingDecoder (apiextensions-apiserver
// pkg/apiserver/customresource_handler.go, unstructuredSchemaCoercer.apply) reads
// the ObjectMeta (a malformed field is a decoding error), prunes unknown fields
// and non-nullable nulls by the schema and coerces embedded metadata. A body that
// does not decode is the handler's 400.
// u is not modified (it may hold values DeepCopy refuses, such as an int, which
// encode as JSON all the same); the result replaces it in *out.
func wireForm(k *Kind, u *unstructured.Unstructured, out **unstructured.Unstructured) error {
	b, err := json.Marshal(u.Object)
	if err != nil {
		return cannotHandle(k, err)
	}
	fresh := &unstructured.Unstructured{}
	if err := fresh.UnmarshalJSON(b); err != nil {
		return cannotHandle(k, err)
	}
	var structural *structuralschema.Structural
	if k.schema != nil {
		structural = k.schema.structural
	}
	objectMeta, found, _, err := schemaobjectmeta.GetObjectMetaWithOptions(fresh.Object, schemaobjectmeta.ObjectMetaOptions{})
	if err != nil {
		return cannotHandle(k, err)
	}
	if structural != nil {
		structuralpruning.Prune(fresh.Object, structural, true)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(fresh.Object, structural)
		if err, _ := schemaobjectmeta.CoerceWithOptions(nil, fresh.Object, structural, false, schemaobjectmeta.CoerceOptions{}); err != nil {
			return cannotHandle(k, err)
		}
	}
	if found {
		if err := schemaobjectmeta.SetObjectMeta(fresh.Object, objectMeta); err != nil {
			return cannotHandle(k, err)
		}
	}
	stamp(k, fresh)
	*out = fresh
	return nil
}

// bodyCopy is the server's own copy of a request body: for an unstructured
// object, its wire form.
func bodyCopy(k *Kind, obj client.Object) (client.Object, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		var out *unstructured.Unstructured
		if err := wireForm(k, u, &out); err != nil {
			return nil, err
		}
		return out, nil
	}
	return obj.DeepCopyObject().(client.Object), nil
}

// cannotHandle is the 400 of a body the server cannot decode into the kind.
func cannotHandle(k *Kind, err error) error {
	return apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
		k.GVK.Kind, k.GVK.Version, k.GVK.Kind, err))
}

// unstructuredStatus is the part of the custom resource strategies
// (apiextensions-apiserver pkg/registry/customresource/strategy.go and
// status_strategy.go) that moves .status: PrepareForCreate drops it,
// PrepareForUpdate keeps the stored one, the status strategy takes only it.
// setUnstructuredStatus copies from's status into to (removing to's when from
// has none).
func setUnstructuredStatus(to, from *unstructured.Unstructured) {
	if st, ok := from.Object["status"]; ok {
		to.Object["status"] = runtime.DeepCopyJSONValue(st)
	} else {
		delete(to.Object, "status")
	}
}

// diffUnstructured is diff for unstructured objects: every top-level field but
// apiVersion, kind, metadata and status is content (the strategy compares the
// object without metadata, and without status when the subresource is on).
func diffUnstructured(obj, old *unstructured.Unstructured) change {
	c := change{meta: !metaEqual(obj, old)}
	seen := func(key string, a any, aok bool, b any, bok bool) {
		switch key {
		case "apiVersion", "kind", "metadata":
			return
		}
		same := aok == bok && equality.Semantic.DeepEqual(a, b)
		if same {
			return
		}
		if key == "status" {
			c.status = true
		} else {
			c.content = true
		}
	}
	for key, a := range obj.Object { // lint:order-independent only flags are set
		b, bok := old.Object[key]
		seen(key, a, true, b, bok)
	}
	for key, b := range old.Object { // lint:order-independent only flags are set
		if _, ok := obj.Object[key]; !ok {
			seen(key, nil, false, b, true)
		}
	}
	return c
}

// newObjectOf returns an empty object of the kind: its Go type, or an Unstructured
// with the kind's apiVersion/kind.
func newObjectOf(k *Kind) client.Object {
	if k.Unstructured() {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(k.GVK)
		return u
	}
	return reflect.New(k.goType).Interface().(client.Object)
}

func trimList(kind string) string { return strings.TrimSuffix(kind, "List") }

// noKindMatch is the RESTMapper's error for a kind no CRD serves.
func noKindMatch(gvk schema.GroupVersionKind) error {
	return &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
}
