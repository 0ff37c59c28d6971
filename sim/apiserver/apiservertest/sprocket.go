package apiservertest

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// SprocketGVK is the kind of Sprocket.
var SprocketGVK = GroupVersion.WithKind("Sprocket")

// Sprocket is a custom resource whose status has a field without omitempty,
// as kubebuilder projects often write (`Conditions []metav1.Condition
// json:"conditions"`): its zero status serializes as {"conditions": null},
// which its schema (a required array) refuses. kube-apiserver drops .status
// from a create and replaces it with the stored one on an update of the main
// resource, before validating, so a create or an update of a Sprocket with a
// zero status is accepted.
type Sprocket struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              SprocketSpec   `json:"spec,omitempty"`
	Status            SprocketStatus `json:"status,omitempty"`
}

// SprocketSpec is the desired state of a Sprocket.
type SprocketSpec struct {
	Teeth int `json:"teeth,omitempty"`
}

// SprocketStatus is the observed state of a Sprocket; its fields have no omitempty.
type SprocketStatus struct {
	Conditions []metav1.Condition `json:"conditions"`
	Worn       bool               `json:"worn"`
}

// SprocketList is a list of Sprockets.
type SprocketList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Sprocket `json:"items"`
}

// DeepCopyInto copies s into out.
func (s *Sprocket) DeepCopyInto(out *Sprocket) {
	*out = *s
	s.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if s.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(s.Status.Conditions))
		for i := range s.Status.Conditions {
			s.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

// DeepCopyObject implements runtime.Object.
func (s *Sprocket) DeepCopyObject() runtime.Object {
	if s == nil {
		return nil
	}
	out := new(Sprocket)
	s.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (l *SprocketList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(SprocketList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Sprocket, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// SprocketManifest is Sprocket's CustomResourceDefinition as controller-gen
// writes it for the types above: status.conditions an array, status.worn a
// boolean, both required (fields without omitempty or +optional are). A
// typed zero status, {"conditions": null, "worn": false}, reaches the schema
// without its conditions (a null of a non-nullable field is pruned when the
// body is decoded): status.conditions is missing. kube-apiserver never
// validates it: a create drops .status and an update of the main resource
// takes the stored one (customResourceStrategy.PrepareForCreate and
// PrepareForUpdate), so an operator's Update of its whole Sprocket is
// accepted; a status write of a zero status is refused.
const SprocketManifest = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sprockets.test.ctrlsim.dev
spec:
  group: test.ctrlsim.dev
  names:
    kind: Sprocket
    listKind: SprocketList
    plural: sprockets
    singular: sprocket
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
              teeth:
                type: integer
                minimum: 0
          status:
            type: object
            required: [conditions, worn]
            properties:
              worn:
                type: boolean
              conditions:
                type: array
                items:
                  type: object
                  required: [type, status, lastTransitionTime, reason, message]
                  properties:
                    type:
                      type: string
                    status:
                      type: string
                    observedGeneration:
                      type: integer
                      format: int64
                    lastTransitionTime:
                      type: string
                      format: date-time
                    reason:
                      type: string
                    message:
                      type: string
`
