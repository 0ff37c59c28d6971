package canary_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlsim/ctrlsim/controllers/canary"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
)

// The canary controller on a real kube-apiserver (envtest), in a real
// controller-runtime manager registered by its own SetupWithManager, with
// models/kube's namespace controller finishing deleted namespaces.
func TestCanaryOnEnvtest(t *testing.T) {
	assets = envtestenv.Require(t)
	RegisterFailHandler(Fail)
	RunSpecs(t, "canary on envtest")
}

var (
	assets string
	env    *envtestenv.Env
	ctx    = context.Background()
)

// grace is the namespace controller's delay from a Namespace event to its sync
// (upstream: 5s), shortened to keep the suite quick.
const grace = 200 * time.Millisecond

var _ = BeforeSuite(func() {
	ctrl.SetLogger(GinkgoLogr)
	var err error
	env, err = envtestenv.Start(assets, envtestenv.Options{Scheme: scheme.Scheme})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)
	nc, err := env.StartNamespaceController(envtestenv.NamespaceControllerOptions{
		Content: []client.ObjectList{&corev1.ConfigMapList{}, &corev1.SecretList{}}, GracePeriod: grace})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(nc.Stop)
})

// start runs the canary of variant v in a manager of its own until the spec
// ends; its client records what it wrote.
func start(v variant.Variant) *envtestenv.Recorder {
	GinkgoHelper()
	var rec *envtestenv.Recorder
	mgr, err := env.StartManager(envtestenv.ManagerOptions{}, func(mgr ctrl.Manager) error {
		rec = envtestenv.Record(mgr.GetClient())
		return (&canary.Reconciler{Client: rec, APIReader: mgr.GetAPIReader(), Variant: v}).SetupWithManager(mgr)
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(mgr.Stop)
	return rec
}

// namespace creates a fresh namespace.
func namespace() string {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "canary-"}}
	Expect(env.Admin.Create(ctx, ns)).To(Succeed())
	return ns.Name
}

func children(ns string) []corev1.Secret {
	GinkgoHelper()
	var l corev1.SecretList
	Expect(env.Admin.List(ctx, &l, client.InNamespace(ns), client.MatchingLabels{canary.ChildOf: "app"})).To(Succeed())
	return l.Items
}

var _ = DescribeTable("gives a parent ConfigMap exactly one child Secret, owned by it, and marks the parent",
	func(v variant.Variant) {
		ns := namespace()
		start(v)
		parent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app", Labels: map[string]string{canary.ParentLabel: "yes"}}}
		Expect(env.Admin.Create(ctx, parent)).To(Succeed())

		Eventually(func(g Gomega) {
			g.Expect(env.Admin.Get(ctx, client.ObjectKeyFromObject(parent), parent)).To(Succeed())
			g.Expect(parent.Annotations).To(HaveKeyWithValue(canary.Created, "yes"))
		}).WithTimeout(10 * time.Second).Should(Succeed())
		Consistently(func() []corev1.Secret { return children(ns) }).WithTimeout(time.Second).Should(HaveLen(1))
		child := children(ns)[0]
		Expect(child.Name).To(Equal("app-child"))
		Expect(metav1.IsControlledBy(&child, parent)).To(BeTrue(), "the child's controller ownerReference is the parent")

		By("deleting the namespace: the namespace controller deletes the parent and the child, then finalizes it")
		Expect(envtestenv.DeleteNamespace(ctx, env.Admin, ns, 10*time.Second)).To(Succeed())
	},
	Entry("fixed", variant.Fixed), Entry("robust", variant.Robust))

var _ = DescribeTable("in a terminating namespace, the child's create is refused by NamespaceLifecycle and retried until the parent is gone",
	func(v variant.Variant) {
		ns := namespace()
		rec := start(v)
		// A parent that outlives the deletion of its namespace for a while: it
		// holds a finalizer, and becomes a parent only once the namespace is
		// terminating.
		parent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "app", Finalizers: []string{"example.com/hold"}}}
		Expect(env.Admin.Create(ctx, parent)).To(Succeed())
		Expect(env.Admin.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})).To(Succeed())
		Eventually(func(g Gomega) {
			g.Expect(env.Admin.Get(ctx, client.ObjectKeyFromObject(parent), parent)).To(Succeed())
			g.Expect(parent.DeletionTimestamp).NotTo(BeNil(), "the namespace controller has deleted the content")
		}).WithTimeout(10 * time.Second).Should(Succeed())

		parent.Labels = map[string]string{canary.ParentLabel: "yes"}
		Expect(env.Admin.Update(ctx, parent)).To(Succeed(), "updates are allowed in a terminating namespace")

		var refused []envtestenv.Call
		Eventually(func() int {
			refused = rec.Matching("create", "")
			return len(refused)
		}).WithTimeout(10*time.Second).Should(BeNumerically(">=", 2), "the refused create is retried with the workqueue's backoff")
		for _, c := range refused {
			Expect(apierrors.IsForbidden(c.Err)).To(BeTrue(), "%v", c.Err)
			Expect(c.Err.Error()).To(ContainSubstring("unable to create new content in namespace " + ns + " because it is being terminated"))
		}
		Expect(rec.Matching("patch", ns+"/app")).To(BeEmpty(), "a parent without a child is not marked")

		By("releasing the parent: the namespace controller's next pass finds it empty and finalizes it")
		Expect(env.Admin.Get(ctx, client.ObjectKeyFromObject(parent), parent)).To(Succeed())
		controllerutil.RemoveFinalizer(parent, "example.com/hold")
		Expect(env.Admin.Update(ctx, parent)).To(Succeed())
		// Content with finalizers makes the controller requeue after 15/2+1 = 8s,
		// unless an event of the Namespace brings it back sooner.
		Expect(envtestenv.DeleteNamespace(ctx, env.Admin, ns, 15*time.Second)).To(Succeed())
	},
	Entry("fixed", variant.Fixed), Entry("robust", variant.Robust))
