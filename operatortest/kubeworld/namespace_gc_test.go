package kubeworld_test

import (
	"fmt"
	"strings"
	"testing"

	"time"

	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	gomegatypes "github.com/onsi/gomega/types"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The namespace controller and the garbage collector of models/kube on a
// bare cluster (kube-controller-manager alone), as specs on the kernel:
// the models' own specs (they were scenarios/reposync's, the seed whose race
// they serve, until that package stopped running plans of its own).

func TestNamespaceControllerAndGarbageCollector(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "models/kube: the namespace controller and the garbage collector")
}

// kcm is the process that runs the models.
const kcm = "kube-controller-manager"

// steps returns the steps of process that match.
func steps(c *cluster.Cluster, process string, match func(trace.Step) bool) []trace.Step {
	var out []trace.Step
	for _, s := range c.Trace.Steps() {
		if s.Process == process && match(s) {
			out = append(out, s)
		}
	}
	return out
}

// namespaceGone reports whether namespace ns no longer exists.
func namespaceGone(c *cluster.Cluster, ns string) bool {
	GinkgoHelper()
	err := c.Get(types.NamespacedName{Name: ns}, &corev1.Namespace{})
	if apierrors.IsNotFound(err) {
		return true
	}
	Expect(err).NotTo(HaveOccurred())
	return false
}

// timeline is the run's timeline, attached to a failing spec.
func timeline(c *cluster.Cluster) string {
	var b strings.Builder
	_ = c.Trace.WriteTimeline(&b)
	return b.String()
}

// kubeWorld runs kube-controller-manager alone: the namespace controller and
// the garbage collector over ConfigMaps and Secrets.
func kubeWorld(tune func(*kube.NamespaceController)) *cluster.Cluster {
	GinkgoHelper()
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: kcm, Setup: func(p *process.Process) error {
			mgr := p.Manager()
			nc := &kube.NamespaceController{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: p.Clock(),
				Content: []client.ObjectList{&corev1.ConfigMapList{}, &corev1.SecretList{}}}
			if tune != nil {
				tune(nc)
			}
			if err := nc.SetupWithManager(mgr); err != nil {
				return err
			}
			gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(),
				Kinds: []client.Object{&corev1.ConfigMap{}, &corev1.Secret{}}}
			return gc.SetupWithManager(mgr)
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})
		},
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	return c
}

func create(c *cluster.Cluster, obj client.Object) client.Object {
	GinkgoHelper()
	Expect(c.Admin().Create(ctx, obj)).To(Succeed())
	return obj
}

func present(c *cluster.Cluster, obj client.Object) bool {
	GinkgoHelper()
	err := c.Get(client.ObjectKeyFromObject(obj), obj)
	if apierrors.IsNotFound(err) {
		return false
	}
	Expect(err).NotTo(HaveOccurred())
	return true
}

func ownerRef(owner client.Object, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: owner.GetName(), UID: owner.GetUID(), BlockOwnerDeletion: ptr.To(block)}
}

func cm(name string, finalizers ...string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name, Finalizers: finalizers}}
}

func secret(name string, refs ...metav1.OwnerReference) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name, OwnerReferences: refs}}
}

// apiLatency bounds what API calls add to a step's time (cluster.DefaultTiming:
// a few milliseconds a call, a handful of calls before the step).
const apiLatency = 50 * time.Millisecond

// about matches a time within apiLatency after d: the model's own pace, plus the
// time its API calls took.
func about(d time.Duration) gomegatypes.GomegaMatcher {
	return And(BeNumerically(">=", d), BeNumerically("<=", d+apiLatency))
}

func reconcilesOf(c *cluster.Cluster, controller string) []time.Duration {
	var out []time.Duration
	for _, s := range steps(c, kcm, func(s trace.Step) bool { return s.Op == "reconcile" && s.Controller == controller }) {
		out = append(out, s.At)
	}
	return out
}

var _ = Describe("models/kube: the namespace controller (pkg/controller/namespace, v1.37.1)", func() {
	It("syncs a deleting namespace namespaceDeletionGracePeriod (5s) after its event, deletes its content and finalizes it", func() {
		c := kubeWorld(nil)
		create(c, cm("a"))
		create(c, secret("s"))
		c.RunFor(10 * time.Second)
		Expect(c.Admin().Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})).To(Succeed())
		c.RunFor(4 * time.Second)
		Expect(namespaceGone(c, "team")).To(BeFalse())
		c.RunFor(2 * time.Second)
		Expect(namespaceGone(c, "team")).To(BeTrue(), timeline(c))
		Expect(reconcilesOf(c, "namespace")[0]).To(about(15 * time.Second))
		Expect(steps(c, kcm, func(s trace.Step) bool { return s.Op == "update/finalize" && s.Result == "ok" })).To(HaveLen(1))
	})

	It("waits for content with finalizers: conditions with upstream's messages, polls every 8s (estimate 15s/2+1), and the namespace goes once the finalizer does", func() {
		c := kubeWorld(nil)
		held := create(c, cm("held", "example.com/hold"))
		Expect(c.Admin().Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})).To(Succeed())
		c.RunFor(30 * time.Second)
		ns := &corev1.Namespace{}
		Expect(c.Get(types.NamespacedName{Name: "team"}, ns)).To(Succeed())
		Expect(ns.Status.Conditions).To(ContainElements(
			And(HaveField("Type", corev1.NamespaceContentRemaining), HaveField("Status", corev1.ConditionTrue),
				HaveField("Reason", "SomeResourcesRemain"), HaveField("Message", "Some resources are remaining: configmaps. has 1 resource instances")),
			And(HaveField("Type", corev1.NamespaceFinalizersRemaining), HaveField("Reason", "SomeFinalizersRemain"),
				HaveField("Message", "Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances")),
			And(HaveField("Type", corev1.NamespaceDeletionContentFailure), HaveField("Status", corev1.ConditionFalse), HaveField("Reason", "ContentDeleted")),
		))
		// The first pass writes the conditions; that update event brings the
		// namespace back 5s later (AddAfter keeps the earlier of 5s and 8s);
		// then nothing changes and it polls every 8s.
		Expect(reconcilesOf(c, "namespace")).To(HaveExactElements(about(5*time.Second), about(10*time.Second), about(18*time.Second), about(26*time.Second)))

		Expect(c.Get(client.ObjectKeyFromObject(held), held)).To(Succeed())
		held.SetFinalizers(nil)
		Expect(c.Admin().Update(ctx, held)).To(Succeed())
		c.RunFor(8 * time.Second)
		Expect(namespaceGone(c, "team")).To(BeTrue(), timeline(c))
	})

	It("waits for a bound pod's graceful termination without an error (estimateGracefulTerminationForPods), and goes once the pod does", func() {
		c := kubeWorld(func(nc *kube.NamespaceController) {
			nc.Content = append([]client.ObjectList{&corev1.PodList{}}, nc.Content...)
		})
		pod := create(c, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"},
			Spec: corev1.PodSpec{NodeName: "node-1", TerminationGracePeriodSeconds: ptr.To(int64(30)),
				Containers: []corev1.Container{{Name: "app", Image: "nginx:1"}}}})
		Expect(c.Admin().Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})).To(Succeed())
		c.RunFor(20 * time.Second)
		// No kubelet here: the pod stays Terminating; the namespace waits for it
		// with an estimate, not a content failure.
		Expect(c.Get(client.ObjectKeyFromObject(pod), pod)).To(Succeed())
		Expect(pod.GetDeletionTimestamp()).NotTo(BeNil())
		ns := &corev1.Namespace{}
		Expect(c.Get(types.NamespacedName{Name: "team"}, ns)).To(Succeed())
		// (Upstream writes no content totals while pods remain.)
		Expect(ns.Status.Conditions).To(ContainElement(
			And(HaveField("Type", corev1.NamespaceDeletionContentFailure), HaveField("Status", corev1.ConditionFalse)),
		), timeline(c))
		// The kubelet's grace-0 delete, as the kubelet model makes it.
		Expect(c.Admin().Delete(ctx, pod, client.GracePeriodSeconds(0))).To(Succeed())
		c.RunFor(20 * time.Second)
		Expect(namespaceGone(c, "team")).To(BeTrue(), timeline(c))
	})

	It("with MinTerminating, keeps an empty namespace Terminating that long", func() {
		c := kubeWorld(func(nc *kube.NamespaceController) { nc.MinTerminating = 20 * time.Second })
		Expect(c.Admin().Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})).To(Succeed())
		c.RunFor(19 * time.Second)
		Expect(namespaceGone(c, "team")).To(BeFalse())
		c.RunFor(2 * time.Second)
		Expect(namespaceGone(c, "team")).To(BeTrue())
	})

	It("deletes in the order and at the pace it is given", func() {
		c := kubeWorld(func(nc *kube.NamespaceController) {
			nc.Order = kube.DeleteFirst("Secret")
			nc.Delay = func(client.Object) time.Duration { return time.Second }
		})
		create(c, cm("a"))
		create(c, secret("s"))
		Expect(c.Admin().Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}})).To(Succeed())
		c.RunFor(time.Minute)
		deletes := steps(c, kcm, func(s trace.Step) bool { return s.Controller == "namespace" && s.Op == "delete" })
		Expect(deletes).To(HaveLen(2))
		Expect(deletes[0]).To(And(HaveField("Object", "Secret team/s"), HaveField("At", about(6*time.Second))))
		Expect(deletes[1]).To(And(HaveField("Object", "ConfigMap team/a"), HaveField("At", about(7*time.Second))))
	})
})

var _ = Describe("models/kube: the garbage collector (pkg/controller/garbagecollector, v1.37.1)", func() {
	It("background: deletes a dependent whose only owner is gone", func() {
		c := kubeWorld(nil)
		owner := create(c, cm("owner"))
		dep := create(c, secret("dep", ownerRef(owner, false)))
		c.RunFor(time.Second)
		Expect(c.Admin().Delete(ctx, owner)).To(Succeed())
		c.RunFor(time.Second)
		Expect(present(c, dep)).To(BeFalse(), timeline(c))
	})

	It("deletes a dependent created with an owner that does not exist (uid mismatch)", func() {
		c := kubeWorld(nil)
		owner := create(c, cm("owner"))
		ref := ownerRef(owner, false)
		ref.UID = "not-the-owner"
		dep := create(c, secret("dep", ref))
		c.RunFor(time.Second)
		Expect(present(c, dep)).To(BeFalse())
		Expect(present(c, owner)).To(BeTrue())
	})

	It("keeps a dependent with a solid owner and removes only its dangling reference", func() {
		c := kubeWorld(nil)
		a, b := create(c, cm("a")), create(c, cm("b"))
		dep := create(c, secret("dep", ownerRef(a, false), ownerRef(b, false)))
		c.RunFor(time.Second)
		Expect(c.Admin().Delete(ctx, a)).To(Succeed())
		c.RunFor(time.Second)
		Expect(present(c, dep)).To(BeTrue())
		Expect(dep.GetOwnerReferences()).To(ConsistOf(HaveField("Name", "b")))
	})

	It("does not queue an owner for a change of its dependent's data", func() {
		c := kubeWorld(nil)
		owner := create(c, cm("owner"))
		dep := create(c, secret("dep", ownerRef(owner, false)))
		c.RunFor(time.Second)
		ownerReconciles := func() int {
			return len(steps(c, kcm, func(s trace.Step) bool {
				return s.Op == "reconcile" && s.Controller == "garbagecollector-configmap" && s.Object == "team/owner"
			}))
		}
		before := ownerReconciles()
		for i := range 30 {
			dep.(*corev1.Secret).StringData = map[string]string{"password": fmt.Sprint(i)}
			Expect(c.Admin().Update(ctx, dep)).To(Succeed())
			c.RunFor(10 * time.Millisecond)
		}
		c.RunFor(time.Second)
		Expect(ownerReconciles()).To(Equal(before), "upstream's graph builder queues nothing for a dependent whose owners, finalizers and deletionTimestamp stay: "+timeline(c))
		Expect(c.Admin().Delete(ctx, dep)).To(Succeed())
		c.RunFor(time.Second)
		Expect(ownerReconciles()).To(BeNumerically(">", before), "a dependent's deletion queues its owner (one deleting in the foreground waits on it)")
	})

	It("foreground: the owner waits with foregroundDeletion until its blocking dependents are gone", func() {
		c := kubeWorld(nil)
		owner := create(c, cm("owner"))
		dep := create(c, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "dep",
			OwnerReferences: []metav1.OwnerReference{ownerRef(owner, true)}, Finalizers: []string{"example.com/slow"}}})
		c.RunFor(time.Second)
		Expect(c.Admin().Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationForeground))).To(Succeed())
		c.RunFor(time.Minute)
		Expect(present(c, owner)).To(BeTrue(), "the dependent's finalizer holds it, and it blocks the owner")
		Expect(owner.GetFinalizers()).To(ConsistOf(metav1.FinalizerDeleteDependents))
		Expect(present(c, dep)).To(BeTrue())
		Expect(dep.GetDeletionTimestamp()).NotTo(BeNil(), "the collector deleted the dependent")

		dep.SetFinalizers(nil)
		Expect(c.Admin().Update(ctx, dep)).To(Succeed())
		c.RunFor(time.Second)
		Expect(present(c, owner)).To(BeFalse(), timeline(c))
	})

	It("orphan: removes the owner's reference from its dependents, then the orphan finalizer", func() {
		c := kubeWorld(nil)
		owner := create(c, cm("owner"))
		dep := create(c, secret("dep", ownerRef(owner, true)))
		c.RunFor(time.Second)
		Expect(c.Admin().Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationOrphan))).To(Succeed())
		c.RunFor(time.Second)
		Expect(present(c, owner)).To(BeFalse(), timeline(c))
		Expect(present(c, dep)).To(BeTrue())
		Expect(dep.GetOwnerReferences()).To(BeEmpty())
	})
})
