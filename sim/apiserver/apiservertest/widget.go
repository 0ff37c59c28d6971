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

// Scheme returns a new scheme with client-go's built-in types, Widget and Sprocket.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		panic(err)
	}
	s.AddKnownTypes(GroupVersion, &Widget{}, &WidgetList{}, &Sprocket{}, &SprocketList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return s
}

// WidgetManifest is Widget's CustomResourceDefinition as kubebuilder's
// config/crd/bases would hold it, with a schema that exercises the model's
// pruning, defaulting and validation: size 0..10, color one of three with a
// default, at most three tags of lower-case letters, a status phase from a list.
const WidgetManifest = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.ctrlsim.dev
spec:
  group: test.ctrlsim.dev
  names:
    kind: Widget
    listKind: WidgetList
    plural: widgets
    singular: widget
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion:
            type: string
          kind:
            type: string
          metadata:
            type: object
          spec:
            type: object
            properties:
              size:
                type: integer
                minimum: 0
                maximum: 10
              color:
                type: string
                enum: [blue, red, green]
                default: blue
              tags:
                type: object
                maxProperties: 3
                additionalProperties:
                  type: string
                  pattern: '^[a-z]+$'
          status:
            type: object
            properties:
              phase:
                type: string
                enum: [Pending, Ready, Stamped]
              observedGeneration:
                type: integer
                format: int64
                minimum: 0
`
