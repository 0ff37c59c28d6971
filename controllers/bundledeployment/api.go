package bundledeployment

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion of rukpak's core API (api/v1alpha1).
var GroupVersion = schema.GroupVersion{Group: "core.rukpak.io", Version: "v1alpha1"}

// BundleDeploymentGVK is the kind, for CRD registration.
var BundleDeploymentGVK = GroupVersion.WithKind("BundleDeployment")

// BundleDeploymentPlural is the resource name.
const BundleDeploymentPlural = "bundledeployments"

// AddToScheme registers BundleDeployment.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &BundleDeployment{}, &BundleDeploymentList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// Condition types and reasons (api/v1alpha1/bundledeployment_types.go).
const (
	TypeHasValidBundle = "HasValidBundle"
	TypeInstalled      = "Installed"

	ReasonBundleLoadFailed         = "BundleLoadFailed"
	ReasonCreateDynamicWatchFailed = "CreateDynamicWatchFailed"
	ReasonErrorGettingReleaseState = "ErrorGettingReleaseState"
	ReasonInstallationSucceeded    = "InstallationSucceeded"
	ReasonInstallFailed            = "InstallFailed"
	ReasonReconcileFailed          = "ReconcileFailed"
	ReasonUnpackSuccessful         = "UnpackSuccessful"
	ReasonUpgradeFailed            = "UpgradeFailed"
)

// BundleDeployment is a cluster-scoped request to install a bundle with a
// provisioner (rukpak api/v1alpha1 BundleDeployment).
type BundleDeployment struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              BundleDeploymentSpec   `json:"spec"`
	Status            BundleDeploymentStatus `json:"status,omitempty"`
}

// BundleDeploymentSpec is the desired install.
type BundleDeploymentSpec struct {
	// ProvisionerClassName is the provisioner that reconciles this
	// BundleDeployment (e.g. core-rukpak-io-plain).
	ProvisionerClassName string `json:"provisionerClassName"`
	// Template is the Bundle this deployment manages.
	Template BundleTemplate `json:"template"`
}

// BundleTemplate is the desired Bundle (rukpak's BundleTemplate, without its
// metadata).
type BundleTemplate struct {
	Spec BundleSpec `json:"spec"`
}

// BundleSpec names the bundle's content.
type BundleSpec struct {
	ProvisionerClassName string       `json:"provisionerClassName"`
	Source               BundleSource `json:"source"`
}

// BundleSource is where the content comes from: an image reference here.
type BundleSource struct {
	Type  string       `json:"type"` // "image"
	Image *ImageSource `json:"image,omitempty"`
}

// ImageSource is a bundle image.
type ImageSource struct {
	Ref string `json:"ref"`
}

// BundleDeploymentStatus is the observed install.
type BundleDeploymentStatus struct {
	Conditions         []metav1.Condition `json:"conditions,omitempty"`
	ActiveBundle       string             `json:"activeBundle,omitempty"`
	ObservedGeneration int64              `json:"observedGeneration,omitempty"`
}

// BundleDeploymentList is a list of BundleDeployments.
type BundleDeploymentList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []BundleDeployment `json:"items"`
}

// Ref is the bundle image reference of the template, or "".
func (bd *BundleDeployment) Ref() string {
	if img := bd.Spec.Template.Spec.Source.Image; img != nil {
		return img.Ref
	}
	return ""
}

// DeepCopyInto copies bd into out.
func (bd *BundleDeployment) DeepCopyInto(out *BundleDeployment) {
	*out = *bd
	bd.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if img := bd.Spec.Template.Spec.Source.Image; img != nil {
		c := *img
		out.Spec.Template.Spec.Source.Image = &c
	}
	if bd.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(bd.Status.Conditions))
		for i := range bd.Status.Conditions {
			bd.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
}

// DeepCopy returns a deep copy of bd.
func (bd *BundleDeployment) DeepCopy() *BundleDeployment {
	if bd == nil {
		return nil
	}
	out := new(BundleDeployment)
	bd.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (bd *BundleDeployment) DeepCopyObject() runtime.Object { return bd.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *BundleDeploymentList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(BundleDeploymentList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]BundleDeployment, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
