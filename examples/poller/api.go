package poller

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Image CustomResourceDefinition (config/crd/bases).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the operator's API group.
	GroupVersion  = schema.GroupVersion{Group: "poller.ctrlsim.dev", Version: "v1"}
	schemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}
	// AddToScheme adds Image to a scheme.
	AddToScheme = schemeBuilder.AddToScheme
)

func init() { schemeBuilder.Register(&Image{}, &ImageList{}) }

// Image follows a repository of an image registry.
type Image struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ImageSpec   `json:"spec,omitempty"`
	Status            ImageStatus `json:"status,omitempty"`
}

// ImageSpec names the repository.
type ImageSpec struct {
	Repository string `json:"repository"`
}

// ImageStatus is what the registry publishes for it.
type ImageStatus struct {
	// Latest is the latest version the registry publishes.
	Latest string `json:"latest,omitempty"`
}

// ImageList is a list of Images.
type ImageList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Image `json:"items"`
}

// DeepCopyInto copies in into out.
func (in *Image) DeepCopyInto(out *Image) {
	*out = *in
	in.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
}

// DeepCopyObject copies the Image.
func (in *Image) DeepCopyObject() runtime.Object {
	out := new(Image)
	in.DeepCopyInto(out)
	return out
}

// DeepCopyObject copies the list.
func (in *ImageList) DeepCopyObject() runtime.Object {
	out := &ImageList{TypeMeta: in.TypeMeta}
	in.ListMeta.DeepCopyInto(&out.ListMeta)
	for i := range in.Items {
		var img Image
		in.Items[i].DeepCopyInto(&img)
		out.Items = append(out.Items, img)
	}
	return out
}
