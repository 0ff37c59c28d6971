package kubeclient_test

import (
	"reflect"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// A verb case: input builds the typed object the call is made with (and, for
// patches, the original it is diffed against); call makes it in the caller's form.
// A case whose change is not all in metadata (metadataOnly false) is not run with
// PartialObjectMetadata, unless the metadata client refuses the verb (refused).
type verbCase struct {
	name         string
	input        func(t *testing.T, p *traced) (obj, orig client.Object)
	call         func(c client.Client, obj, orig client.Object) error
	metadataOnly bool
	refused      string
	wantErr      func(error) bool
}

var verbCases = []verbCase{{
	name:  "get from the cache",
	input: func(*testing.T, *traced) (client.Object, client.Object) { return &corev1.ConfigMap{}, nil },
	call: func(c client.Client, o, _ client.Object) error {
		return c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "c"}, o)
	},
	metadataOnly: true,
}, {
	name:  "get from the API reader",
	input: func(*testing.T, *traced) (client.Object, client.Object) { return &apiservertest.Widget{}, nil },
	call: func(c client.Client, o, _ client.Object) error {
		return c.(*kubeclient.Client).APIReader().Get(ctx, widgetKey, o)
	},
	metadataOnly: true,
}, {
	name:  "get of a missing object",
	input: func(*testing.T, *traced) (client.Object, client.Object) { return &apiservertest.Widget{}, nil },
	call: func(c client.Client, o, _ client.Object) error {
		return c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "x"}, o)
	},
	metadataOnly: true,
	wantErr:      apierrors.IsNotFound,
}, {
	name: "create with generateName",
	input: func(*testing.T, *traced) (client.Object, client.Object) {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", GenerateName: "gen-"}, Data: map[string]string{"a": "b"}}, nil
	},
	call:    func(c client.Client, o, _ client.Object) error { return c.Create(ctx, o) },
	refused: "cannot create using only metadata",
}, {
	name: "update",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		w.Spec.Size, w.Spec.Color = 5, "blue"
		return w, nil
	},
	call:    func(c client.Client, o, _ client.Object) error { return c.Update(ctx, o) },
	refused: "cannot update using only metadata -- did you mean to patch?",
}, {
	name: "update with a stale resourceVersion",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		w.ResourceVersion, w.Spec.Size = "1", 5
		return w, nil
	},
	call:    func(c client.Client, o, _ client.Object) error { return c.Update(ctx, o) },
	refused: "cannot update using only metadata -- did you mean to patch?",
	wantErr: apierrors.IsConflict,
}, {
	name: "merge patch of the spec",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		orig := w.DeepCopy()
		w.Spec.Tags = map[string]string{"x": "y"}
		return w, orig
	},
	call: func(c client.Client, o, orig client.Object) error { return c.Patch(ctx, o, client.MergeFrom(orig)) },
}, {
	name: "merge patch of metadata",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		return annotated(w), w
	},
	call:         func(c client.Client, o, orig client.Object) error { return c.Patch(ctx, o, client.MergeFrom(orig)) },
	metadataOnly: true,
}, {
	name: "merge patch with an optimistic lock, stale",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		w.ResourceVersion = "1"
		return annotated(w), w
	},
	call: func(c client.Client, o, orig client.Object) error {
		return c.Patch(ctx, o, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
	},
	metadataOnly: true,
	wantErr:      apierrors.IsConflict,
}, {
	name: "merge patch of the whole object (client.Merge: the caller's JSON)",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		return annotated(storedWidget(t, p)), nil
	},
	call:         func(c client.Client, o, _ client.Object) error { return c.Patch(ctx, o, client.Merge) },
	metadataOnly: true,
}, {
	name: "JSON patch",
	input: func(*testing.T, *traced) (client.Object, client.Object) {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}}, nil
	},
	call: func(c client.Client, o, _ client.Object) error {
		return c.Patch(ctx, o, client.RawPatch("application/json-patch+json", []byte(`[{"op":"add","path":"/metadata/labels/tier","value":"1"}]`)))
	},
	metadataOnly: true,
}, {
	name: "delete",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		return storedWidget(t, p), nil
	},
	call:         func(c client.Client, o, _ client.Object) error { return c.Delete(ctx, o) },
	metadataOnly: true,
}, {
	name: "delete with a stale precondition",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		return storedWidget(t, p), nil
	},
	call: func(c client.Client, o, _ client.Object) error {
		return c.Delete(ctx, o, client.Preconditions{ResourceVersion: ptr.To("1")})
	},
	metadataOnly: true,
	wantErr:      apierrors.IsConflict,
}, {
	name:  "delete all of",
	input: func(*testing.T, *traced) (client.Object, client.Object) { return &corev1.ConfigMap{}, nil },
	call: func(c client.Client, o, _ client.Object) error {
		return c.DeleteAllOf(ctx, o, client.InNamespace("default"), client.MatchingLabels{"app": "web"})
	},
	metadataOnly: true,
}, {
	name: "status update",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		w.Status.Phase = "Ready"
		return w, nil
	},
	call:    func(c client.Client, o, _ client.Object) error { return c.Status().Update(ctx, o) },
	refused: "cannot update status using only metadata -- did you mean to patch?",
}, {
	name: "status patch",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		orig := w.DeepCopy()
		w.Status.Phase = "Ready"
		return w, orig
	},
	call: func(c client.Client, o, orig client.Object) error {
		return c.Status().Patch(ctx, o, client.MergeFrom(orig))
	},
}, {
	name: "status patch of metadata only (ignored by the status subresource)",
	input: func(t *testing.T, p *traced) (client.Object, client.Object) {
		w := storedWidget(t, p)
		return annotated(w), w
	},
	call: func(c client.Client, o, orig client.Object) error {
		return c.Status().Patch(ctx, o, client.MergeFrom(orig))
	},
	metadataOnly: true,
}}

// Every verb takes an Unstructured or a PartialObjectMetadata where controller-
// runtime's client does: the call the hooks see (and so the trace step, digest
// included) is the typed call's, and the caller's object ends as the typed one
// does, in its own form.
func TestEveryVerbInEveryForm(t *testing.T) {
	for _, tc := range verbCases {
		t.Run(tc.name, func(t *testing.T) {
			var typedSteps []string
			var typedResult client.Object
			for _, f := range allForms {
				if f == forms.Metadata && !tc.metadataOnly && tc.refused == "" {
					continue
				}
				p := newTraced(t)
				in, orig := tc.input(t, p)
				p.steps = nil
				gvk, _ := forms.GVK(in, p.client.Scheme())
				obj := inForm(t, f, in)
				if orig != nil {
					orig = inForm(t, f, orig)
				}
				err := tc.call(p.client, obj, orig)
				if f == forms.Metadata && tc.refused != "" {
					if err == nil || err.Error() != tc.refused {
						t.Errorf("metadata: got %v, want %q", err, tc.refused)
					}
					if len(p.steps) != 1 || strings.HasPrefix(p.steps[0], "*v1.PartialObjectMetadata") {
						t.Errorf("metadata: a refused call is one call, of the typed kind: %q", p.steps)
					}
					continue
				}
				switch {
				case tc.wantErr != nil && !tc.wantErr(err):
					t.Errorf("%v: unexpected error %v", f, err)
				case tc.wantErr == nil && err != nil:
					t.Fatalf("%v: %v", f, err)
				}
				result := asTyped(t, obj, gvk)
				if f == forms.Typed {
					if len(p.steps) != 1 {
						t.Fatalf("a call is one call: %q", p.steps)
					}
					typedSteps, typedResult = p.steps, result
					continue
				}
				if !reflect.DeepEqual(p.steps, typedSteps) {
					t.Errorf("%v: the hooks saw\n%q\nwhere a typed caller's saw\n%q", f, p.steps, typedSteps)
				}
				if f == forms.Metadata {
					if got, want := objectMeta(result), objectMeta(typedResult); !equality.Semantic.DeepEqual(got, want) {
						t.Errorf("metadata result:\n got %+v\nwant %+v", got, want)
					}
				} else if !equality.Semantic.DeepEqual(result, typedResult) {
					t.Errorf("%v result:\n got %+v\nwant %+v", f, result, typedResult)
				}
			}
		})
	}
}
