package apiservertest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// GroupVersion of the test custom resources.
var GroupVersion = schema.GroupVersion{Group: "test.ctrlsim.dev", Version: "v1"}

// WidgetGVK is the kind of Widget.
var WidgetGVK = GroupVersion.WithKind("Widget")

// WidgetCRD installs Widget as a namespaced custom resource with a status subresource.
var WidgetCRD = apiserver.CRD{GVK: WidgetGVK, Namespaced: true, Status: true}

// Widget is a minimal custom resource with a spec and a status.
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              WidgetSpec   `json:"spec,omitempty"`
	Status            WidgetStatus `json:"status,omitempty"`
}

// WidgetSpec is the desired state of a Widget.
type WidgetSpec struct {
	Size  int               `json:"size,omitempty"`
	Color string            `json:"color,omitempty"`
	Tags  map[string]string `json:"tags,omitempty"`
}

// WidgetStatus is the observed state of a Widget.
type WidgetStatus struct {
	Phase              string `json:"phase,omitempty"`
	ObservedGeneration int64  `json:"observedGeneration,omitempty"`
}

// WidgetList is a list of Widgets.
type WidgetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Widget `json:"items"`
}

// DeepCopyInto copies w into out.
func (w *Widget) DeepCopyInto(out *Widget) {
	*out = *w
	out.TypeMeta = w.TypeMeta
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if w.Spec.Tags != nil {
		out.Spec.Tags = make(map[string]string, len(w.Spec.Tags))
		for k, v := range w.Spec.Tags { // lint:order-independent copy
			out.Spec.Tags[k] = v
		}
	}
}

// DeepCopy returns a deep copy of w.
func (w *Widget) DeepCopy() *Widget {
	if w == nil {
		return nil
	}
	out := new(Widget)
	w.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (w *Widget) DeepCopyObject() runtime.Object { return w.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *WidgetList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(WidgetList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Widget, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// Scheme returns a new scheme with client-go's built-in types and Widget.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return s
}
