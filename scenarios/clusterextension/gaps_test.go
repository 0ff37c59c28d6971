package clusterextension

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	ce "github.com/ctrlsim/ctrlsim/controllers/clusterextension"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/catalog"
	"github.com/ctrlsim/ctrlsim/models/helm"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

var gapStart = time.Date(2025, 5, 1, 0, 0, 0, 0, time.UTC)

func TestRequestAndPublishAreDrawnIndependently(t *testing.T) {
	steps := map[string]operatortest.DomainStep{}
	for _, d := range InterruptedUpgradeNewVersion(variant.Fixed).Workload.Domain {
		steps[d.Name] = d
	}
	req, pub := steps["request-version"], steps["publish"]
	if req.Within != 20*time.Second || pub.Within != 40*time.Second || req.After != "" || pub.After != "" || req.From != 0 || pub.From != 0 {
		t.Errorf("request-version within %v after %q, publish within %v after %q: want [0, 20s] and [0, 40s], neither after the other",
			req.Within, req.After, pub.Within, pub.After)
	}
}

func TestOneOperatorReplicaAndNoOtherHelmWriter(t *testing.T) {
	for _, e := range OnOperatortest() {
		o := e.Test(variant.Robust)
		if len(o.Managers) != 1 || o.Managers[0].Name != ProcessName || len(o.Systems) != 1 || o.Systems[0].Name != CatalogSystem {
			t.Errorf("%s: %d managers and %d systems, want the one operator and the catalog", e.ID, len(o.Managers), len(o.Systems))
		}
	}
}

func TestPublishingBumpsTheClusterCatalogAndKeepsTheBundleInMemory(t *testing.T) {
	p, err := plan.Parse("seed 1\nat 5s publish version=3.0.0\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := operatortest.Replay(t, catalogue.ForSpecs(Test(Options{}, 10*time.Second, time.Millisecond)), p)
	if err != nil {
		t.Fatal(err)
	}
	var bumps []time.Duration
	for _, s := range r.Steps {
		if s.Op == "update/status" && s.Object == "ClusterCatalog "+CatalogName && s.Result == "ok" && s.At > 0 { // after the seed objects
			bumps = append(bumps, s.At)
		}
	}
	if len(bumps) != 1 || bumps[0] != 5*time.Second {
		t.Fatalf("ClusterCatalog status written at %v, want once after the start, at the publish (5s)", bumps)
	}
	var cat ce.ClusterCatalog
	if err := r.Final.Get(client.ObjectKey{Name: CatalogName}, &cat); err != nil {
		t.Fatal(err)
	}
	if cat.Status.ResolvedSource == nil || !strings.HasSuffix(cat.Status.ResolvedSource.Image.Ref, ":2") {
		t.Errorf("resolved source %+v, want the second generation", cat.Status.ResolvedSource)
	}
	for _, k := range r.Final.Run().Kinds {
		if k.Group == ce.GroupVersion.Group && k.Kind != "ClusterExtension" && k.Kind != "ClusterCatalog" {
			t.Errorf("the cluster serves %s: want the catalog's content in memory only", k)
		}
	}
}

// records makes the Secrets of releases, as helm's storage writes them.
func records(t *testing.T, rels ...*helm.Release) []*corev1.Secret {
	t.Helper()
	c := fake.NewClientBuilder().WithScheme(sharedScheme()).WithRESTMapper(testrestmapper.TestOnlyStaticRESTMapper(sharedScheme())).Build()
	h := helm.New(helm.Config{Client: c, Clock: clocktesting.NewFakeClock(gapStart), Namespace: InstallNamespace})
	var out []*corev1.Secret
	for _, rel := range rels {
		if err := h.Releases.Create(context.Background(), rel); err != nil {
			t.Fatal(err)
		}
		var sec corev1.Secret
		if err := c.Get(context.Background(), client.ObjectKey{Namespace: InstallNamespace, Name: helm.Key(rel.Name, rel.Version)}, &sec); err != nil {
			t.Fatal(err)
		}
		out = append(out, &sec)
	}
	return out
}

func release(version int, status helm.Status, bundle string) *helm.Release {
	return &helm.Release{Name: ExtensionName, Namespace: InstallNamespace, Version: version, Info: helm.Info{Status: status},
		Labels: map[string]string{ce.BundleVersionLabel: bundle}}
}

// A pending revision towards 2.0.0 followed by a deployed 3.0.0, with the
// range still admitting 2.0.0: no-version-skip calls it a skip, whoever
// wrote the pending revision (an interrupted operation, or a live writer's
// still under way).
func TestNoVersionSkipTakesAnyPendingRevisionForAnOperationsStart(t *testing.T) {
	ext := &ce.ClusterExtension{ObjectMeta: metav1.ObjectMeta{Name: ExtensionName},
		Spec: ce.ClusterExtensionSpec{Source: ce.SourceConfig{Catalog: &ce.CatalogFilter{PackageName: PackageName, Version: ">=1.0.0"}}}}
	secs := records(t, release(1, helm.StatusDeployed, "1.0.0"), release(2, helm.StatusPendingUpgrade, "2.0.0"), release(3, helm.StatusDeployed, "3.0.0"))
	log := []apiserver.Event{{Type: watch.Added, GVK: ce.ClusterExtensionGVK, Object: ext, At: gapStart}}
	for i, sec := range secs {
		log = append(log, apiserver.Event{Type: watch.Added, GVK: secretGVK, Object: sec, At: gapStart.Add(time.Duration(i+1) * time.Second)})
	}
	v := NoVersionSkip().Check(&check.Run{Log: log, Start: gapStart, End: time.Minute})
	if v.Holds || !strings.Contains(v.Detail, "revision 2 went pending towards 2.0.0") {
		t.Errorf("no-version-skip: %s, want it violated by revision 2", v)
	}
}

// With 3.0.0 upgrading from 2.0.0 only, resolution from 1.0.0 gives 2.0.0,
// but release-settles desires 3.0.0, the highest the range admits.
func TestReleaseSettlesDesiresTheHighestAdmittedVersionNotTheResolversAnswer(t *testing.T) {
	b1, b2, b3 := Bundle("1.0.0"), Bundle("2.0.0"), Bundle("3.0.0")
	b3.UpgradesFrom = []string{"2.0.0"}
	cat := catalog.New(clocktesting.NewFakeClock(gapStart), b1, b2, b3)
	got, err := cat.Resolve(catalog.Request{Package: PackageName, VersionRange: ">=1.0.0", Installed: "1.0.0", Policy: catalog.CatalogProvided})
	if err != nil || got.Version != "2.0.0" {
		t.Fatalf("resolution from 1.0.0: %s (%v), want 2.0.0 (a gap in the upgrade graph)", got.Version, err)
	}
	ext := &ce.ClusterExtension{ObjectMeta: metav1.ObjectMeta{Name: ExtensionName},
		Spec: ce.ClusterExtensionSpec{Source: ce.SourceConfig{Catalog: &ce.CatalogFilter{PackageName: PackageName, Version: ">=1.0.0"}}}}
	run := &check.Run{Objects: func(gvk schema.GroupVersionKind) []client.Object {
		if gvk == ce.ClusterExtensionGVK {
			return []client.Object{ext}
		}
		return nil
	}}
	if want, err := desiredVersion(run, []string{"1.0.0", "2.0.0", "3.0.0"}); err != nil || want != "3.0.0" {
		t.Errorf("desired version %s (%v), want 3.0.0", want, err)
	}
}
