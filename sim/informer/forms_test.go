package informer_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Unstructured and PartialObjectMetadata reads are served by the typed informer of
// their kind: the same objects, converted, with the kind's apiVersion/kind.
func TestFormReadsAreAViewOfTheTypedInformer(t *testing.T) {
	w := newWorld(t, nil)
	w.src.create(configMap("ns", "x", map[string]string{"app": "web"}, map[string]string{"k": "v"}))
	key := client.ObjectKey{Namespace: "ns", Name: "x"}

	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(configMapGVK)
	if err := w.cache.Get(ctx, key, u); err != nil {
		t.Fatal(err)
	}
	if v, _, _ := unstructured.NestedString(u.Object, "data", "k"); v != "v" || u.GetKind() != "ConfigMap" || u.GetAPIVersion() != "v1" || u.GetResourceVersion() != "1" {
		t.Errorf("unstructured Get: %v", u.Object)
	}
	unstructured.SetNestedField(u.Object, "changed", "data", "k")
	var cm corev1.ConfigMap
	if err := w.cache.Get(ctx, key, &cm); err != nil || cm.Data["k"] != "v" {
		t.Errorf("the view is a copy: %v %v", cm.Data, err)
	}

	p := &metav1.PartialObjectMetadata{}
	p.SetGroupVersionKind(configMapGVK)
	if err := w.cache.Get(ctx, key, p); err != nil {
		t.Fatal(err)
	}
	if p.Labels["app"] != "web" || p.Kind != "ConfigMap" || p.ResourceVersion != "1" {
		t.Errorf("metadata Get: %+v", p)
	}

	if w.src.lists != 1 || len(w.cache.Informers()) != 1 {
		t.Errorf("every form shares one informer: %d lists, %d informers", w.src.lists, len(w.cache.Informers()))
	}
}

// A missing object is the typed read's NotFound; a form without apiVersion/kind is
// controller-runtime's error.
func TestFormReadErrors(t *testing.T) {
	w := newWorld(t, nil)
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(configMapGVK)
	err := w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, u)
	if !apierrors.IsNotFound(err) || err.Error() != `ConfigMap "x" not found` {
		t.Errorf("missing: %v", err)
	}
	err = w.cache.Get(ctx, client.ObjectKey{Namespace: "ns", Name: "x"}, &unstructured.Unstructured{})
	if err == nil || err.Error() != "Object 'Kind' is missing in 'unstructured object has no kind'" {
		t.Errorf("no kind: %v", err)
	}
	err = w.cache.List(ctx, &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{Kind: "ConfigMapList"}})
	if err == nil || err.Error() != "Object 'apiVersion' is missing in 'unstructured object has no version'" {
		t.Errorf("no version: %v", err)
	}
}

// Lists take the typed list's options (namespace, labels, indexed fields); items
// carry the item kind; the list keeps the caller's apiVersion/kind (Foo or FooList)
// and gets the cache's list metadata.
func TestFormLists(t *testing.T) {
	w := newWorld(t, nil)
	w.src.create(configMap("a", "x", map[string]string{"app": "web"}, map[string]string{"owner": "o1"}))
	w.src.create(configMap("a", "y", nil, map[string]string{"owner": "o2"}))
	w.src.create(configMap("b", "z", map[string]string{"app": "web"}, nil))

	ul := &unstructured.UnstructuredList{}
	ul.SetAPIVersion("v1")
	ul.SetKind("ConfigMapList")
	if err := w.cache.List(ctx, ul, client.MatchingLabels{"app": "web"}); err != nil {
		t.Fatal(err)
	}
	if len(ul.Items) != 2 || ul.Items[0].GetName() != "x" || ul.Items[1].GetName() != "z" || ul.Items[0].GetKind() != "ConfigMap" {
		t.Errorf("label selector: %v", ul.Items)
	}
	if ul.GetKind() != "ConfigMapList" || ul.GetContinue() != "continue-not-supported" {
		t.Errorf("list: %v", ul.Object)
	}

	pl := &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
	if err := w.cache.List(ctx, pl, client.InNamespace("a")); err != nil {
		t.Fatal(err)
	}
	if len(pl.Items) != 2 || pl.Items[1].Name != "y" || pl.Items[1].Kind != "ConfigMap" || pl.Kind != "ConfigMap" {
		t.Errorf("namespace: %+v", pl)
	}

	// An index added with an unstructured object sees unstructured objects, and
	// serves every form's field selectors (the store is shared).
	err := w.cache.IndexField(ctx, ul.Items[0].DeepCopy(), "data.owner", func(o client.Object) []string {
		v, _, _ := unstructured.NestedString(o.(*unstructured.Unstructured).Object, "data", "owner")
		return []string{v}
	})
	if err != nil {
		t.Fatal(err)
	}
	sel := &client.ListOptions{FieldSelector: fields.OneTermEqualSelector("data.owner", "o2"), LabelSelector: labels.Everything()}
	if err := w.cache.List(ctx, pl, sel); err != nil || len(pl.Items) != 1 || pl.Items[0].Name != "y" {
		t.Errorf("field index: %+v %v", pl.Items, err)
	}
	var typed corev1.ConfigMapList
	if err := w.cache.List(ctx, &typed, sel); err != nil || len(typed.Items) != 1 {
		t.Errorf("the index is the typed informer's: %v %v", typed.Items, err)
	}
}
