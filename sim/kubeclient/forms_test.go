package kubeclient_test

import (
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	simprocess "github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The forms a caller can use; each case runs once per form, on a fresh process.
var allForms = []forms.Form{forms.Typed, forms.Unstructured, forms.Metadata}

var (
	cmGVK     = corev1.SchemeGroupVersion.WithKind("ConfigMap")
	widgetKey = client.ObjectKey{Namespace: "default", Name: "w"}
)

// traced is a process whose hooks record each call as the trace records it
// (process.BeforeCall and Step: kind and name, resourceVersions, digest, result),
// with the Go type of the object the hooks saw.
type traced struct {
	*process
	steps []string
}

func newTraced(t *testing.T) *traced {
	p := &traced{process: newProcess(t, 0)}
	seed(t, p.client)
	var pending simprocess.PendingCall
	p.client = kubeclient.New(p.server, apiserver.Admin, kubeclient.Options{Cache: p.cache, Hooks: kubeclient.Hooks{
		Before: func(call kubeclient.Call) error { pending = simprocess.BeforeCall(p.server, call); return nil },
		After: func(call kubeclient.Call, err error) {
			s := pending.Step(p.server, call, err)
			p.steps = append(p.steps, fmt.Sprintf("%T %s", call.Object, trace.Step{Op: s.Op, Object: s.Object,
				RVSeen: s.RVSeen, RVCurrent: s.RVCurrent, RVWritten: s.RVWritten, Digest: s.Digest, Result: s.Result}.Canonical()))
		},
	}})
	return p
}

// seed makes ConfigMaps c (app=web) and d, and Widget w with a status.
func seed(t *testing.T, c client.Client) {
	t.Helper()
	for _, o := range []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c", Labels: map[string]string{"app": "web"}}, Data: map[string]string{"k": "v"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "d"}},
		&apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}, Spec: apiservertest.WidgetSpec{Size: 1}},
	} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
}

// inForm returns typed (which it does not modify) in form f.
func inForm(t *testing.T, f forms.Form, typed client.Object) client.Object {
	t.Helper()
	gvk, err := forms.GVK(typed, apiservertest.Scheme())
	if err != nil {
		t.Fatal(err)
	}
	var out client.Object
	switch f {
	case forms.Typed:
		return typed.DeepCopyObject().(client.Object)
	case forms.Unstructured:
		out = &unstructured.Unstructured{}
	default:
		out = &metav1.PartialObjectMetadata{}
	}
	if err := forms.Into(typed, out, gvk); err != nil {
		t.Fatal(err)
	}
	return out
}

// asTyped converts a result back to the typed form, TypeMeta cleared, checking that
// a form result names its kind. A metadata-only result has only its ObjectMeta.
func asTyped(t *testing.T, obj client.Object, gvk schema.GroupVersionKind) client.Object {
	t.Helper()
	if forms.Of(obj) == forms.Typed {
		c := obj.DeepCopyObject().(client.Object)
		c.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		return c
	}
	if got := obj.GetObjectKind().GroupVersionKind(); got != gvk {
		t.Errorf("a %v result is %v, want %v", forms.Of(obj), got, gvk)
	}
	typed, err := forms.ToTyped(apiservertest.Scheme(), obj)
	if err != nil {
		t.Fatal(err)
	}
	return typed
}

func objectMeta(o client.Object) metav1.ObjectMeta {
	return reflect.ValueOf(o).Elem().FieldByName("ObjectMeta").Interface().(metav1.ObjectMeta)
}

func storedWidget(t *testing.T, p *traced) *apiservertest.Widget {
	w := &apiservertest.Widget{}
	if err := p.client.APIReader().Get(ctx, widgetKey, w); err != nil {
		t.Fatal(err)
	}
	return w
}

func annotated[T client.Object](o T) T {
	o = o.DeepCopyObject().(T)
	o.SetAnnotations(map[string]string{"touched": "yes"})
	return o
}
