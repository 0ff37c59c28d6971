package apiservertest

import (
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
)

// Gear is a custom resource served in two versions, as a kubebuilder project
// converts them: v1 (stored) is the Hub, teeth a number; v1alpha1 a
// Convertible spoke, teeth a string of as many t's. Each version's schema
// has a default of its own (v1 spec.shape "round", v1alpha1 spec.size
// "small"), so per-version defaulting shows. Converting from v1 adds the
// label converted=from-v1, so a conversion through the webhook shows.
var (
	GearV1GV       = schema.GroupVersion{Group: "conv.ctrlsim.dev", Version: "v1"}
	GearV1alpha1GV = schema.GroupVersion{Group: "conv.ctrlsim.dev", Version: "v1alpha1"}
)

// GearSpec is v1's spec.
type GearSpec struct {
	Teeth int    `json:"teeth,omitempty"`
	Color string `json:"color,omitempty"`
	Shape string `json:"shape,omitempty"` // v1 only: the webhook drops it
}

// GearV1alpha1Spec is v1alpha1's spec.
type GearV1alpha1Spec struct {
	Teeth string `json:"teeth,omitempty"`
	Color string `json:"color,omitempty"`
	Size  string `json:"size,omitempty"` // v1alpha1 only: the webhook drops it
}

// GearStatus is the status of both versions (a pointer in them, so that an
// object without one has none, as its JSON).
type GearStatus struct {
	Turns int `json:"turns,omitempty"`
}

// GearV1 is the Hub.
type GearV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GearSpec    `json:"spec,omitempty"`
	Status            *GearStatus `json:"status,omitempty"`
}

// GearV1alpha1 is the spoke.
type GearV1alpha1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              GearV1alpha1Spec `json:"spec,omitempty"`
	Status            *GearStatus      `json:"status,omitempty"`
}

// GearV1List is a list of v1 Gears.
type GearV1List struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GearV1 `json:"items"`
}

// GearV1alpha1List is a list of v1alpha1 Gears.
type GearV1alpha1List struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []GearV1alpha1 `json:"items"`
}

// Hub marks v1 as the version the others convert through.
func (*GearV1) Hub() {}

// ConvertTo converts g to the Hub.
func (g *GearV1alpha1) ConvertTo(hub conversion.Hub) error {
	h := hub.(*GearV1)
	h.ObjectMeta = g.ObjectMeta
	h.Spec = GearSpec{Teeth: len(g.Spec.Teeth), Color: g.Spec.Color}
	h.Status = nil
	if g.Status != nil {
		st := *g.Status
		h.Status = &st
	}
	return nil
}

// ConvertFrom converts the Hub to g, labelling it converted=from-v1.
func (g *GearV1alpha1) ConvertFrom(hub conversion.Hub) error {
	h := hub.(*GearV1)
	g.ObjectMeta = h.ObjectMeta
	g.Spec = GearV1alpha1Spec{Teeth: strings.Repeat("t", h.Spec.Teeth), Color: h.Spec.Color}
	g.Status = nil
	if h.Status != nil {
		st := *h.Status
		g.Status = &st
	}
	if g.Labels == nil {
		g.Labels = map[string]string{}
	}
	g.Labels["converted"] = "from-v1"
	return nil
}

// DeepCopyObject implements runtime.Object.
func (g *GearV1) DeepCopyObject() runtime.Object {
	c := *g
	g.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	if g.Status != nil {
		st := *g.Status
		c.Status = &st
	}
	return &c
}

// DeepCopyObject implements runtime.Object.
func (g *GearV1alpha1) DeepCopyObject() runtime.Object {
	c := *g
	g.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	if g.Status != nil {
		st := *g.Status
		c.Status = &st
	}
	return &c
}

// DeepCopyObject implements runtime.Object.
func (l *GearV1List) DeepCopyObject() runtime.Object {
	c := *l
	l.ListMeta.DeepCopyInto(&c.ListMeta)
	c.Items = make([]GearV1, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*GearV1)
	}
	return &c
}

// DeepCopyObject implements runtime.Object.
func (l *GearV1alpha1List) DeepCopyObject() runtime.Object {
	c := *l
	l.ListMeta.DeepCopyInto(&c.ListMeta)
	c.Items = make([]GearV1alpha1, len(l.Items))
	for i := range l.Items {
		c.Items[i] = *l.Items[i].DeepCopyObject().(*GearV1alpha1)
	}
	return &c
}

// AddGearToScheme registers both versions of Gear and their lists.
func AddGearToScheme(s *runtime.Scheme) error {
	s.AddKnownTypeWithName(GearV1GV.WithKind("Gear"), &GearV1{})
	s.AddKnownTypeWithName(GearV1GV.WithKind("GearList"), &GearV1List{})
	s.AddKnownTypeWithName(GearV1alpha1GV.WithKind("Gear"), &GearV1alpha1{})
	s.AddKnownTypeWithName(GearV1alpha1GV.WithKind("GearList"), &GearV1alpha1List{})
	metav1.AddToGroupVersion(s, GearV1GV)
	metav1.AddToGroupVersion(s, GearV1alpha1GV)
	return nil
}

// GearScheme is Scheme with both versions of Gear.
func GearScheme() *runtime.Scheme {
	s := Scheme()
	if err := AddGearToScheme(s); err != nil {
		panic(err)
	}
	return s
}

// GearCRD is Gear's CustomResourceDefinition: v1alpha1 and v1 served, v1
// stored, both with the status subresource, converted with strategy (None,
// or Webhook: the service system/webhook-service at /convert, where
// SetUpGearWebhook's manager serves it).
func GearCRD(strategy apiextensionsv1.ConversionStrategyType) *apiextensionsv1.CustomResourceDefinition {
	str := apiextensionsv1.JSONSchemaProps{Type: "string"}
	version := func(name string, storage bool, spec map[string]apiextensionsv1.JSONSchemaProps) apiextensionsv1.CustomResourceDefinitionVersion {
		return apiextensionsv1.CustomResourceDefinitionVersion{Name: name, Served: true, Storage: storage,
			Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{
					"spec": {Type: "object", Properties: spec},
					"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"turns": {Type: "integer", Minimum: ptr.To[float64](0)}}},
				}}}}
	}
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "gears.conv.ctrlsim.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "conv.ctrlsim.dev", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gears", Singular: "gear", Kind: "Gear", ListKind: "GearList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				version("v1alpha1", false, map[string]apiextensionsv1.JSONSchemaProps{
					"teeth": {Type: "string", MaxLength: ptr.To[int64](12)}, "color": str,
					"size": {Type: "string", Default: &apiextensionsv1.JSON{Raw: []byte(`"small"`)}}}),
				version("v1", true, map[string]apiextensionsv1.JSONSchemaProps{
					"teeth": {Type: "integer", Maximum: ptr.To[float64](10)}, "color": str,
					"shape": {Type: "string", Default: &apiextensionsv1.JSON{Raw: []byte(`"round"`)}}}),
			},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: strategy},
		},
	}
	if strategy == apiextensionsv1.WebhookConverter {
		crd.Spec.Conversion.Webhook = &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"},
			ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{
				Namespace: "system", Name: "webhook-service", Path: ptr.To("/convert"), Port: ptr.To[int32](443)}}}
	}
	return crd
}

// SetUpGearWebhook registers Gear's conversion webhook (/convert) on mgr, as
// a kubebuilder project's main.go does.
func SetUpGearWebhook(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &GearV1{}).Complete()
}
