package clusterextension

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ce "github.com/ctrlsim/ctrlsim/controllers/clusterextension"
	"github.com/ctrlsim/ctrlsim/controllers/clusterextension/bundletest"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/catalog"
	"github.com/ctrlsim/ctrlsim/models/helm"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// The world's names.
const (
	ProcessName      = "operator-controller" // the operator pod
	SystemNamespace  = "olmv1-system"        // where it runs
	ServiceAccount   = "operator-controller" // its identity
	InstallNamespace = "op-system"           // the extension's install (and release) namespace
	ExtensionName    = "op"                  // the ClusterExtension, and the helm release name
	PackageName      = bundletest.PackageName
	CatalogName      = "operatorhubio"
)

// CRDs are the custom resources the world serves.
var CRDs = []apiserver.CRD{
	{GVK: ce.ClusterExtensionGVK, Status: true, Plural: "clusterextensions"},
	{GVK: ce.ClusterCatalogGVK, Status: true, Plural: "clustercatalogs"},
}

// Scheme is client-go's scheme with ClusterExtension and ClusterCatalog.
func Scheme() *runtime.Scheme { return catalogue.NewScheme(ce.AddToScheme) }

// sharedScheme is one Scheme for every world: a scheme is only read once built,
// and building client-go's costs more than a short run of this world.
var sharedScheme = sync.OnceValue(Scheme)

// Bundle returns the content of package op at a version (bundletest.Bundle).
func Bundle(version string) catalog.Bundle { return bundletest.Bundle(version) }

// Options choose the controller and the catalog's starting content.
type Options struct {
	Variant variant.Variant
	// Published are the versions in the catalog from the start; default 1.0.0 and
	// 2.0.0. Others appear with the publish action.
	Published []string
	// VersionRange is the ClusterExtension's spec.source.catalog.version at the
	// start; default "1.0.0".
	VersionRange string
	// Installed, when set, is a version already installed when the run starts, as
	// an earlier incarnation of the operator left it (see preinstall); "" is a
	// fresh cluster where the operator's first reconcile installs.
	Installed string
}

// withDefaults fills what o leaves unset.
func (o Options) withDefaults() Options {
	if o.Published == nil {
		o.Published = []string{"1.0.0", "2.0.0"}
	}
	if o.VersionRange == "" {
		o.VersionRange = "1.0.0"
	}
	return o
}

// world is one run's world: its catalog lives outside the API server
// (catalogd) and is created with the cluster's clock.
type world struct {
	Options
	Catalog           *catalog.Catalog
	catalogGeneration int
}

// World is the world of o: operator-controller running the reference
// ClusterExtension controller of o.Variant as its own ServiceAccount, with a
// ClusterRole granting what it needs (its own kinds, release record Secrets and
// the kinds of the bundles), the install namespace, a ClusterCatalog and the
// ClusterExtension op.
func World(o Options) cluster.Options {
	w := &world{Options: o.withDefaults()}
	return cluster.Options{
		Scheme: sharedScheme(),
		CRDs:   CRDs,
		Processes: []process.Spec{{
			Name:           ProcessName,
			ServiceAccount: &types.NamespacedName{Namespace: SystemNamespace, Name: ServiceAccount},
			Setup:          w.setupProcess,
		}},
		Setup: w.setup,
		Actions: map[string]cluster.Action{
			// Example: at 1m publish version=3.0.0
			"publish": cluster.Act(w.publish, "version"),
			// Example: at 30s request-version version=>=1.0.0
			"request-version": cluster.Act(requestVersion, "version"),
		},
	}
}

// setupProcess is operator-controller's main: the controller's own
// SetupWithManager on the process's manager.
func (w *world) setupProcess(p *process.Process) error {
	mgr := p.Manager()
	r := &ce.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: p.Clock(),
		Catalog: w.Catalog, Variant: w.Variant}
	return r.SetupWithManager(mgr)
}

func (w *world) setup(c *cluster.Cluster) error {
	w.Catalog, w.catalogGeneration = catalog.New(c.Clock), 0
	for _, v := range w.Published {
		w.Catalog.Add(Bundle(v))
	}
	ctx := context.Background()
	a := c.Admin()
	rule := func(group string, resources ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources,
			Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}
	}
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
		&ce.ClusterCatalog{ObjectMeta: metav1.ObjectMeta{Name: CatalogName}},
		&ce.ClusterExtension{ObjectMeta: metav1.ObjectMeta{Name: ExtensionName}, Spec: ce.ClusterExtensionSpec{
			Namespace: InstallNamespace, ServiceAccount: ce.ServiceAccountReference{Name: "op-installer"},
			Source: ce.SourceConfig{SourceType: "Catalog", Catalog: &ce.CatalogFilter{PackageName: PackageName, Version: w.VersionRange}},
		}},
	}
	if w.Installed != "" { // the ClusterExtension (last) already has its finalizer
		objs[len(objs)-1].SetFinalizers([]string{ce.Finalizer})
	}
	for _, o := range objs {
		if err := a.Create(ctx, o); err != nil {
			return err
		}
	}
	if w.Installed != "" {
		if err := w.preinstall(c); err != nil {
			return err
		}
	}
	return w.bumpCatalog(c)
}

// preinstall is what an earlier incarnation of the operator left after
// installing w.Installed: release record v1 deployed and its objects, written by
// the helm model with the chart and storage labels the controller uses
// (chartFor and storeLabels in controllers/clusterextension), and the
// ClusterExtension's status as the controller writes it. The operator's first
// reconcile then finds the release Unchanged and writes nothing.
func (w *world) preinstall(c *cluster.Cluster) error {
	ctx := context.Background()
	b := Bundle(w.Installed)
	chart := &helm.Chart{Name: b.Package, Version: b.Version}
	for _, o := range b.Objects {
		obj := o.DeepCopyObject().(client.Object)
		obj.SetLabels(map[string]string{ce.OwnerKindLabel: ce.ClusterExtensionGVK.Kind, ce.OwnerNameLabel: ExtensionName})
		chart.Objects = append(chart.Objects, obj)
	}
	labels := map[string]string{ce.BundleNameLabel: b.Name, ce.PackageNameLabel: b.Package,
		ce.BundleVersionLabel: b.Version, ce.BundleReferenceLabel: b.Image}
	h := helm.New(helm.Config{Client: c.Admin(), Clock: c.Clock, Namespace: InstallNamespace})
	if _, err := h.Install(ctx, ExtensionName, chart, helm.InstallOptions{Labels: labels}); err != nil {
		return fmt.Errorf("preinstall %s: %w", w.Installed, err)
	}
	var ext ce.ClusterExtension
	if err := c.Admin().Get(ctx, client.ObjectKey{Name: ExtensionName}, &ext); err != nil {
		return err
	}
	now := metav1.NewTime(c.Clock.Now().Truncate(time.Second))
	ext.Status.Install = &ce.ClusterExtensionInstallStatus{Bundle: ce.BundleMetadata{Name: b.Name, Version: b.Version}}
	ext.Status.Conditions = []metav1.Condition{
		{Type: ce.TypeInstalled, Status: metav1.ConditionTrue, Reason: ce.ReasonSucceeded,
			Message: fmt.Sprintf("Installed bundle %s successfully", b.Image), ObservedGeneration: ext.Generation, LastTransitionTime: now},
		{Type: ce.TypeProgressing, Status: metav1.ConditionTrue, Reason: ce.ReasonSucceeded,
			Message: "desired state reached", ObservedGeneration: ext.Generation, LastTransitionTime: now},
	}
	return c.Admin().Status().Update(ctx, &ext)
}

// bumpCatalog is catalogd unpacking new content: the ClusterCatalog's resolved
// image reference changes.
func (w *world) bumpCatalog(c *cluster.Cluster) error {
	ctx := context.Background()
	var cat ce.ClusterCatalog
	if err := c.Admin().Get(ctx, client.ObjectKey{Name: CatalogName}, &cat); err != nil {
		return err
	}
	w.catalogGeneration++
	cat.Status.ResolvedSource = &ce.ResolvedCatalogSource{Image: &ce.ResolvedImageSource{
		Ref: "quay.io/example/catalog@sha256:" + strconv.Itoa(w.catalogGeneration)}}
	return c.Admin().Status().Update(ctx, &cat)
}

// publish adds a version of op to the catalog (args: version).
func (w *world) publish(c *cluster.Cluster, args plan.Args) error {
	v := args.Get("version")
	if v != "1.0.0" && v != "2.0.0" && v != "3.0.0" {
		return fmt.Errorf("publish: no bundle %q (want 1.0.0, 2.0.0 or 3.0.0)", v)
	}
	w.Catalog.Publish(Bundle(v))
	return w.bumpCatalog(c)
}

// requestVersion sets the ClusterExtension's version range (args: version).
func requestVersion(c *cluster.Cluster, args plan.Args) error {
	ctx := context.Background()
	var ext ce.ClusterExtension
	if err := c.Admin().Get(ctx, client.ObjectKey{Name: ExtensionName}, &ext); err != nil {
		return err
	}
	patch := client.MergeFrom(ext.DeepCopy())
	ext.Spec.Source.Catalog.Version = args.Get("version")
	return c.Admin().Patch(ctx, &ext, patch)
}

// Observer watches the world from the API server as a test would, every commit
// in order: the bundle versions the release was deployed at, and every value of
// the extension's status.install.
type Observer struct {
	// Deployed is the bundle version of each revision when it became deployed, in
	// commit order.
	Deployed []string
	// Installs is every distinct successive status.install bundle version of the
	// ClusterExtension ("" for none).
	Installs []string
	deployed map[string]bool
}

// Observe subscribes an observer to c's Secrets and ClusterExtensions.
func Observe(c *cluster.Cluster) *Observer {
	o := &Observer{deployed: map[string]bool{}}
	w := c.Server.Watcher()
	w.Watch(corev1.SchemeGroupVersion.WithKind("Secret"), func(ev apiserver.Event) {
		l := ev.Object.GetLabels()
		if ev.Type == watch.Deleted || l["owner"] != "helm" || l["status"] != string(helm.StatusDeployed) || o.deployed[ev.Object.GetName()] {
			return
		}
		rel, err := helm.ReleaseOf(ev.Object.(*corev1.Secret))
		if err != nil {
			panic(err) // the model wrote it
		}
		o.deployed[ev.Object.GetName()] = true
		o.Deployed = append(o.Deployed, rel.Labels[ce.BundleVersionLabel])
	})
	w.Watch(ce.ClusterExtensionGVK, func(ev apiserver.Event) {
		ext := ev.Object.(*ce.ClusterExtension)
		v := ""
		if ext.Status.Install != nil {
			v = ext.Status.Install.Bundle.Version
		}
		if n := len(o.Installs); n == 0 || o.Installs[n-1] != v {
			o.Installs = append(o.Installs, v)
		}
	})
	return o
}

// Record is one release record: revision, status and bundle version.
type Record struct {
	Version int
	Status  helm.Status
	Bundle  string
}

func (r Record) String() string { return fmt.Sprintf("v%d=%s(%s)", r.Version, r.Status, r.Bundle) }

// Records are the release records of op, oldest first.
func Records(c *cluster.Cluster) ([]Record, error) {
	var list corev1.SecretList
	if err := c.List(&list, client.InNamespace(InstallNamespace), client.MatchingLabels{"owner": "helm", "name": ExtensionName}); err != nil {
		return nil, err
	}
	var out []Record
	for i := range list.Items {
		rel, err := helm.ReleaseOf(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, Record{Version: rel.Version, Status: rel.Info.Status, Bundle: rel.Labels[ce.BundleVersionLabel]})
	}
	slices.SortFunc(out, func(a, b Record) int { return a.Version - b.Version })
	return out, nil
}

// Extension is the ClusterExtension op now.
func Extension(c *cluster.Cluster) (*ce.ClusterExtension, error) {
	var ext ce.ClusterExtension
	return &ext, c.Get(client.ObjectKey{Name: ExtensionName}, &ext)
}

// Progressing is the message of the extension's Progressing condition.
func Progressing(ext *ce.ClusterExtension) string {
	if c := apimeta.FindStatusCondition(ext.Status.Conditions, ce.TypeProgressing); c != nil {
		return c.Message
	}
	return ""
}

// InstalledVersion is status.install.bundle.version, or "".
func InstalledVersion(ext *ce.ClusterExtension) string {
	if ext.Status.Install == nil {
		return ""
	}
	return ext.Status.Install.Bundle.Version
}

// Horizon is long enough for every spec's plan and the backoff that follows.
const Horizon = 10 * time.Minute
