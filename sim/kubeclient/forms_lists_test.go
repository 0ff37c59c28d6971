package kubeclient_test

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// A list case: list makes the call with an empty list of the form.
type listCase struct {
	name      string
	gvk       schema.GroupVersionKind // the kind the caller puts on a form list
	list      func(c *kubeclient.Client, l client.ObjectList) error
	wantKind  map[forms.Form]string // the form list's kind after the call
	wantItems int
}

var listCases = []listCase{{
	name: "from the cache, with options",
	gvk:  corev1.SchemeGroupVersion.WithKind("ConfigMapList"),
	list: func(c *kubeclient.Client, l client.ObjectList) error {
		return c.List(ctx, l, client.InNamespace("default"), client.MatchingLabels{"app": "web"})
	},
	wantKind:  map[forms.Form]string{forms.Unstructured: "ConfigMapList", forms.Metadata: "ConfigMapList"},
	wantItems: 1,
}, {
	name: "from the API reader, a page",
	gvk:  apiservertest.WidgetGVK, // Widget or WidgetList: both list Widgets
	list: func(c *kubeclient.Client, l client.ObjectList) error {
		return c.APIReader().List(ctx, l, client.Limit(1))
	},
	// The unstructured client decodes the response's kind; the metadata client
	// puts the caller's back.
	wantKind:  map[forms.Form]string{forms.Unstructured: "WidgetList", forms.Metadata: "Widget"},
	wantItems: 1,
}}

func listInForm(f forms.Form, gvk schema.GroupVersionKind) client.ObjectList {
	switch f {
	case forms.Unstructured:
		l := &unstructured.UnstructuredList{}
		l.SetGroupVersionKind(gvk)
		return l
	case forms.Metadata:
		l := &metav1.PartialObjectMetadataList{}
		l.SetGroupVersionKind(gvk)
		return l
	}
	l, err := forms.NewList(apiservertest.Scheme(), forms.ItemGVK(gvk))
	if err != nil {
		panic(err)
	}
	return l
}

// Lists in every form: the typed list call, its items converted (each with the
// item kind), its list metadata; the list's kind as controller-runtime leaves it.
func TestListsInEveryForm(t *testing.T) {
	for _, tc := range listCases {
		t.Run(tc.name, func(t *testing.T) {
			var typedSteps []string
			var typed client.ObjectList
			item := forms.ItemGVK(tc.gvk)
			for _, f := range allForms {
				p := newTraced(t)
				l := listInForm(f, tc.gvk)
				if err := tc.list(p.client, l); err != nil {
					t.Fatalf("%v: %v", f, err)
				}
				if f == forms.Typed {
					typedSteps, typed = p.steps, l
					continue
				}
				if !reflect.DeepEqual(p.steps, typedSteps) {
					t.Errorf("%v: the hooks saw\n%q\nwhere a typed caller's saw\n%q", f, p.steps, typedSteps)
				}
				if got := l.GetObjectKind().GroupVersionKind().Kind; got != tc.wantKind[f] {
					t.Errorf("%v: list kind %q, want %q", f, got, tc.wantKind[f])
				}
				if l.GetResourceVersion() != typed.GetResourceVersion() || l.GetContinue() != typed.GetContinue() {
					t.Errorf("%v: list metadata %q %q, want %q %q", f, l.GetResourceVersion(), l.GetContinue(), typed.GetResourceVersion(), typed.GetContinue())
				}
				items, _ := meta.ExtractList(l)
				want, _ := meta.ExtractList(typed)
				if len(items) != tc.wantItems || len(want) != tc.wantItems {
					t.Fatalf("%v: %d items, typed %d, want %d", f, len(items), len(want), tc.wantItems)
				}
				for i := range items {
					o := items[i].(client.Object)
					got := asTyped(t, o, item)
					w := asTyped(t, want[i].(client.Object), item)
					if f == forms.Metadata && !equality.Semantic.DeepEqual(objectMeta(got), objectMeta(w)) ||
						f == forms.Unstructured && !equality.Semantic.DeepEqual(got, w) {
						t.Errorf("%v: item %d\n got %+v\nwant %+v", f, i, got, w)
					}
				}
			}
		})
	}
}
