package bundledeployment_test

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bdc "github.com/ctrlsim/ctrlsim/controllers/bundledeployment"
	sc "github.com/ctrlsim/ctrlsim/controllers/bundledeployment/bundletest"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
)

// The BundleDeployment controller on a real kube-apiserver (envtest), in a
// real controller-runtime manager registered by its own SetupWithManager (its
// dependent watches added to the running controller), on the wall clock, with
// models/helm writing the release records and objects and models/kube's
// namespace controller finishing deleted namespaces. Seed 1 (000), with the
// bundles of bundletest.
func TestEnvtestBundleDeployment(t *testing.T) {
	assets = envtestenv.Require(t)
	RegisterFailHandler(Fail)
	RunSpecs(t, "BundleDeployment on envtest")
}

// releaseNamespace holds the release records, as in the simulator world.
const releaseNamespace = "rukpak-system"

var (
	assets string
	env    *envtestenv.Env
	ctx    = context.Background()
)

var _ = BeforeSuite(func() {
	ctrl.SetLogger(GinkgoLogr)
	s := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(s)).To(Succeed())
	Expect(bdc.AddToScheme(s)).To(Succeed())
	var err error
	env, err = envtestenv.Start(assets, envtestenv.Options{Scheme: s, CRDs: []envtestenv.CRD{{
		GVK: bdc.BundleDeploymentGVK, Plural: bdc.BundleDeploymentPlural, Status: true, Type: &bdc.BundleDeployment{}}}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)
	// upstream's 5s grace period, shortened to keep the suite quick
	nc, err := env.StartNamespaceController(envtestenv.NamespaceControllerOptions{GracePeriod: 200 * time.Millisecond,
		Content: []client.ObjectList{&corev1.ConfigMapList{}, &appsv1.DeploymentList{}}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(nc.Stop)
	Expect(envtestenv.CreateNamespace(ctx, env.Admin, releaseNamespace)).To(Succeed())
})

// storage serves bundletest's bundles by image reference, as
// the simulator's world does.
type storage struct{}

func (storage) Load(_ context.Context, bd *bdc.BundleDeployment) (*bdc.Bundle, error) {
	objs, err := sc.Content(bd.Ref(), bd.Name)
	if err != nil {
		return nil, err
	}
	return &bdc.Bundle{Name: bd.Name + "-" + bd.Ref(), Objects: objs}, nil
}

// deploy runs the controller of variant v until the spec ends, with a client
// that records its writes, and creates BundleDeployment name of bundle ref.
// The spec's cleanup stops the manager, then deletes the BundleDeployment and
// the bundle's namespace (envtest has no garbage collector).
func deploy(v variant.Variant, name, ref string) *envtestenv.Recorder {
	GinkgoHelper()
	DeferCleanup(func() {
		Expect(client.IgnoreNotFound(env.Admin.Delete(ctx, &bdc.BundleDeployment{ObjectMeta: metav1.ObjectMeta{Name: name}}))).To(Succeed())
		Expect(envtestenv.DeleteNamespace(ctx, env.Admin, name, 30*time.Second)).To(Succeed())
	})
	var rec *envtestenv.Recorder
	mgr, err := env.StartManager(envtestenv.ManagerOptions{}, func(mgr ctrl.Manager) error {
		rec = envtestenv.Record(mgr.GetClient())
		r := &bdc.Reconciler{Client: rec, APIReader: mgr.GetAPIReader(), Clock: clock.RealClock{}, Variant: v,
			Storage: storage{}, ReleaseNamespace: releaseNamespace}
		return r.SetupWithManager(mgr)
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(mgr.Stop) // before the BundleDeployment and its namespace are deleted (LIFO)
	Expect(env.Admin.Create(ctx, sc.NewBundleDeployment(name, ref))).To(Succeed())
	return rec
}

// installed is BundleDeployment name's Installed condition (a zero one if none).
func installed(g Gomega, name string) metav1.Condition {
	var bd bdc.BundleDeployment
	g.Expect(env.Admin.Get(ctx, client.ObjectKey{Name: name}, &bd)).To(Succeed())
	if c := apimeta.FindStatusCondition(bd.Status.Conditions, bdc.TypeInstalled); c != nil {
		return *c
	}
	return metav1.Condition{}
}

var _ = DescribeTable("a valid bundle installs: Installed=True, its objects owned by the BundleDeployment",
	func(v variant.Variant, name string) {
		deploy(v, name, sc.V1)
		Eventually(func(g Gomega) {
			c := installed(g, name)
			g.Expect(c.Status).To(Equal(metav1.ConditionTrue), "%+v", c)
			g.Expect(c.Reason).To(Equal(bdc.ReasonInstallationSucceeded))
		}).WithTimeout(10 * time.Second).Should(Succeed())
		var bd bdc.BundleDeployment
		Expect(env.Admin.Get(ctx, client.ObjectKey{Name: name}, &bd)).To(Succeed())
		Expect(bd.Status.ActiveBundle).To(Equal(name + "-" + sc.V1))
		Expect(bd.Status.ObservedGeneration).To(Equal(bd.Generation))

		var cm corev1.ConfigMap
		Expect(env.Admin.Get(ctx, client.ObjectKey{Namespace: name, Name: "config"}, &cm)).To(Succeed())
		Expect(metav1.IsControlledBy(&cm, &bd)).To(BeTrue(), "the owner-ref post-renderer makes the BundleDeployment the controller")
		Expect(cm.Labels).To(HaveKeyWithValue(bdc.OwnerNameLabel, name))
		var records corev1.SecretList
		Expect(env.Admin.List(ctx, &records, client.InNamespace(releaseNamespace), client.MatchingLabels{"name": name})).To(Succeed())
		Expect(records.Items).To(HaveLen(1), "one release record, revision 1")
	},
	Entry("fixed (#596)", variant.Fixed, "installs-fixed"), Entry("robust", variant.Robust, "installs-robust"))

var _ = DescribeTable("the broken bundle: the server refuses the invalid Deployment with 422, the status shows it, "+
	"and the uninstall's Namespace finishes terminating before the next install",
	func(v variant.Variant, name string) {
		// A watch of the bundle's Namespace, opened before anything exists: a
		// Deleted event is sent only once the namespace controller has emptied
		// and finalized it (the object is gone from etcd).
		wc, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
		Expect(err).NotTo(HaveOccurred())
		w, err := wc.Watch(ctx, &corev1.NamespaceList{}, client.MatchingFields{"metadata.name": name})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(w.Stop)

		rec := deploy(v, name, sc.Broken)
		Eventually(func(g Gomega) {
			c := installed(g, name)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse), "%+v", c)
			g.Expect(c.Reason).To(Equal(bdc.ReasonInstallFailed))
			g.Expect(c.Message).To(ContainSubstring(sc.RootCause))
		}).WithTimeout(10 * time.Second).Should(Succeed())

		By("the create of the Deployment was answered 422 Invalid by metadata validation (ValidateAnnotations)")
		creates := rec.Matching("create", name+"/operator")
		Expect(creates).NotTo(BeEmpty())
		GinkgoWriter.Printf("the server's answer: %v\n", creates[0].Err)
		var status apierrors.APIStatus
		Expect(errors.As(creates[0].Err, &status)).To(BeTrue(), "%v", creates[0].Err)
		Expect(status.Status().Code).To(BeEquivalentTo(http.StatusUnprocessableEntity))
		Expect(apierrors.IsInvalid(creates[0].Err)).To(BeTrue())
		Expect(creates[0].Err.Error()).To(ContainSubstring("metadata.annotations"))
		Expect(creates[0].Err.Error()).To(ContainSubstring(sc.InvalidAnnotation))

		By("the cleanup deleted the Namespace, and the namespace controller finalized it")
		Eventually(func() []envtestenv.Call { return rec.Matching("delete", name) }).WithTimeout(10 * time.Second).Should(
			ContainElement(HaveField("Err", BeNil())))
		Eventually(w.ResultChan()).WithTimeout(15 * time.Second).Should(Receive(HaveField("Type", watch.Deleted)))

		By("no later install met the terminating Namespace, and the root cause stays shown")
		Consistently(func(g Gomega) {
			c := installed(g, name)
			g.Expect(c.Status).To(Equal(metav1.ConditionFalse))
			g.Expect(c.Message).To(ContainSubstring(sc.RootCause))
			g.Expect(c.Message).NotTo(ContainSubstring(sc.Transient))
		}).WithTimeout(3 * time.Second).Should(Succeed())
		for _, c := range rec.Matching("create", "") {
			if c.Err != nil {
				Expect(c.Err.Error()).NotTo(ContainSubstring(sc.Transient), "%s %s", c.Verb, c.Object)
			}
		}
	},
	Entry("fixed (#596): the uninstall waits for the deletion", variant.Fixed, "broken-fixed"),
	Entry("robust: no install while a leftover is being deleted", variant.Robust, "broken-robust"))
