package bundledeployment

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/helm"
)

const gapBD = "web"

// gapStorage serves every BundleDeployment n the bundle Namespace n and
// ConfigMap n/config, at once.
type gapStorage struct{ loads int }

func (s *gapStorage) Load(_ context.Context, bd *BundleDeployment) (*Bundle, error) {
	s.loads++
	return &Bundle{Name: bd.Name + "-" + bd.Ref(), Objects: []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: bd.Name}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: bd.Name, Name: "config", Labels: map[string]string{"app": "mine"}},
			Data: map[string]string{"k": "v"}},
	}}, nil
}

// gapRig is a Reconciler of v on a fake client holding BundleDeployment web
// of the plain provisioner, whose template names the class templateClass.
type gapRig struct {
	r       *Reconciler
	c       client.Client
	s       *gapStorage
	watches []string
}

func newGapRig(t *testing.T, v variant.Variant, templateClass string) *gapRig {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	bd := &BundleDeployment{ObjectMeta: metav1.ObjectMeta{Name: gapBD, UID: "uid-web"}, Spec: BundleDeploymentSpec{
		ProvisionerClassName: PlainProvisionerID,
		Template: BundleTemplate{Spec: BundleSpec{ProvisionerClassName: templateClass,
			Source: BundleSource{Type: "image", Image: &ImageSource{Ref: "v1"}}}},
	}}
	g := &gapRig{s: &gapStorage{}}
	g.c = fake.NewClientBuilder().WithScheme(s).WithRESTMapper(testrestmapper.TestOnlyStaticRESTMapper(s)).WithObjects(bd,
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "rukpak-system"}}).WithStatusSubresource(&BundleDeployment{}).Build()
	g.r = g.reconciler(v)
	return g
}

// reconciler is a new Reconciler (a process start) on g's client.
func (g *gapRig) reconciler(v variant.Variant) *Reconciler {
	return &Reconciler{Client: g.c, Clock: clocktesting.NewFakeClock(time.Date(2022, 9, 1, 0, 0, 0, 0, time.UTC)),
		Variant: v, Storage: g.s, ReleaseNamespace: "rukpak-system",
		Watcher: WatcherFunc(func(obj client.Object) error {
			g.watches = append(g.watches, obj.GetObjectKind().GroupVersionKind().Kind)
			return nil
		})}
}

func (g *gapRig) reconcile(t *testing.T) {
	t.Helper()
	if _, err := g.r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Name: gapBD}}); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
}

func (g *gapRig) bd(t *testing.T) *BundleDeployment {
	t.Helper()
	var bd BundleDeployment
	if err := g.c.Get(context.Background(), types.NamespacedName{Name: gapBD}, &bd); err != nil {
		t.Fatal(err)
	}
	return &bd
}

func TestTheBundleIsValidAtTheFirstReconcileWithNoBundleObject(t *testing.T) {
	g := newGapRig(t, variant.Buggy, "core-rukpak-io-registry")
	g.reconcile(t)
	c := apimeta.FindStatusCondition(g.bd(t).Status.Conditions, TypeHasValidBundle)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != ReasonUnpackSuccessful || g.s.loads != 1 {
		t.Fatalf("HasValidBundle %+v after %d loads, want True/UnpackSuccessful from the first reconcile's one load", c, g.s.loads)
	}
	if kinds := g.c.Scheme().KnownTypes(GroupVersion); len(kinds) == 0 || kinds["Bundle"] != nil {
		t.Errorf("kinds of %s: %v, want BundleDeployment and no Bundle", GroupVersion, slices.Sorted(maps.Keys(kinds)))
	}
}

func TestAnInstalledObjectIsTheBundlesWithOnlyTheOwnerLabelsAndReference(t *testing.T) {
	g := newGapRig(t, variant.Buggy, "core-rukpak-io-registry")
	g.reconcile(t)
	var cm corev1.ConfigMap
	if err := g.c.Get(context.Background(), types.NamespacedName{Namespace: gapBD, Name: "config"}, &cm); err != nil {
		t.Fatal(err)
	}
	// The owner labels replace the bundle's own; helm's ownership metadata
	// is all the rest (no values, no notes, no other post-renderer).
	want := map[string]string{OwnerKindLabel: BundleDeploymentGVK.Kind, OwnerNameLabel: gapBD, "app.kubernetes.io/managed-by": "Helm"}
	helmAnnotations := map[string]string{"meta.helm.sh/release-name": gapBD, "meta.helm.sh/release-namespace": "rukpak-system"}
	if !maps.Equal(cm.Labels, want) || !maps.Equal(cm.Annotations, helmAnnotations) || !maps.Equal(cm.Data, map[string]string{"k": "v"}) {
		t.Errorf("ConfigMap labels %v, annotations %v, data %v; want only the owner labels and helm's %v, helm's annotations, and the bundle's data",
			cm.Labels, cm.Annotations, cm.Data, want)
	}
	if refs := cm.OwnerReferences; len(refs) != 1 || refs[0].Name != gapBD || refs[0].Controller == nil || !*refs[0].Controller {
		t.Errorf("owner references %+v, want the BundleDeployment as controller", refs)
	}
}

func TestABundleDeploymentGetsNoFinalizerAndAnyTemplateClassIsInstalled(t *testing.T) {
	g := newGapRig(t, variant.Fixed, "no-such-provisioner")
	g.reconcile(t)
	bd := g.bd(t)
	if c := apimeta.FindStatusCondition(bd.Status.Conditions, TypeInstalled); c == nil || c.Status != metav1.ConditionTrue {
		t.Fatalf("Installed %+v, want True whatever the template's provisioner class", c)
	}
	if len(bd.Finalizers) != 0 {
		t.Fatalf("finalizers %v, want none", bd.Finalizers)
	}
	if err := g.c.Delete(context.Background(), bd); err != nil {
		t.Fatal(err)
	}
	g.reconcile(t)
	var cm corev1.ConfigMap
	if err := g.c.Get(context.Background(), types.NamespacedName{Namespace: gapBD, Name: "config"}, &cm); err != nil {
		t.Errorf("the release's ConfigMap after the BundleDeployment's deletion: %v, want it left (no uninstall)", err)
	}
	if err := g.c.Get(context.Background(), types.NamespacedName{Name: gapBD}, &BundleDeployment{}); !apierrors.IsNotFound(err) {
		t.Errorf("the BundleDeployment: %v, want it gone at once", err)
	}
}

func TestTheDynamicWatchesAreForgottenAtARestartAndRebuiltByTheNextInstall(t *testing.T) {
	g := newGapRig(t, variant.Buggy, "core-rukpak-io-registry")
	g.reconcile(t)
	g.reconcile(t)
	if len(g.watches) != 2 {
		t.Fatalf("watches %v after two reconciles, want Namespace and ConfigMap once", g.watches)
	}
	g.r = g.reconciler(variant.Buggy) // a restart
	g.reconcile(t)
	if len(g.watches) != 4 {
		t.Errorf("watches %v after a restart's reconcile, want both started again", g.watches)
	}
}

func TestAnExpectationIsKeyedByNameSoARecreatedObjectsDeletionIsIgnoredOnce(t *testing.T) {
	g := newGapRig(t, variant.Robust, "core-rukpak-io-registry")
	s := g.c.Scheme()
	failed := `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"extra"}}`
	g.r.expectDeletions(releaseOf(failed), nil)
	recreated := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "extra", UID: "a-user's"}}
	if !g.r.ownDeletion(recreated, s, true) {
		t.Fatal("a user's deletion of the re-created namespace, before the cleanup's own delete event: want it taken as the cleanup's")
	}
	if g.r.ownDeletion(recreated, s, true) {
		t.Error("the next deletion: want it seen (the expectation was used once)")
	}
	if g.reconciler(variant.Robust).ownDeletion(recreated, s, true) {
		t.Error("a restarted reconciler expects nothing")
	}
}

func releaseOf(manifest string) *helm.Release { return &helm.Release{Manifest: manifest} }
