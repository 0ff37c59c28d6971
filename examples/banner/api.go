package banner

import (
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
	"sigs.k8s.io/controller-runtime/pkg/scheme"

	_ "embed"
)

// CRD is the Banner CustomResourceDefinition: v1alpha1 and v1 served, v1
// stored, converted by the operator's webhook (service
// system/webhook-service, path /convert, as kubebuilder scaffolds it).
//
//go:embed crd.yaml
var CRD []byte

var (
	// GroupVersion is the stored version, v1 (the Hub).
	GroupVersion = schema.GroupVersion{Group: "banner.ctrlsim.dev", Version: "v1"}
	// GroupVersionAlpha is the older version, v1alpha1, which users still write.
	GroupVersionAlpha = schema.GroupVersion{Group: "banner.ctrlsim.dev", Version: "v1alpha1"}

	v1Builder = &scheme.Builder{GroupVersion: GroupVersion}
)

func init() { v1Builder.Register(&Banner{}, &BannerList{}) }

// AddToScheme adds both versions of Banner to a scheme (v1alpha1's Go
// types, whose names differ from the kind's, by name).
func AddToScheme(s *runtime.Scheme) error {
	if err := v1Builder.AddToScheme(s); err != nil {
		return err
	}
	s.AddKnownTypeWithName(GroupVersionAlpha.WithKind("Banner"), &BannerV1alpha1{})
	s.AddKnownTypeWithName(GroupVersionAlpha.WithKind("BannerList"), &BannerV1alpha1List{})
	metav1.AddToGroupVersion(s, GroupVersionAlpha)
	return nil
}

// Banner (v1) is text to publish, one line per item.
type Banner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BannerSpec   `json:"spec,omitempty"`
	Status            BannerStatus `json:"status,omitempty"`
}

// BannerSpec holds the lines.
type BannerSpec struct {
	Lines []string `json:"lines,omitempty"`
}

// BannerStatus says which generation is published.
type BannerStatus struct {
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
}

// BannerList is a list of v1 Banners.
type BannerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Banner `json:"items"`
}

// BannerV1alpha1 is the first version: the text in one string, lines
// separated by newlines.
type BannerV1alpha1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BannerV1alpha1Spec `json:"spec,omitempty"`
	Status            BannerStatus       `json:"status,omitempty"`
}

// BannerV1alpha1Spec holds the text.
type BannerV1alpha1Spec struct {
	Text string `json:"text,omitempty"`
}

// BannerV1alpha1List is a list of v1alpha1 Banners.
type BannerV1alpha1List struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BannerV1alpha1 `json:"items"`
}

// Hub marks v1 as the version the others convert through.
func (*Banner) Hub() {}

// ConvertTo converts b to v1: its text split into lines.
func (b *BannerV1alpha1) ConvertTo(hub conversion.Hub) error {
	h := hub.(*Banner)
	h.ObjectMeta = b.ObjectMeta
	h.Spec.Lines = nil
	if b.Spec.Text != "" {
		h.Spec.Lines = strings.Split(b.Spec.Text, "\n")
	}
	h.Status = b.Status
	return nil
}

// ConvertFrom converts v1 to b: the lines joined.
func (b *BannerV1alpha1) ConvertFrom(hub conversion.Hub) error {
	h := hub.(*Banner)
	b.ObjectMeta = h.ObjectMeta
	b.Spec.Text = strings.Join(h.Spec.Lines, "\n")
	b.Status = h.Status
	return nil
}

// DeepCopyObject copies the Banner.
func (b *Banner) DeepCopyObject() runtime.Object {
	c := *b
	b.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	c.Spec.Lines = append([]string(nil), b.Spec.Lines...)
	return &c
}

// DeepCopyObject copies the list.
func (l *BannerList) DeepCopyObject() runtime.Object {
	c := *l
	l.ListMeta.DeepCopyInto(&c.ListMeta)
	c.Items = make([]Banner, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*Banner)
	}
	return &c
}

// DeepCopyObject copies the Banner.
func (b *BannerV1alpha1) DeepCopyObject() runtime.Object {
	c := *b
	b.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// DeepCopyObject copies the list.
func (l *BannerV1alpha1List) DeepCopyObject() runtime.Object {
	c := *l
	l.ListMeta.DeepCopyInto(&c.ListMeta)
	c.Items = make([]BannerV1alpha1, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*BannerV1alpha1)
	}
	return &c
}
