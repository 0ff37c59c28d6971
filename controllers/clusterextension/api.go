package clusterextension

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion of operator-controller's API (api/v1).
var GroupVersion = schema.GroupVersion{Group: "olm.operatorframework.io", Version: "v1"}

// The kinds, for CRD registration.
var (
	ClusterExtensionGVK = GroupVersion.WithKind("ClusterExtension")
	ClusterCatalogGVK   = GroupVersion.WithKind("ClusterCatalog")
)

// AddToScheme registers ClusterExtension and ClusterCatalog.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &ClusterExtension{}, &ClusterExtensionList{}, &ClusterCatalog{}, &ClusterCatalogList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// Condition types and reasons (api/v1/common_types.go).
const (
	TypeInstalled   = "Installed"
	TypeProgressing = "Progressing"

	ReasonSucceeded = "Succeeded"
	ReasonFailed    = "Failed"
	ReasonRetrying  = "Retrying"
	ReasonBlocked   = "Blocked"
)

// ClusterExtension is a cluster-scoped request to install a package from a
// catalog into a namespace (operator-controller api/v1 ClusterExtension).
type ClusterExtension struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              ClusterExtensionSpec   `json:"spec,omitempty"`
	Status            ClusterExtensionStatus `json:"status,omitempty"`
}

// ClusterExtensionSpec is the desired install.
type ClusterExtensionSpec struct {
	// Namespace is the install namespace (and the helm release namespace).
	Namespace      string                  `json:"namespace"`
	ServiceAccount ServiceAccountReference `json:"serviceAccount"`
	Source         SourceConfig            `json:"source"`
}

// ServiceAccountReference names the installer ServiceAccount.
type ServiceAccountReference struct {
	Name string `json:"name"`
}

// SourceConfig is where the content comes from.
type SourceConfig struct {
	SourceType string         `json:"sourceType"` // "Catalog"
	Catalog    *CatalogFilter `json:"catalog,omitempty"`
}

// CatalogFilter selects a package and versions from the catalog.
type CatalogFilter struct {
	PackageName string `json:"packageName"`
	// Version is a version range; empty means any.
	Version  string   `json:"version,omitempty"`
	Channels []string `json:"channels,omitempty"`
	// UpgradeConstraintPolicy is CatalogProvided (default) or SelfCertified.
	UpgradeConstraintPolicy string `json:"upgradeConstraintPolicy,omitempty"`
}

// ClusterExtensionStatus is the observed install.
type ClusterExtensionStatus struct {
	Conditions []metav1.Condition             `json:"conditions,omitempty"`
	Install    *ClusterExtensionInstallStatus `json:"install,omitempty"`
}

// ClusterExtensionInstallStatus is the installed bundle.
type ClusterExtensionInstallStatus struct {
	Bundle BundleMetadata `json:"bundle"`
}

// BundleMetadata names a bundle.
type BundleMetadata struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// ClusterExtensionList is a list of ClusterExtensions.
type ClusterExtensionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterExtension `json:"items"`
}

// ClusterCatalog is a catalog source (catalogd api/v1 ClusterCatalog, reduced to
// what tells controllers its content changed: the resolved image reference).
type ClusterCatalog struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Status            ClusterCatalogStatus `json:"status,omitempty"`
}

// ClusterCatalogStatus is the unpacked content's reference.
type ClusterCatalogStatus struct {
	ResolvedSource *ResolvedCatalogSource `json:"resolvedSource,omitempty"`
}

// ResolvedCatalogSource is the content a catalog serves.
type ResolvedCatalogSource struct {
	Image *ResolvedImageSource `json:"image,omitempty"`
}

// ResolvedImageSource is the digest-pinned image.
type ResolvedImageSource struct {
	Ref string `json:"ref"`
}

// ClusterCatalogList is a list of ClusterCatalogs.
type ClusterCatalogList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ClusterCatalog `json:"items"`
}

// DeepCopyInto copies e into out.
func (e *ClusterExtension) DeepCopyInto(out *ClusterExtension) {
	*out = *e
	e.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if c := e.Spec.Source.Catalog; c != nil {
		cc := *c
		cc.Channels = append([]string(nil), c.Channels...)
		out.Spec.Source.Catalog = &cc
	}
	if e.Status.Conditions != nil {
		out.Status.Conditions = make([]metav1.Condition, len(e.Status.Conditions))
		for i := range e.Status.Conditions {
			e.Status.Conditions[i].DeepCopyInto(&out.Status.Conditions[i])
		}
	}
	if e.Status.Install != nil {
		in := *e.Status.Install
		out.Status.Install = &in
	}
}

// DeepCopy returns a deep copy of e.
func (e *ClusterExtension) DeepCopy() *ClusterExtension {
	if e == nil {
		return nil
	}
	out := new(ClusterExtension)
	e.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (e *ClusterExtension) DeepCopyObject() runtime.Object { return e.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *ClusterExtensionList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(ClusterExtensionList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]ClusterExtension, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// DeepCopyInto copies c into out.
func (c *ClusterCatalog) DeepCopyInto(out *ClusterCatalog) {
	*out = *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if rs := c.Status.ResolvedSource; rs != nil {
		r := *rs
		if rs.Image != nil {
			img := *rs.Image
			r.Image = &img
		}
		out.Status.ResolvedSource = &r
	}
}

// DeepCopy returns a deep copy of c.
func (c *ClusterCatalog) DeepCopy() *ClusterCatalog {
	if c == nil {
		return nil
	}
	out := new(ClusterCatalog)
	c.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (c *ClusterCatalog) DeepCopyObject() runtime.Object { return c.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *ClusterCatalogList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(ClusterCatalogList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]ClusterCatalog, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}
