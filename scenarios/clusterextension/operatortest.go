package clusterextension

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clocktesting "k8s.io/utils/clock/testing"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	ce "github.com/ctrlsim/ctrlsim/controllers/clusterextension"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/models/catalog"
	"github.com/ctrlsim/ctrlsim/models/helm"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The helm/ entries as operatortest tests of the ClusterExtension
// controller's variants, written with the public API. The
// catalog is an outside system (CatalogSystem, models/catalog: publish adds a
// bundle and bumps the ClusterCatalog, as catalogd's unpack would); asking
// for a version and publishing one are domain steps; the RBAC, the
// ClusterCatalog and the ClusterExtension are seed objects, and with 1.0.0
// preinstalled so are the release record and the bundle's objects, written
// by models/helm's own Install (on a recording client), and the
// extension's status. The fault profile is crashes of the operator; the
// generic oracles judge beside release-settles (and no-version-skip).

// CatalogSystem is the catalog's name among the Systems.
const CatalogSystem = "catalog"

// InterruptedInstall is helm/interrupted-install: a fresh install of 1.0.0
// under crashes of the operator in the first 30 s.
func InterruptedInstall(v variant.Variant) operatortest.Options {
	return helmOptions(v, Options{}, 30*time.Second, false)
}

// InterruptedUpgrade is helm/interrupted-upgrade: 1.0.0 installed, 2.0.0
// asked for within 20 s, crashes of the operator in the first minute.
func InterruptedUpgrade(v variant.Variant) operatortest.Options {
	o := helmOptions(v, Options{Installed: "1.0.0"}, time.Minute, false)
	o.Workload.Domain = []operatortest.DomainStep{requestVersionStep("2.0.0")}
	return o
}

// InterruptedUpgradeNewVersion is helm/interrupted-upgrade-new-version: 1.0.0
// installed, the newest version (>=1.0.0) asked for within 20 s and 3.0.0
// published within 40 s, crashes of the operator in the first minute, judged
// by no-version-skip too.
func InterruptedUpgradeNewVersion(v variant.Variant) operatortest.Options {
	o := helmOptions(v, Options{Installed: "1.0.0"}, time.Minute, true)
	o.Workload.Domain = []operatortest.DomainStep{requestVersionStep(">=1.0.0"), publishStep()}
	return o
}

// Test is the world of cfg as an operatortest test with a fault phase and a
// heal budget, judged by release-settles and no-version-skip, every step of
// the world declared with any version and no fault class drawn (a plan's
// crashes are its text's): the world the package's specs replay their plans
// on (operatortest.Replay). Steps:
//
//	at 30s request-version version=2.0.0    the ClusterExtension's spec.source.catalog.version
//	at 35s publish version=3.0.0            catalogd serves a new bundle (1.0.0, 2.0.0 or 3.0.0)
func Test(cfg Options, faultPhase, heal time.Duration) operatortest.Options {
	o := helmOptions(cfg.Variant, cfg, faultPhase, true)
	request, publish := requestVersionStep(""), publishStep()
	request.Params, request.Keys, request.Draw = nil, []string{"version"}, func(*rapid.T) operatortest.Args { return versionArg("2.0.0") }
	publish.Params, publish.Keys, publish.Draw = nil, []string{"version"}, func(*rapid.T) operatortest.Args { return versionArg("3.0.0") }
	o.Workload.Domain = []operatortest.DomainStep{request, publish}
	o.Faults = operatortest.Faults{Classes: []plan.FaultKind{}}
	o.HealBudget = heal
	return o
}

func versionArg(v string) operatortest.Args { return operatortest.Args{{Key: "version", Value: v}} }

// publishStep publishes 3.0.0 within 40 s (the catalog system's publish).
func publishStep() operatortest.DomainStep {
	return operatortest.DomainStep{
		Name:   "publish",
		Params: []operatortest.Param{{Key: "version", Values: []string{"3.0.0"}}},
		Within: 40 * time.Second, Min: 1, Max: 1,
		Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
			return env.System(CatalogSystem).(*catalogSystem).publish(ctx, a.Get("version"))
		},
	}
}

func requestVersionStep(version string) operatortest.DomainStep {
	return operatortest.DomainStep{
		Name:   "request-version",
		Params: []operatortest.Param{{Key: "version", Values: []string{version}}},
		Within: 20 * time.Second, Min: 1, Max: 1,
		Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
			var ext ce.ClusterExtension
			if err := env.Client.Get(ctx, client.ObjectKey{Name: ExtensionName}, &ext); err != nil {
				return err
			}
			patch := client.MergeFrom(ext.DeepCopy())
			ext.Spec.Source.Catalog.Version = a.Get("version")
			return env.Client.Patch(ctx, &ext, patch)
		},
	}
}

// helmOptions are the options of every helm/ entry in the world of cfg.
func helmOptions(v variant.Variant, cfg Options, faultPhase time.Duration, noSkip bool) operatortest.Options {
	cfg = cfg.withDefaults()
	props := []operatortest.Property{world.FromCheck(ReleaseSettles(cfg.published))}
	if noSkip {
		props = append(props, world.FromCheck(NoVersionSkip()))
	}
	return operatortest.Options{
		Scheme: sharedScheme(),
		CRDs:   crds(),
		Managers: []operatortest.Manager{{
			Name:           ProcessName,
			ServiceAccount: &types.NamespacedName{Namespace: SystemNamespace, Name: ServiceAccount},
			SetupWithSystems: func(mgr manager.Manager, s operatortest.Systems) error {
				r := &ce.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: catalogue.ClockOf(mgr),
					Catalog: s[CatalogSystem].(*catalogSystem).Catalog, Variant: v}
				return r.SetupWithManager(mgr)
			},
		}},
		Objects: seedObjects(cfg),
		Systems: []operatortest.System{{
			Name: CatalogSystem,
			New: func(env operatortest.SystemEnv) (any, error) {
				s := &catalogSystem{Catalog: catalog.New(env.Clock), client: env.Client, generation: 1}
				for _, v := range cfg.Published {
					s.Add(Bundle(v))
				}
				return s, nil
			},
		}},
		Workload: operatortest.Workload{Steps: []operatortest.StepKind{}},
		Faults: operatortest.Faults{
			Classes:   []plan.FaultKind{plan.Crash},
			Processes: []string{ProcessName},
		},
		Properties: props,
		// Helm's release records are its history: each operation adds a
		// revision, and an interruption leaves one marked failed (or
		// deleted, by the fix) and one more after it. release-settles and
		// no-version-skip judge them.
		History:    []operatortest.HistoryObjects{{Kind: "Secret", Labels: map[string]string{"owner": "helm"}}},
		FaultPhase: faultPhase,
		// The operator is back within 20 s of the heal, and recovers in a
		// few reconciles.
		HealBudget:       time.Minute,
		NoWorkloadModels: true,
	}
}

// catalogSystem is the catalog and catalogd's side of it: publishing a
// bundle bumps the ClusterCatalog's resolved source, so that the
// controller is told.
type catalogSystem struct {
	*catalog.Catalog
	client     client.Client
	generation int
}

func (s *catalogSystem) publish(ctx context.Context, version string) error {
	if version != "1.0.0" && version != "2.0.0" && version != "3.0.0" {
		return fmt.Errorf("publish: no bundle %q (want 1.0.0, 2.0.0 or 3.0.0)", version)
	}
	s.Publish(Bundle(version))
	var cat ce.ClusterCatalog
	if err := s.client.Get(ctx, client.ObjectKey{Name: CatalogName}, &cat); err != nil {
		return err
	}
	s.generation++
	cat.Status.ResolvedSource = resolvedSource(s.generation)
	return s.client.Status().Update(ctx, &cat)
}

func resolvedSource(generation int) *ce.ResolvedCatalogSource {
	return &ce.ResolvedCatalogSource{Image: &ce.ResolvedImageSource{Ref: "quay.io/example/catalog@sha256:" + strconv.Itoa(generation)}}
}

// seedObjects are the world's objects before time starts: the operator's
// RBAC, the ClusterCatalog (unpacked once), the ClusterExtension and, with
// cfg.Installed, what an earlier incarnation of the operator left: the
// release record deployed, the bundle's objects, the finalizer and
// status.install.
func seedObjects(cfg Options) []client.Object {
	rule := func(group string, resources ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources,
			Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}
	}
	cat := &ce.ClusterCatalog{ObjectMeta: metav1.ObjectMeta{Name: CatalogName}}
	cat.Status.ResolvedSource = resolvedSource(1)
	ext := &ce.ClusterExtension{ObjectMeta: metav1.ObjectMeta{Name: ExtensionName}, Spec: ce.ClusterExtensionSpec{
		Namespace: InstallNamespace, ServiceAccount: ce.ServiceAccountReference{Name: "op-installer"},
		Source: ce.SourceConfig{SourceType: "Catalog", Catalog: &ce.CatalogFilter{PackageName: PackageName, Version: cfg.VersionRange}},
	}}
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: SystemNamespace}},
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: InstallNamespace}},
		&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: SystemNamespace, Name: ServiceAccount}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "operator-controller"}, Rules: []rbacv1.PolicyRule{
			rule(ce.GroupVersion.Group, "clusterextensions", "clusterextensions/status", "clustercatalogs"),
			rule("", "secrets", "configmaps", "serviceaccounts"),
			rule("apps", "deployments"),
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "operator-controller"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "operator-controller"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: SystemNamespace, Name: ServiceAccount}}},
		cat,
	}
	if cfg.Installed == "" {
		return append(objs, ext)
	}
	left, err := installedBefore(cfg.Installed)
	if err != nil {
		panic(err) // the model and the bundles are ours
	}
	b := Bundle(cfg.Installed)
	ext.SetFinalizers([]string{ce.Finalizer})
	ext.Generation = 1
	ext.Status.Install = &ce.ClusterExtensionInstallStatus{Bundle: ce.BundleMetadata{Name: b.Name, Version: b.Version}}
	ext.Status.Conditions = []metav1.Condition{
		{Type: ce.TypeInstalled, Status: metav1.ConditionTrue, Reason: ce.ReasonSucceeded,
			Message: fmt.Sprintf("Installed bundle %s successfully", b.Image), ObservedGeneration: 1, LastTransitionTime: metav1.Unix(0, 0)},
		{Type: ce.TypeProgressing, Status: metav1.ConditionTrue, Reason: ce.ReasonSucceeded,
			Message: "desired state reached", ObservedGeneration: 1, LastTransitionTime: metav1.Unix(0, 0)},
	}
	return append(append(objs, ext), left...)
}

// installedBefore is what installing version left in the install
// namespace: models/helm's Install of the bundle, as the operator makes it,
// on a client that records the objects (the release record, a Secret, and
// the bundle's objects), returned as seed objects.
func installedBefore(version string) ([]client.Object, error) {
	rec := fake.NewClientBuilder().WithScheme(sharedScheme()).WithRESTMapper(testrestmapper.TestOnlyStaticRESTMapper(sharedScheme())).Build()
	b := Bundle(version)
	chart := &helm.Chart{Name: b.Package, Version: b.Version}
	for _, o := range b.Objects {
		obj := o.DeepCopyObject().(client.Object)
		obj.SetLabels(map[string]string{ce.OwnerKindLabel: ce.ClusterExtensionGVK.Kind, ce.OwnerNameLabel: ExtensionName})
		chart.Objects = append(chart.Objects, obj)
	}
	labels := map[string]string{ce.BundleNameLabel: b.Name, ce.PackageNameLabel: b.Package,
		ce.BundleVersionLabel: b.Version, ce.BundleReferenceLabel: b.Image}
	h := helm.New(helm.Config{Client: rec, Clock: clocktesting.NewFakeClock(time.Unix(0, 0)), Namespace: InstallNamespace})
	ctx := context.Background()
	if _, err := h.Install(ctx, ExtensionName, chart, helm.InstallOptions{Labels: labels}); err != nil {
		return nil, fmt.Errorf("preinstall %s: %w", version, err)
	}
	var out []client.Object
	for _, list := range []client.ObjectList{&corev1.SecretList{}, &corev1.ConfigMapList{}, &corev1.ServiceAccountList{}, &appsv1.DeploymentList{}} {
		if err := rec.List(ctx, list, client.InNamespace(InstallNamespace)); err != nil {
			return nil, err
		}
		items, err := apimeta.ExtractList(list)
		if err != nil {
			return nil, err
		}
		for _, item := range items {
			o := item.(client.Object)
			o.SetResourceVersion("")
			out = append(out, o)
		}
	}
	return out, nil
}

// OnOperatortest are the helm/ entries (Entries, their text) with their
// tests: what the catalogue runs.
func OnOperatortest() []*catalogue.Entry {
	tests := map[string]func(variant.Variant) operatortest.Options{
		"helm/interrupted-install":             InterruptedInstall,
		"helm/interrupted-upgrade":             InterruptedUpgrade,
		"helm/interrupted-upgrade-new-version": InterruptedUpgradeNewVersion,
	}
	return catalogue.Ported(Entries(), tests)
}

// crds are the CRDs of the world as manifests (envtest's, from the Go types).
var crds = sync.OnceValue(func() [][]byte {
	return catalogue.CRDManifests(envtestenv.CRD{GVK: ce.ClusterExtensionGVK, Plural: "clusterextensions", Status: true, Type: &ce.ClusterExtension{}},
		envtestenv.CRD{GVK: ce.ClusterCatalogGVK, Plural: "clustercatalogs", Status: true, Type: &ce.ClusterCatalog{}})
})
