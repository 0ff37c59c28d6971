package clusterextension_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ce "github.com/ctrlsim/ctrlsim/controllers/clusterextension"
	"github.com/ctrlsim/ctrlsim/controllers/clusterextension/bundletest"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/models/catalog"
	"github.com/ctrlsim/ctrlsim/models/helm"
)

// operator-controller's ClusterExtension controller on a real kube-apiserver
// (envtest), in a real controller-runtime manager registered by its own
// SetupWithManager, as its ServiceAccount under RBAC, on the wall clock,
// installing through models/helm (release records are real Secrets) from
// models/catalog, with models/kube's namespace controller finishing deleted
// namespaces. Seed 2 (001).
func TestClusterExtensionOnEnvtest(t *testing.T) {
	assets = envtestenv.Require(t)
	RegisterFailHandler(Fail)
	RunSpecs(t, "clusterextension on envtest")
}

var (
	assets string
	env    *envtestenv.Env
	envCtx = context.Background()
	// operatorUser is operator-controller's ServiceAccount.
	operatorUser = envtestenv.ServiceAccountUser("olmv1-system", "operator-controller")
)

var _ = BeforeSuite(func() {
	ctrl.SetLogger(GinkgoLogr)
	s := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(s)).To(Succeed())
	Expect(ce.AddToScheme(s)).To(Succeed())
	var err error
	env, err = envtestenv.Start(assets, envtestenv.Options{Scheme: s, CRDs: []envtestenv.CRD{
		{GVK: ce.ClusterExtensionGVK, Plural: "clusterextensions", Status: true, Type: &ce.ClusterExtension{}},
		{GVK: ce.ClusterCatalogGVK, Plural: "clustercatalogs", Status: true, Type: &ce.ClusterCatalog{}},
	}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)
	// upstream's 5s grace period, shortened to keep the suite quick
	nc, err := env.StartNamespaceController(envtestenv.NamespaceControllerOptions{GracePeriod: 200 * time.Millisecond,
		Content: []client.ObjectList{&corev1.SecretList{}, &corev1.ConfigMapList{}, &corev1.ServiceAccountList{}, &appsv1.DeploymentList{}}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(nc.Stop)

	// operator-controller's rights, as in scenarios/clusterextension: its own
	// kinds, release record Secrets and the kinds of the bundles.
	rule := func(group string, resources ...string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: resources,
			Verbs: []string{"get", "list", "watch", "create", "update", "patch", "delete"}}
	}
	for _, o := range []client.Object{
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "operator-controller"}, Rules: []rbacv1.PolicyRule{
			rule(ce.GroupVersion.Group, "clusterextensions", "clusterextensions/status", "clustercatalogs"),
			rule("", "secrets", "configmaps", "serviceaccounts"),
			rule("apps", "deployments"),
		}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "operator-controller"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "operator-controller"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "olmv1-system", Name: "operator-controller"}}},
		&ce.ClusterCatalog{ObjectMeta: metav1.ObjectMeta{Name: "operatorhubio"}},
	} {
		Expect(env.Admin.Create(envCtx, o)).To(Succeed())
	}
	Expect(env.WaitAllowed(envCtx, operatorUser, authorizationv1.ResourceAttributes{Verb: "watch", Group: "apps", Resource: "deployments"},
		10*time.Second)).To(Succeed())
})

// extension is one spec's ClusterExtension (cluster-scoped, so named per spec)
// and its install namespace.
type extension struct {
	name, ns string
}

func newExtension(versionRange string) *extension {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "op-system-"}}
	Expect(env.Admin.Create(envCtx, ns)).To(Succeed())
	DeferCleanup(func() { Expect(envtestenv.DeleteNamespace(envCtx, env.Admin, ns.Name, 30*time.Second)).To(Succeed()) })
	ext := &ce.ClusterExtension{ObjectMeta: metav1.ObjectMeta{GenerateName: "op-"}, Spec: ce.ClusterExtensionSpec{
		Namespace: ns.Name, ServiceAccount: ce.ServiceAccountReference{Name: "op-installer"},
		Source: ce.SourceConfig{SourceType: "Catalog", Catalog: &ce.CatalogFilter{PackageName: "op", Version: versionRange}},
	}}
	Expect(env.Admin.Create(envCtx, ext)).To(Succeed())
	e := &extension{name: ext.Name, ns: ns.Name}
	return e
}

// run runs the controller of variant v on a catalog of versions until stop (or
// the spec's end). wrap, if set, wraps the controller's client.
func (e *extension) run(v variant.Variant, versions []string, wrap func(client.Client) client.Client) (stop func()) {
	GinkgoHelper()
	cat := catalog.New(clock.RealClock{})
	for _, version := range versions {
		cat.Add(bundletest.Bundle(version))
	}
	mgr, err := env.StartManager(envtestenv.ManagerOptions{As: &operatorUser}, func(mgr ctrl.Manager) error {
		c := mgr.GetClient()
		if wrap != nil {
			c = wrap(c)
		}
		r := &ce.Reconciler{Client: c, APIReader: mgr.GetAPIReader(), Clock: clock.RealClock{}, Catalog: cat, Variant: v}
		return r.SetupWithManager(mgr)
	})
	Expect(err).NotTo(HaveOccurred())
	var once atomic.Bool
	stop = func() {
		if once.CompareAndSwap(false, true) {
			Expect(mgr.Stop()).To(Succeed())
		}
	}
	DeferCleanup(stop)
	return stop
}

// deleteWhileRunning deletes the ClusterExtension (its finalizer is removed by
// the running controller) and waits until it is gone.
func (e *extension) deleteWhileRunning() {
	GinkgoHelper()
	Expect(env.Admin.Delete(envCtx, &ce.ClusterExtension{ObjectMeta: metav1.ObjectMeta{Name: e.name}})).To(Succeed())
	Eventually(func() bool {
		return apierrors.IsNotFound(env.Admin.Get(envCtx, client.ObjectKey{Name: e.name}, &ce.ClusterExtension{}))
	}).WithTimeout(10 * time.Second).Should(BeTrue())
}

func (e *extension) get() *ce.ClusterExtension {
	GinkgoHelper()
	var ext ce.ClusterExtension
	Expect(env.Admin.Get(envCtx, client.ObjectKey{Name: e.name}, &ext)).To(Succeed())
	return &ext
}

func (e *extension) installed() string {
	if ext := e.get(); ext.Status.Install != nil {
		return ext.Status.Install.Bundle.Version
	}
	return ""
}

func (e *extension) requestVersion(versionRange string) {
	GinkgoHelper()
	ext := e.get()
	patch := client.MergeFrom(ext.DeepCopy())
	ext.Spec.Source.Catalog.Version = versionRange
	Expect(env.Admin.Patch(envCtx, ext, patch)).To(Succeed())
}

// records are the release's records, oldest first, as "v<revision>=<status>(<bundle version>)".
func (e *extension) records() []string {
	GinkgoHelper()
	var list corev1.SecretList
	Expect(env.Admin.List(envCtx, &list, client.InNamespace(e.ns), client.MatchingLabels{"owner": "helm", "name": e.name})).To(Succeed())
	var rels []*helm.Release
	for i := range list.Items {
		rel, err := helm.ReleaseOf(&list.Items[i])
		Expect(err).NotTo(HaveOccurred())
		rels = append(rels, rel)
	}
	slices.SortFunc(rels, func(a, b *helm.Release) int { return a.Version - b.Version })
	out := make([]string, len(rels))
	for i, r := range rels {
		out[i] = fmt.Sprintf("v%d=%s(%s)", r.Version, r.Info.Status, r.Labels[ce.BundleVersionLabel])
	}
	return out
}

func (e *extension) configMap(name string) (*corev1.ConfigMap, bool) {
	GinkgoHelper()
	var cm corev1.ConfigMap
	err := env.Admin.Get(envCtx, client.ObjectKey{Namespace: e.ns, Name: name}, &cm)
	if apierrors.IsNotFound(err) {
		return nil, false
	}
	Expect(err).NotTo(HaveOccurred())
	return &cm, true
}

var _ = DescribeTable("installs 1.0.0, then upgrades to 2.0.0 when asked",
	func(v variant.Variant) {
		e := newExtension("1.0.0")
		e.run(v, []string{"1.0.0", "2.0.0"}, nil)
		DeferCleanup(e.deleteWhileRunning) // before the manager stops (LIFO)
		Eventually(e.installed).WithTimeout(15 * time.Second).Should(Equal("1.0.0"))
		Expect(e.records()).To(Equal([]string{"v1=deployed(1.0.0)"}))
		cm, ok := e.configMap("op-config")
		Expect(ok).To(BeTrue())
		Expect(cm.Labels).To(HaveKeyWithValue(ce.OwnerNameLabel, e.name))
		Expect(cm.Annotations).To(HaveKeyWithValue("meta.helm.sh/release-name", e.name))

		e.requestVersion("2.0.0")
		Eventually(e.installed).WithTimeout(15 * time.Second).Should(Equal("2.0.0"))
		Expect(e.records()).To(Equal([]string{"v1=superseded(1.0.0)", "v2=deployed(2.0.0)"}))
		_, ok = e.configMap("op-migration")
		Expect(ok).To(BeTrue())
		var d appsv1.Deployment
		Expect(env.Admin.Get(envCtx, client.ObjectKey{Namespace: e.ns, Name: "op-controller"}, &d)).To(Succeed())
		Expect(d.Spec.Template.Spec.Containers[0].Image).To(Equal("quay.io/example/op:v2"))
	},
	Entry("fixed (#1987)", variant.Fixed), Entry("robust", variant.Robust))

// errKilled is what every call of a killed process's client returns.
var errKilled = errors.New("the operator-controller process was killed")

// dyingClient is the controller's client until it creates the ConfigMap
// op-migration; from then on every call fails, as if the process had died
// right after that call: the upgrade to 2.0.0 is interrupted at CP-U2 (records
// v1 deployed and v2 pending-upgrade; op-config and op-migration at 2.0.0, the
// Deployment still at 1.0.0).
type dyingClient struct {
	client.Client
	dead atomic.Bool
}

func (d *dyingClient) check() error {
	if d.dead.Load() {
		return errKilled
	}
	return nil
}

func (d *dyingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if err := d.check(); err != nil {
		return err
	}
	return d.Client.Get(ctx, key, obj, opts...)
}

func (d *dyingClient) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if err := d.check(); err != nil {
		return err
	}
	return d.Client.List(ctx, list, opts...)
}

func (d *dyingClient) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if err := d.check(); err != nil {
		return err
	}
	err := d.Client.Create(ctx, obj, opts...)
	if err == nil && obj.GetName() == "op-migration" {
		d.dead.Store(true)
	}
	return err
}

func (d *dyingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if err := d.check(); err != nil {
		return err
	}
	return d.Client.Update(ctx, obj, opts...)
}

func (d *dyingClient) Patch(ctx context.Context, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
	if err := d.check(); err != nil {
		return err
	}
	return d.Client.Patch(ctx, obj, patch, opts...)
}

func (d *dyingClient) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if err := d.check(); err != nil {
		return err
	}
	return d.Client.Delete(ctx, obj, opts...)
}

func (d *dyingClient) Status() client.SubResourceWriter {
	if d.dead.Load() {
		return deadWriter{}
	}
	return d.Client.Status()
}

type deadWriter struct{ client.SubResourceWriter }

func (deadWriter) Update(context.Context, client.Object, ...client.SubResourceUpdateOption) error {
	return errKilled
}

func (deadWriter) Patch(context.Context, client.Object, client.Patch, ...client.SubResourcePatchOption) error {
	return errKilled
}

var _ = Describe("the upgrade to 2.0.0 is interrupted mid-way (CP-U2) and 3.0.0 is published before the operator restarts (catalog drift)", func() {
	// interrupted installs 1.0.0, asks for >=1.0.0 (the catalog has 2.0.0), lets
	// the process die in the middle of the upgrade, then returns once a second
	// has passed: the restarted process must start in a later second than the
	// pending record's creationTimestamp (robust takes over pending records
	// written before it started; the timestamp has whole seconds).
	interrupted := func(v variant.Variant) *extension {
		GinkgoHelper()
		e := newExtension("1.0.0")
		dying := &dyingClient{}
		stop := e.run(v, []string{"1.0.0", "2.0.0"}, func(c client.Client) client.Client { dying.Client = c; return dying })
		Eventually(e.installed).WithTimeout(15 * time.Second).Should(Equal("1.0.0"))
		e.requestVersion(">=1.0.0")
		Eventually(dying.dead.Load).WithTimeout(15 * time.Second).Should(BeTrue())
		stop()
		Expect(e.records()).To(Equal([]string{"v1=deployed(1.0.0)", "v2=pending-upgrade(2.0.0)"}))
		time.Sleep(time.Until(time.Now().Truncate(time.Second).Add(time.Second + 10*time.Millisecond)))
		return e
	}

	It("makes the fixed applier delete the pending record and skip to 3.0.0, orphaning op-migration", func() {
		e := interrupted(variant.Fixed)
		e.run(variant.Fixed, []string{"1.0.0", "2.0.0", "3.0.0"}, nil)
		DeferCleanup(e.deleteWhileRunning)
		Eventually(e.installed).WithTimeout(15 * time.Second).Should(Equal("3.0.0"))
		Expect(e.records()).To(Equal([]string{"v1=superseded(1.0.0)", "v2=deployed(3.0.0)"}), "revision 2 reused: 2.0.0 was never completed")
		_, ok := e.configMap("op-migration")
		Expect(ok).To(BeTrue(), "created by the interrupted attempt, in no record: nothing deletes it")
	})

	It("makes the robust applier mark the record failed, complete 2.0.0 from it, then upgrade to 3.0.0", func() {
		e := interrupted(variant.Robust)
		e.run(variant.Robust, []string{"1.0.0", "2.0.0", "3.0.0"}, nil)
		DeferCleanup(e.deleteWhileRunning)
		Eventually(e.installed).WithTimeout(15 * time.Second).Should(Equal("3.0.0"))
		Expect(e.records()).To(Equal([]string{"v1=superseded(1.0.0)", "v2=failed(2.0.0)", "v3=superseded(2.0.0)", "v4=deployed(3.0.0)"}))
		_, ok := e.configMap("op-migration")
		Expect(ok).To(BeFalse(), "2.0.0's op-migration is removed by the upgrade to 3.0.0")
	})
})
