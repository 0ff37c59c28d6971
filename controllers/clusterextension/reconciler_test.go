package clusterextension_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	testingclock "k8s.io/utils/clock/testing"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	ce "github.com/ctrlsim/ctrlsim/controllers/clusterextension"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/catalog"
	"github.com/ctrlsim/ctrlsim/models/helm"
)

var epoch = time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)

func bundle(v string, from ...string) catalog.Bundle {
	return catalog.Bundle{Package: "op", Name: "op.v" + v, Version: v, Image: "quay.io/op-bundle:v" + v, UpgradesFrom: from,
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "op-config"}, Data: map[string]string{"version": v}}}}
}

type fixture struct {
	t   *testing.T
	c   client.Client
	r   *ce.Reconciler
	h   *helm.Helm
	clk *testingclock.FakeClock
}

func newFixture(t *testing.T, v variant.Variant, versionRange string) *fixture {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = ce.AddToScheme(scheme)
	ext := &ce.ClusterExtension{ObjectMeta: metav1.ObjectMeta{Name: "op"}, Spec: ce.ClusterExtensionSpec{Namespace: "op-system",
		Source: ce.SourceConfig{SourceType: "Catalog", Catalog: &ce.CatalogFilter{PackageName: "op", Version: versionRange}}}}
	c := fake.NewClientBuilder().WithScheme(scheme).WithRESTMapper(testrestmapper.TestOnlyStaticRESTMapper(scheme)).
		WithObjects(ext).WithStatusSubresource(ext).Build()
	clk := testingclock.NewFakeClock(epoch)
	cat := catalog.New(clk, bundle("1.0.0"), bundle("2.0.0", "1.0.0"))
	return &fixture{t: t, c: c, clk: clk,
		r: &ce.Reconciler{Client: c, Clock: clk, Catalog: cat, Variant: v},
		h: helm.New(helm.Config{Client: c, Clock: clk, Namespace: "op-system"})}
}

func (f *fixture) reconcile() error {
	_, err := f.r.Reconcile(context.Background(), ctrl.Request{NamespacedName: types.NamespacedName{Name: "op"}})
	return err
}

func (f *fixture) records() string {
	f.t.Helper()
	hist, err := f.h.History(context.Background(), "op")
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, r := range hist {
		out = append(out, r.Info.Status.String()+"("+r.Labels[ce.BundleVersionLabel]+")")
	}
	return strings.Join(out, " ")
}

// The reconciler is ordinary controller-runtime code: on a fake client it adds
// its finalizer, then installs the resolved bundle and reports it.
func TestReconcileInstallsTheResolvedBundle(t *testing.T) {
	f := newFixture(t, variant.Buggy, "")
	for range 2 {
		if err := f.reconcile(); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.records(); got != "deployed(2.0.0)" {
		t.Errorf("records %s, want 2.0.0 deployed", got)
	}
	var ext ce.ClusterExtension
	_ = f.c.Get(context.Background(), client.ObjectKey{Name: "op"}, &ext)
	if ext.Status.Install == nil || ext.Status.Install.Bundle.Version != "2.0.0" || len(ext.Finalizers) != 1 {
		t.Errorf("status %+v finalizers %v, want 2.0.0 installed and the finalizer", ext.Status, ext.Finalizers)
	}
}

// With the latest record pending-upgrade (an interrupted upgrade to 2.0.0 from
// a deployed 1.0.0), each variant does what seed 2 says.
func TestPendingRecordPerVariant(t *testing.T) {
	for _, tc := range []struct {
		v       variant.Variant
		err     string
		records string
	}{
		{variant.Buggy, "failed to get release state using server-side dry-run: another operation (install/upgrade/rollback) is in progress",
			"deployed(1.0.0) pending-upgrade(2.0.0)"},
		{variant.Fixed, `removed pending release "op" version 2 metadata`, "deployed(1.0.0)"},
		{variant.Robust, "", "superseded(1.0.0) failed(2.0.0) deployed(2.0.0)"},
	} {
		t.Run(string(tc.v), func(t *testing.T) {
			f := newFixture(t, tc.v, "1.0.0")
			for range 2 {
				if err := f.reconcile(); err != nil {
					t.Fatal(err)
				}
			}
			ctx := context.Background()
			pending := &helm.Release{Name: "op", Namespace: "op-system", Version: 2, Info: helm.Info{Status: helm.StatusPendingUpgrade},
				Chart: helm.ChartMetadata{Name: "op", Version: "2.0.0"}, Labels: map[string]string{ce.BundleVersionLabel: "2.0.0", ce.PackageNameLabel: "op"}}
			last, _ := f.h.Get(ctx, "op")
			pending.Manifest = strings.ReplaceAll(last.Manifest, `"version":"1.0.0"`, `"version":"2.0.0"`)
			if err := f.h.Releases.Create(ctx, pending); err != nil {
				t.Fatal(err)
			}
			var ext ce.ClusterExtension
			_ = f.c.Get(ctx, client.ObjectKey{Name: "op"}, &ext)
			ext.Spec.Source.Catalog.Version = ">=1.0.0"
			if err := f.c.Update(ctx, &ext); err != nil {
				t.Fatal(err)
			}
			err := f.reconcile()
			if (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
			if got := f.records(); got != tc.records {
				t.Errorf("records %s, want %s", got, tc.records)
			}
		})
	}
}

// Robust: a pending record written after this process started may belong to a
// live writer (a human's helm upgrade, another replica): it is left alone until
// PendingTimeout has passed since it was written, then taken over.
func TestRobustWaitsForAPendingRecordItDidNotOutlive(t *testing.T) {
	f := newFixture(t, variant.Robust, "1.0.0")
	f.r.Started = epoch
	ctx := context.Background()
	pending := &helm.Release{Name: "op", Namespace: "op-system", Version: 1, Info: helm.Info{Status: helm.StatusPendingInstall},
		Chart: helm.ChartMetadata{Name: "op", Version: "1.0.0"}, Labels: map[string]string{ce.BundleVersionLabel: "1.0.0", ce.PackageNameLabel: "op"}}
	if err := f.h.Releases.Create(ctx, pending); err != nil {
		t.Fatal(err)
	}
	var sec corev1.Secret
	key := client.ObjectKey{Namespace: "op-system", Name: helm.Key("op", 1)}
	_ = f.c.Get(ctx, key, &sec)
	sec.CreationTimestamp = metav1.NewTime(epoch.Add(time.Minute)) // the fake client does not stamp it
	if err := f.c.Update(ctx, &sec); err != nil {
		t.Fatal(err)
	}
	f.clk.Step(2 * time.Minute)
	_ = f.reconcile() // finalizer
	res, err := f.r.Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Name: "op"}})
	if err != nil || res.RequeueAfter != 4*time.Minute {
		t.Fatalf("result %+v error %v, want a requeue when the 5m since the record was written are over", res, err)
	}
	if got := f.records(); got != "pending-install(1.0.0)" {
		t.Errorf("records %s, want the live writer's record untouched", got)
	}
	f.clk.Step(4 * time.Minute)
	if err := f.reconcile(); err != nil {
		t.Fatal(err)
	}
	// The hand-made record has an empty manifest: completing it deploys nothing
	// (v2), then the bundle's own content is applied (v3).
	if got := f.records(); got != "superseded(1.0.0) superseded(1.0.0) deployed(1.0.0)" {
		t.Errorf("records %s, want the record taken over and 1.0.0 completed", got)
	}
}
