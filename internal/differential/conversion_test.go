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
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
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
// to envtest, and called in-process by process.Webhooks.Convert: what is
// compared here is the conversion itself, kube-apiserver's answer to a read
// in the other version against Convert's of the object kube-apiserver
// stored (multiversion_test.go compares the serving of both versions).

// The two-version kind is apiservertest's Gear (v1 the Hub, stored;
// v1alpha1 a Convertible spoke).
var gearScheme = apiservertest.GearScheme()

func gearCRD() *apiextensionsv1.CustomResourceDefinition {
	return apiservertest.GearCRD(apiextensionsv1.WebhookConverter)
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
	env := &envtest.Environment{BinaryAssetsDirectory: assets, Scheme: gearScheme,
		CRDs: []*apiextensionsv1.CustomResourceDefinition{gearCRD()}}
	cfg, err := env.Start()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	wo := &env.WebhookInstallOptions
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: gearScheme, Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: webhook.NewServer(webhook.Options{Host: wo.LocalServingHost, Port: wo.LocalServingPort, CertDir: wo.LocalServingCertDir})})
	if err != nil {
		t.Fatal(err)
	}
	if err := apiservertest.SetUpGearWebhook(mgr); err != nil {
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
	real, err := client.New(cfg, client.Options{Scheme: gearScheme})
	if err != nil {
		t.Fatal(err)
	}

	world, err := cluster.New(&plan.Plan{}, cluster.Options{Scheme: gearScheme,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error { return apiservertest.SetUpGearWebhook(p.Manager()) }}}})
	if err != nil {
		t.Fatal(err)
	}
	defer world.Close()
	world.RunFor(time.Second)
	model := world.Process("op").Webhooks()

	// Stored in v1, read in v1alpha1.
	a := &apiservertest.GearV1{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a", Labels: map[string]string{"app": "x"}}}
	a.Spec.Teeth = 3
	a.Spec.Shape = "round"
	if err := real.Create(ctx, a); err != nil {
		t.Fatal(err)
	}
	// Written in v1alpha1, stored (and read) in v1.
	b := &apiservertest.GearV1alpha1{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}}
	b.Spec.Teeth = "tt"
	if err := real.Create(ctx, b); err != nil {
		t.Fatal(err)
	}
	// a: kube-apiserver's read in v1alpha1 against Convert of the object it
	// stores (read in v1): the whole object.
	key := client.ObjectKey{Namespace: "default", Name: "a"}
	var storedA apiservertest.GearV1
	var readA apiservertest.GearV1alpha1
	if err := real.Get(ctx, key, &storedA); err != nil {
		t.Fatal(err)
	}
	if err := real.Get(ctx, key, &readA); err != nil {
		t.Fatal(err)
	}
	got, err := model.Convert(gearCRD(), []*unstructured.Unstructured{asUnstructured(t, &storedA, apiservertest.GearV1GV.WithKind("Gear"))}, apiservertest.GearV1alpha1GV.String())
	if err != nil {
		t.Fatalf("the model's conversion: %v", err)
	}
	if d := cmp.Diff(asUnstructured(t, &readA, apiservertest.GearV1alpha1GV.WithKind("Gear")).Object, got[0].Object); d != "" {
		t.Errorf("a read in v1alpha1: model (+) vs kube-apiserver (-):\n%s", d)
	}
	// b: what kube-apiserver stored for a create in v1alpha1 against Convert
	// of the body the client sent: the spec in v1.
	var storedB apiservertest.GearV1
	if err := real.Get(ctx, client.ObjectKey{Namespace: "default", Name: "b"}, &storedB); err != nil {
		t.Fatal(err)
	}
	sent := &apiservertest.GearV1alpha1{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b"}}
	sent.Spec.Teeth = "tt"
	got, err = model.Convert(gearCRD(), []*unstructured.Unstructured{asUnstructured(t, sent, apiservertest.GearV1alpha1GV.WithKind("Gear"))}, apiservertest.GearV1GV.String())
	if err != nil {
		t.Fatalf("the model's conversion: %v", err)
	}
	// (v1's default shape is the storage decoder's, not the conversion's.)
	storedB.Spec.Shape = ""
	if d := cmp.Diff(asUnstructured(t, &storedB, apiservertest.GearV1GV.WithKind("Gear")).Object["spec"], got[0].Object["spec"]); d != "" || got[0].GetAPIVersion() != apiservertest.GearV1GV.String() {
		t.Errorf("b written in v1alpha1: model (+) vs kube-apiserver (-):\n%s (apiVersion %s)", d, got[0].GetAPIVersion())
	}
	// The cases convert: v1's 3 is v1alpha1's "ttt" with the webhook's label.
	var ra apiservertest.GearV1alpha1
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
	err = real.Get(ctx, client.ObjectKey{Namespace: "default", Name: "a"}, &apiservertest.GearV1alpha1{})
	world.Process("op").Crash("test")
	_, modelErr := model.Convert(gearCRD(), []*unstructured.Unstructured{asUnstructured(t, &storedA, apiservertest.GearV1GV.WithKind("Gear"))}, apiservertest.GearV1alpha1GV.String())
	// The URL and the transport's error differ: envtest's webhook is given
	// by URL (a refused connection), the model's by service (no endpoints).
	prefix := `conversion webhook for conv.ctrlsim.dev/v1, Kind=Gear failed: Post "`
	if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "object not decodable") || !strings.Contains(err.Error(), prefix) {
		t.Errorf("kube-apiserver's read with the webhook down: %v", err)
	}
	if modelErr == nil || !strings.HasPrefix(modelErr.Error(), prefix) {
		t.Errorf("the model's conversion with the webhook down: %v, want it to begin %s", modelErr, prefix)
	}
}
