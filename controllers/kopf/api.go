package kopf

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion of kopf's example resource (kopf's examples/crd.yaml:
// kopfexamples.kopf.dev, version v1).
var GroupVersion = schema.GroupVersion{Group: "kopf.dev", Version: "v1"}

// KopfExampleGVK is the kind of KopfExample.
var KopfExampleGVK = GroupVersion.WithKind("KopfExample")

// Plural is KopfExample's resource name, as API faults of a plan name it
// ("api verb=patch resource=kopfexamples code=422").
const Plural = "kopfexamples"

// KopfExample is kopf's example custom resource: namespaced, with a status
// subresource. The operator stores its handler progress, its diff base and its
// finalizer in the object's metadata (see Annotation*).
type KopfExample struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              KopfExampleSpec   `json:"spec,omitempty"`
	Status            KopfExampleStatus `json:"status,omitempty"`
}

// KopfExampleSpec is the example's spec (kopf's examples/obj.yaml has a field and
// a list of items).
type KopfExampleSpec struct {
	Field string   `json:"field,omitempty"`
	Items []string `json:"items,omitempty"`
}

// KopfExampleStatus is what the example handler reports (ReportHandler): how many
// times it ran, and the spec field it last saw.
type KopfExampleStatus struct {
	HandlerRuns   int    `json:"handlerRuns,omitempty"`
	ObservedField string `json:"observedField,omitempty"`
	// Touches counts status writes by someone other than the operator (the
	// scenarios' "touch" action): events that change nothing kopf diffs.
	Touches int `json:"touches,omitempty"`
}

// KopfExampleList is a list of KopfExamples.
type KopfExampleList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []KopfExample `json:"items"`
}

// DeepCopyInto copies k into out.
func (k *KopfExample) DeepCopyInto(out *KopfExample) {
	*out = *k
	k.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if k.Spec.Items != nil {
		out.Spec.Items = append([]string(nil), k.Spec.Items...)
	}
}

// DeepCopy returns a deep copy of k.
func (k *KopfExample) DeepCopy() *KopfExample {
	if k == nil {
		return nil
	}
	out := new(KopfExample)
	k.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (k *KopfExample) DeepCopyObject() runtime.Object { return k.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *KopfExampleList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(KopfExampleList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]KopfExample, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// AddToScheme registers KopfExample and KopfExampleList.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &KopfExample{}, &KopfExampleList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
