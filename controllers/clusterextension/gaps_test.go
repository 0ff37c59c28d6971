package clusterextension_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ce "github.com/ctrlsim/ctrlsim/controllers/clusterextension"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/helm"
)

// installed reconciles f's extension twice (the finalizer, then the install).
func (f *fixture) installed() *ce.ClusterExtension {
	f.t.Helper()
	for range 2 {
		if err := f.reconcile(); err != nil {
			f.t.Fatal(err)
		}
	}
	return f.ext()
}

func (f *fixture) ext() *ce.ClusterExtension {
	f.t.Helper()
	var ext ce.ClusterExtension
	if err := f.c.Get(context.Background(), client.ObjectKey{Name: "op"}, &ext); err != nil {
		f.t.Fatal(err)
	}
	return &ext
}

func TestAnExtensionInstallsWithTheControllersClientAndNoOtherConditions(t *testing.T) {
	f := newFixture(t, variant.Fixed, "")
	ext := f.ext()
	ext.Spec.ServiceAccount.Name = "no-such-installer" // and no RBAC for it either
	ext.Spec.Source.Catalog.Channels = []string{"no-such-channel"}
	if err := f.c.Update(context.Background(), ext); err != nil {
		t.Fatal(err)
	}
	ext = f.installed()
	if ext.Status.Install == nil || ext.Status.Install.Bundle.Version != "2.0.0" {
		t.Fatalf("install %+v, want 2.0.0 installed by the controller's own client, whatever the channel", ext.Status.Install)
	}
	var types []string
	for _, c := range ext.Status.Conditions {
		types = append(types, c.Type)
	}
	slices.Sort(types)
	if !slices.Equal(types, []string{"Installed", "Progressing"}) {
		t.Errorf("conditions %v, want Installed and Progressing only (no deprecation conditions)", types)
	}
}

func TestDeletingAnExtensionUninstallsNothing(t *testing.T) {
	f := newFixture(t, variant.Robust, "")
	ext := f.installed()
	ctx := context.Background()
	if err := f.c.Delete(ctx, ext); err != nil {
		t.Fatal(err)
	}
	if err := f.reconcile(); err != nil {
		t.Fatal(err)
	}
	if err := f.c.Get(ctx, client.ObjectKey{Name: "op"}, &ce.ClusterExtension{}); err == nil {
		t.Fatal("the extension is still there, want its finalizer removed")
	}
	if err := f.c.Get(ctx, client.ObjectKey{Namespace: "op-system", Name: "op-config"}, &corev1.ConfigMap{}); err != nil {
		t.Errorf("the bundle's ConfigMap: %v, want it left installed", err)
	}
	if got := f.records(); got != "deployed(2.0.0)" {
		t.Errorf("records %q, want the release left deployed", got)
	}
}

func TestReleaseRecordsLiveInTheInstallNamespaceWithTheirLabelsInTheData(t *testing.T) {
	f := newFixture(t, variant.Buggy, "")
	f.installed()
	var secrets corev1.SecretList
	if err := f.c.List(context.Background(), &secrets); err != nil {
		t.Fatal(err)
	}
	if len(secrets.Items) != 1 || secrets.Items[0].Namespace != "op-system" || secrets.Items[0].Name != helm.Key("op", 1) {
		t.Fatalf("%d records, want one, %s in op-system", len(secrets.Items), helm.Key("op", 1))
	}
	rec := secrets.Items[0]
	if _, ok := rec.Labels[ce.BundleVersionLabel]; ok {
		t.Errorf("record labels %v, want the custom labels kept in the data only", rec.Labels)
	}
	rel, err := f.h.Get(context.Background(), "op")
	if err != nil || rel.Labels[ce.BundleVersionLabel] != "2.0.0" {
		t.Errorf("release labels %v (%v), want the bundle version from the record's data", rel.Labels, err)
	}
}

// A replica that starts after another replica wrote its pending record takes
// the record for an interrupted one at once, live writer or not.
func TestAReplicaStartedAfterAPendingRecordTakesItOverAtOnce(t *testing.T) {
	f := newFixture(t, variant.Robust, "1.0.0")
	ctx := context.Background()
	pending := &helm.Release{Name: "op", Namespace: "op-system", Version: 1, Info: helm.Info{Status: helm.StatusPendingInstall},
		Chart: helm.ChartMetadata{Name: "op", Version: "1.0.0"}, Labels: map[string]string{ce.BundleVersionLabel: "1.0.0", ce.PackageNameLabel: "op"}}
	if err := f.h.Releases.Create(ctx, pending); err != nil { // the other replica's, at epoch
		t.Fatal(err)
	}
	f.clk.Step(time.Minute)
	f.r.Started = f.clk.Now() // this replica starts a minute later
	var sec corev1.Secret
	key := client.ObjectKey{Namespace: "op-system", Name: helm.Key("op", 1)}
	if err := f.c.Get(ctx, key, &sec); err != nil {
		t.Fatal(err)
	}
	sec.CreationTimestamp = metav1.NewTime(epoch) // the fake client does not stamp it
	if err := f.c.Update(ctx, &sec); err != nil {
		t.Fatal(err)
	}
	f.installed()
	if got := f.records(); got != "superseded(1.0.0) superseded(1.0.0) deployed(1.0.0)" {
		t.Errorf("records %s, want the other replica's pending record taken over within its PendingTimeout", got)
	}
}
