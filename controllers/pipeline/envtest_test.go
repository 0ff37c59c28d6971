package pipeline_test

import (
	"context"
	"testing"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/controllers/pipeline"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/models/promotion"
)

// The pipeline controller on a real kube-apiserver (envtest), in a real
// controller-runtime manager registered by its own SetupWithManager, on the
// wall clock, promoting through models/promotion (lag 100ms), with models/kube's
// namespace controller finishing deleted namespaces. Seed 5 (004).
func TestPipelineOnEnvtest(t *testing.T) {
	assets = envtestenv.Require(t)
	RegisterFailHandler(Fail)
	RunSpecs(t, "pipeline on envtest")
}

var (
	assets string
	env    *envtestenv.Env
	envCtx = context.Background()
)

var _ = BeforeSuite(func() {
	ctrl.SetLogger(GinkgoLogr)
	s := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(s)).To(Succeed())
	Expect(pipeline.AddToScheme(s)).To(Succeed())
	var err error
	env, err = envtestenv.Start(assets, envtestenv.Options{Scheme: s, CRDs: envtestenv.PipelineCRDs()})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)
	// upstream's 5s grace period, shortened to keep the suite quick
	nc, err := env.StartNamespaceController(envtestenv.NamespaceControllerOptions{GracePeriod: 200 * time.Millisecond,
		Content: []client.ObjectList{&pipeline.HelmReleaseList{}, &pipeline.PipelineList{}, &pipeline.PromotionClaimList{}}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(nc.Stop)
})

var environments = []string{"dev", "staging", "prod"}

// promotionWorld is one spec's pipeline: the Pipeline podinfo in its own namespace, with
// one target namespace per environment, each running the HelmRelease podinfo.
type promotionWorld struct {
	home       string            // the Pipeline's namespace
	targets    map[string]string // environment -> target namespace
	pipeline   client.ObjectKey
	promotions *envtestenv.Promotions
}

func newPromotionWorld() *promotionWorld {
	GinkgoHelper()
	w := &promotionWorld{targets: map[string]string{}}
	var namespaces []string
	DeferCleanup(func() {
		Expect(envtestenv.DeleteNamespaces(envCtx, env.Admin, 30*time.Second, namespaces...)).To(Succeed())
	})
	for _, name := range append([]string{"home"}, environments...) {
		ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "pipeline-" + name + "-"}}
		Expect(env.Admin.Create(envCtx, ns)).To(Succeed())
		namespaces = append(namespaces, ns.Name)
		if name == "home" {
			w.home = ns.Name
			continue
		}
		w.targets[name] = ns.Name
		hr := &pipeline.HelmRelease{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: "podinfo"}}
		hr.Spec.Chart.Spec.Chart = "podinfo"
		Expect(env.Admin.Create(envCtx, hr)).To(Succeed())
		w.setVersion(name, "v1")
	}
	p := &pipeline.Pipeline{ObjectMeta: metav1.ObjectMeta{Namespace: w.home, Name: "podinfo"}, Spec: pipeline.PipelineSpec{
		AppRef: pipeline.LocalAppReference{APIVersion: pipeline.HelmGroupVersion.String(), Kind: "HelmRelease", Name: "podinfo"},
		Promotion: &pipeline.Promotion{PullRequest: &pipeline.PullRequestPromotion{
			URL: "https://github.com/example/podinfo-deploy", Branch: "main"}},
	}}
	for _, e := range environments {
		p.Spec.Environments = append(p.Spec.Environments, pipeline.Environment{Name: e, Targets: []pipeline.Target{{Namespace: w.targets[e]}}})
	}
	Expect(env.Admin.Create(envCtx, p)).To(Succeed())
	w.pipeline = client.ObjectKeyFromObject(p)
	w.promotions = envtestenv.NewPromotions(env.Admin, w.apply, 100*time.Millisecond)
	return w
}

// setVersion is Flux deploying version to an environment: the HelmRelease's
// chart version, then its status as helm-controller reports a successful
// upgrade.
func (w *promotionWorld) setVersion(environment, version string) {
	GinkgoHelper()
	Expect(w.setVersionErr(envCtx, env.Admin, environment, version)).To(Succeed())
}

func (w *promotionWorld) setVersionErr(ctx context.Context, c client.Client, environment, version string) error {
	var hr pipeline.HelmRelease
	if err := c.Get(ctx, client.ObjectKey{Namespace: w.targets[environment], Name: "podinfo"}, &hr); err != nil {
		return err
	}
	hr.Spec.Chart.Spec.Version = version
	if err := c.Update(ctx, &hr); err != nil {
		return err
	}
	hr.Status.ObservedGeneration = hr.Generation
	hr.Status.LastAppliedRevision = version
	apimeta.SetStatusCondition(&hr.Status.Conditions, metav1.Condition{Type: pipeline.ReadyCondition, Status: metav1.ConditionTrue,
		Reason: "UpgradeSucceeded", Message: "Helm upgrade succeeded for " + version})
	return c.Status().Update(ctx, &hr)
}

// apply is a promotion's effect: the environment runs the version.
func (w *promotionWorld) apply(ctx context.Context, c client.Client, k promotion.Key) error {
	return w.setVersionErr(ctx, c, k.Environment, k.Version)
}

func (w *promotionWorld) version(environment string) string {
	GinkgoHelper()
	var hr pipeline.HelmRelease
	Expect(env.Admin.Get(envCtx, client.ObjectKey{Namespace: w.targets[environment], Name: "podinfo"}, &hr)).To(Succeed())
	return hr.Status.LastAppliedRevision
}

func (w *promotionWorld) key(environment string) promotion.Key {
	return promotion.Key{Pipeline: w.pipeline, Environment: environment, Version: "v2"}
}

func (w *promotionWorld) effects(environment string) int {
	n := 0
	for _, e := range w.promotions.Ledger() {
		if e.Key == w.key(environment) {
			n++
		}
	}
	return n
}

func (w *promotionWorld) promotionStatus(environment string) *pipeline.PromotionStatus {
	GinkgoHelper()
	var p pipeline.Pipeline
	Expect(env.Admin.Get(envCtx, w.pipeline, &p)).To(Succeed())
	if p.Status.Environments[environment] == nil {
		return nil
	}
	return p.Status.Environments[environment].Promotion
}

// start runs the controller of variant v until the spec ends. The robust
// variant retries a failed promotion after 500ms (30s upstream of this design).
func (w *promotionWorld) start(v variant.Variant) {
	GinkgoHelper()
	mgr, err := env.StartManager(envtestenv.ManagerOptions{}, func(mgr ctrl.Manager) error {
		r := &pipeline.Reconciler{Client: mgr.GetClient(), Promoter: w.promotions, Clock: clock.RealClock{}, Variant: v,
			RetryBase: 500 * time.Millisecond}
		return r.SetupWithManager(mgr)
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(mgr.Stop) // before the namespaces are deleted (LIFO)
}

// The robust controller promotes each environment exactly once. PR #214's
// fixed one promotes each at least once, and may promote one twice: its
// guard does not hold when an event of the application comes while a
// promotion is in flight (the catalogue's pipeline/app-event-race, caught at
// plan 0), and on envtest the promotion model's HelmRelease writes are such
// events, so a loaded machine sees prod promoted twice (make test on a clean
// clone, 2026-11-29: effects [1 2]).
var _ = DescribeTable("publishing v2 in dev promotes it to staging, then prod (the robust controller exactly once)",
	func(v variant.Variant) {
		w := newPromotionWorld()
		w.start(v)
		w.setVersion("dev", "v2")
		Eventually(func() string { return w.version("prod") }).WithTimeout(15 * time.Second).Should(Equal("v2"))
		Expect(w.version("staging")).To(Equal("v2"))
		effects := func() []int { return []int{w.effects("staging"), w.effects("prod")} }
		if v == variant.Robust {
			Consistently(effects).WithTimeout(time.Second).Should(Equal([]int{1, 1}), "at most once: one effect per environment and version")
		} else {
			Consistently(effects).WithTimeout(time.Second).Should(HaveEach(BeNumerically(">=", 1)), "at least once: an effect per environment")
		}
		Eventually(func() *pipeline.PromotionStatus { return w.promotionStatus("prod") }).Should(
			And(Not(BeNil()), HaveField("Revision", "v2"), HaveField("Succeeded", true)))
		if v == variant.Robust {
			var claims pipeline.PromotionClaimList
			Expect(env.Admin.List(envCtx, &claims, client.InNamespace(w.home))).To(Succeed())
			Expect(claims.Items).To(HaveLen(2), "one PromotionClaim per promotion")
			for _, c := range claims.Items {
				Expect(c.Status.Phase).To(Equal(pipeline.ClaimSucceeded))
				Expect(c.OwnerReferences).To(ConsistOf(HaveField("Name", "podinfo")))
			}
		}
	},
	Entry("fixed (PR #214)", variant.Fixed), Entry("robust (PromotionClaims)", variant.Robust))

var _ = Describe("the first attempt to promote v2 to staging fails with no effect", func() {
	It("fixed records succeeded=false and never retries: the guard compares only the revision", func() {
		w := newPromotionWorld()
		w.promotions.FailNext(w.key("staging"), 1)
		w.start(variant.Fixed)
		w.setVersion("dev", "v2")
		Eventually(func() *pipeline.PromotionStatus { return w.promotionStatus("staging") }).WithTimeout(10 * time.Second).Should(
			And(Not(BeNil()), HaveField("Revision", "v2"), HaveField("Succeeded", false)))
		Consistently(func() string { return w.version("staging") }).WithTimeout(2 * time.Second).Should(Equal("v1"))
		Expect(w.promotions.Attempts()).To(HaveLen(1))
		Expect(w.version("prod")).To(Equal("v1"))
	})

	It("robust retries after its backoff (500ms here, from a time stored to the second), and the retry takes effect once", func() {
		w := newPromotionWorld()
		w.promotions.FailNext(w.key("staging"), 1)
		w.start(variant.Robust)
		w.setVersion("dev", "v2")
		Eventually(func() string { return w.version("prod") }).WithTimeout(15 * time.Second).Should(Equal("v2"))
		attempts := w.promotions.Attempts()
		Expect(attempts).To(HaveLen(3), "staging twice, prod once")
		Expect(attempts[0].Err).To(HaveOccurred())
		Expect(attempts[1].Key).To(Equal(w.key("staging")))
		// The backoff runs from the claim's status.lastAttemptedTime, which the
		// JSON wire format (metav1.Time, RFC 3339) keeps to the second: on a real
		// server the retry comes up to 1s early (the simulator keeps nanoseconds).
		Expect(attempts[1].At).To(BeTemporally(">=", attempts[0].At.Truncate(time.Second).Add(500*time.Millisecond)))
		Expect([]int{w.effects("staging"), w.effects("prod")}).To(Equal([]int{1, 1}))
		var claim pipeline.PromotionClaim
		Expect(env.Admin.Get(envCtx, client.ObjectKey{Namespace: w.home, Name: pipeline.ClaimName("podinfo", "staging", "v2")}, &claim)).To(Succeed())
		Expect(claim.Status).To(And(HaveField("Phase", pipeline.ClaimSucceeded), HaveField("Attempts", 2)))
	})
})
