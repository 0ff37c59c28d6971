package differential

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/conversion"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// A conversion webhook against kube-apiserver: a CRD with two served versions
// (v1alpha1, and v1 stored) whose conversion webhook is controller-runtime's
// /convert handler for a Hub and its Convertible, served from this test binary
// to envtest, and called in-process by process.Webhooks.Convert. The model's
// apiserver does not serve several versions yet, so what is compared is the
// conversion: kube-apiserver's answer to a read in the other version against
// Convert's of the object kube-apiserver stored.

var (
	cogV1       = schema.GroupVersion{Group: "conv.ctrlsim.dev", Version: "v1"}
	cogV1alpha1 = schema.GroupVersion{Group: "conv.ctrlsim.dev", Version: "v1alpha1"}
)

// CogV1 is the Hub: teeth as a number.
type CogV1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Teeth int `json:"teeth,omitempty"`
	} `json:"spec,omitempty"`
}

func (g *CogV1) DeepCopyObject() runtime.Object {
	c := *g
	g.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

// Hub marks CogV1 as the version others convert through.
func (*CogV1) Hub() {}

// CogV1alpha1 is a spoke: teeth as a string of t's.
type CogV1alpha1 struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Teeth string `json:"teeth,omitempty"`
	} `json:"spec,omitempty"`
}

func (g *CogV1alpha1) DeepCopyObject() runtime.Object {
	c := *g
	g.ObjectMeta.DeepCopyInto(&c.ObjectMeta)
	return &c
}

func (g *CogV1alpha1) ConvertTo(hub conversion.Hub) error {
	h := hub.(*CogV1)
	h.ObjectMeta = g.ObjectMeta
	h.Spec.Teeth = len(g.Spec.Teeth)
	return nil
}

func (g *CogV1alpha1) ConvertFrom(hub conversion.Hub) error {
	h := hub.(*CogV1)
	g.ObjectMeta = h.ObjectMeta
	g.Spec.Teeth = strings.Repeat("t", h.Spec.Teeth)
	if g.Labels == nil {
		g.Labels = map[string]string{}
	}
	g.Labels["converted"] = "from-v1"
	return nil
}

var cogScheme = func() *runtime.Scheme {
	s := apiservertest.Scheme()
	s.AddKnownTypeWithName(cogV1.WithKind("Cog"), &CogV1{})
	s.AddKnownTypeWithName(cogV1alpha1.WithKind("Cog"), &CogV1alpha1{})
	metav1.AddToGroupVersion(s, cogV1)
	metav1.AddToGroupVersion(s, cogV1alpha1)
	return s
}()

// cogCRD is the CRD with a conversion webhook at service system/webhook-service
// path /convert (envtest rewrites it to its local server).
func cogCRD() *apiextensionsv1.CustomResourceDefinition {
	version := func(name string, teeth string, storage bool) apiextensionsv1.CustomResourceDefinitionVersion {
		return apiextensionsv1.CustomResourceDefinitionVersion{Name: name, Served: true, Storage: storage,
			Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
				Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{"teeth": {Type: teeth}}}}}}}
	}
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "cogs.conv.ctrlsim.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "conv.ctrlsim.dev", Scope: apiextensionsv1.NamespaceScoped,
			Names:    apiextensionsv1.CustomResourceDefinitionNames{Plural: "cogs", Singular: "cog", Kind: "Cog", ListKind: "CogList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{version("v1alpha1", "string", false), version("v1", "integer", true)},
			Conversion: &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.WebhookConverter,
				Webhook: &apiextensionsv1.WebhookConversion{ConversionReviewVersions: []string{"v1"},
					ClientConfig: &apiextensionsv1.WebhookClientConfig{Service: &apiextensionsv1.ServiceReference{
						Namespace: "system", Name: "webhook-service", Path: ptr.To("/convert"), Port: ptr.To[int32](443)}}}},
		},
	}
}

func setUpCogWebhook(mgr ctrl.Manager) error {
	return ctrl.NewWebhookManagedBy(mgr, &CogV1{}).Complete()
}

func asUnstructured(t *testing.T, o runtime.Object, gvk schema.GroupVersionKind) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{Object: m}
	u.SetGroupVersionKind(gvk)
	u.SetManagedFields(nil)
	return u
}

// A read of a stored object in another served version, converted by
// kube-apiserver through the webhook, equals process.Webhooks.Convert's
// conversion of the same stored object through the same handler: spec
// converted both ways, the webhook's label kept, every other piece of
// metadata the original's.
func TestConversionWebhookMatchesKubeAPIServer(t *testing.T) {
	assets, err := assetsFromEnv()
	if err != nil {
		needReal(t) // skips, or fails under CI
		return
	}
	env := &envtest.Environment{BinaryAssetsDirectory: assets, Scheme: cogScheme,
		CRDs: []*apiextensionsv1.CustomResourceDefinition{cogCRD()}}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	wo := &env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: cogScheme, Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: webhook.NewServer(webhook.Options{Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir})})
	if err != nil {
		t.Fatal(err)
	}
	if err := setUpCogWebhook(mgr); err != nil {
		t.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(mctx) }()
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			<-done
		}
	}
	defer stop()
	deadline := time.Now().Add(30 * time.Second)
	for mgr.GetWebhookServer().StartedChecker()(nil) != nil {
		if time.Now().After(deadline) {
			t.Fatal("the webhook server did not start in 30s")
		}
		time.Sleep(50 * time.Millisecond)
	}
	real, err := client.New(cfg, client.Options{Scheme: cogScheme})
	if err != nil {
		t.Fatal(err)
	}

	world, err := cluster.New(&plan.Plan{}, cluster.Options{Scheme: cogScheme,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error { return setUpCogWebhook(p.Manager()) }}}})
	if err != nil {
		t.Fatal(err)
	}
	defer world.Close()
	world.RunFor(time.Second)
	model := world.Process("op").Webhooks()

	// Stored in v1, read in v1alpha1.
	a := &CogV1{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a", Labels: map[string]string{"app": "x"}}}
	a.Spec.Teeth = 3
	if err := real.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	// Written in v1alpha1, stored (and read) in v1.
	b := &CogV1alpha1{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}}
	b.Spec.Teeth = "tt"
	if err := real.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	// a: kube-apiserver's read in v1alpha1 against Convert of the object it
	// stores (read in v1): the whole object.
	key := client.ObjectKey{Namespace: "default", Name: "a"}
	var storedA CogV1
	var readA CogV1alpha1
	if err := real.Get(ctx, key, &storedA); err != nil {
		t.Fatal(err)
	}
	if err := real.Get(ctx, key, &readA); err != nil {
		t.Fatal(err)
	}
	got, err := model.Convert(cogCRD(), []*unstructured.Unstructured{asUnstructured(t, &storedA, cogV1.WithKind("Cog"))}, cogV1alpha1.String())
	if err != nil {
		t.Fatalf("the model's conversion: %v", err)
	}
	if d := cmp.Diff(asUnstructured(t, &readA, cogV1alpha1.WithKind("Cog")).Object, got[0].Object); d != "" {
		t.Errorf("a read in v1alpha1: model (+) vs kube-apiserver (-):\n%s", d)
	}
	// b: what kube-apiserver stored for a create in v1alpha1 against Convert
	// of the body the client sent: the spec in v1.
	var storedB CogV1
	if err := real.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, &storedB); err != nil {
		t.Fatal(err)
	}
	sent := &CogV1alpha1{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}}
	sent.Spec.Teeth = "tt"
	got, err = model.Convert(cogCRD(), []*unstructured.Unstructured{asUnstructured(t, sent, cogV1alpha1.WithKind("Cog"))}, cogV1.String())
	if err != nil {
		t.Fatalf("the model's conversion: %v", err)
	}
	if d := cmp.Diff(asUnstructured(t, &storedB, cogV1.WithKind("Cog")).Object["spec"], got[0].Object["spec"]); d != "" || got[0].GetAPIVersion() != cogV1.String() {
		t.Errorf("b written in v1alpha1: model (+) vs kube-apiserver (-):\n%s (apiVersion %s)", d, got[0].GetAPIVersion())
	}
	// The cases convert: v1's 3 is v1alpha1's "ttt" with the webhook's label.
	var ra CogV1alpha1
	if err := real.Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, &ra); err != nil || ra.Spec.Teeth != "ttt" || ra.Labels["converted"] != "from-v1" {
		t.Errorf("kube-apiserver's read of a in v1alpha1: %+v %v: the case does not test what it says", ra, err)
	}
	// With the webhook's server gone, a read in the other version fails as
	// a conversion failure: a 500 whose message ends with Convert's kind of
	// error, after the storage layer's "object not decodable" prefix
	// (Internal error occurred: StorageError: corrupt object, Code: 7, Key:
	// ..., AdditionalErrorMsg: object not decodable revision=N: conversion
	// webhook for ... failed: Post ...).
	stop()
	err = real.Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, &CogV1alpha1{})
	world.Process("op").Crash("test")
	_, modelErr := model.Convert(cogCRD(), []*unstructured.Unstructured{asUnstructured(t, &storedA, cogV1.WithKind("Cog"))}, cogV1alpha1.String())
	// The URL and the transport's error differ: envtest's webhook is given
	// by URL (a refused connection), the model's by service (no endpoints).
	prefix := `conversion webhook for conv.ctrlsim.dev/v1, Kind=Cog failed: Post "`
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "object not decodable") || !strings.Contains(err.Error(), prefix) {
		t.Errorf("kube-apiserver's read with the webhook down: %v", err)
	}
	if modelErr == nil || !strings.HasPrefix(modelErr.Error(), prefix) {
		t.Errorf("the model's conversion with the webhook down: %v, want it to begin %s", modelErr, prefix)
	}
}
