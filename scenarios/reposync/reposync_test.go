package reposync_test

import (
	"fmt"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlsim/ctrlsim/controllers/reposync"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	scenario "github.com/ctrlsim/ctrlsim/scenarios/reposync"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

const bookstore = "bookstore"

var nsReconciler = scenario.ReconcilerProcess(bookstore)

// rbFirst: the namespace controller deletes the RoleBindings, then the
// RepoSync, then the rest, one object a second (the delete-namespace
// step's first= and pace=).
const rbFirst = " first=RoleBinding,RepoSync pace=1s"

// opts are the world's options for variant v.
func opts(v variant.Variant) scenario.Options { return scenario.Options{Variant: v} }

var _ = Describe("Seed 4 (003): config-sync RepoSync finalizer vs namespace deletion (config-sync #1191, 9e28c844b)", func() {
	const deleteNamespace = "seed 1\nat 30s delete-namespace ns=bookstore" + rbFirst + "\n"

	Context("when the namespace controller deletes the shared RoleBinding before the RepoSync", func() {
		It("buggy: every write of the ns-reconciler's Finalize is forbidden, the manager waits without requeue, and the RepoSync and the namespace hang Terminating forever", func() {
			c := run(deleteNamespace, opts(variant.Buggy), 2*time.Minute, 30*time.Minute)
			Expect(namespaceGone(c, bookstore)).To(BeFalse(), timeline(c))

			rs := repoSync(c, bookstore)
			Expect(rs).NotTo(BeNil())
			Expect(rs.DeletionTimestamp).NotTo(BeNil())
			Expect(rs.Finalizers).To(ConsistOf(reposync.ReconcilerManagerFinalizer, reposync.ReconcilerFinalizer))
			ns := &corev1.Namespace{}
			Expect(c.Final.Get(types.NamespacedName{Name: bookstore}, ns)).To(Succeed())
			Expect(ns.Status.Phase).To(Equal(corev1.NamespaceTerminating))
			Expect(ns.Status.Conditions).To(ContainElement(And(
				HaveField("Type", corev1.NamespaceFinalizersRemaining),
				HaveField("Message", "Some content in the namespace has finalizers remaining: configsync.gke.io/reconciler in 1 resource instances, configsync.gke.io/reconciler-manager in 1 resource instances"),
			)))
			denied := steps(c, nsReconciler, forbidden)
			Expect(len(denied)).To(BeNumerically(">=", 10), "the ns-reconciler retries its forbidden writes with backoff for ever")
			Expect(denied[0].Op).To(Equal("update/status"), "the first write of Finalize sets ReconcilerFinalizing")
			Expect(running(c, nsReconciler)).To(BeTrue(), "nobody tears the ns-reconciler down")
			waits := steps(c, scenario.ReconcilerManager, func(s trace.Step) bool {
				return s.Op == "delete" && s.Object == "Deployment config-management-system/"+nsReconciler
			})
			Expect(waits).To(BeEmpty(), "the buggy manager never reaches teardown")
		})

		for _, v := range []variant.Variant{variant.Fixed, variant.Robust} {
			It(string(v)+": the manager sees the namespace Terminating, removes the reconciler finalizer, tears the ns-reconciler down, and the namespace terminates", func() {
				c := runFor(deleteNamespace, opts(v), time.Minute)
				Expect(namespaceGone(c, bookstore)).To(BeTrue(), timeline(c))
				Expect(finalizerRemover(c, bookstore)).To(Equal(scenario.ReconcilerManager))
				Expect(running(c, nsReconciler)).To(BeFalse())
				Expect(len(steps(c, nsReconciler, forbidden))).To(BeNumerically("<=", 3), "teardown stops the 403 loop (I3)")
			})
		}
	})

	Context("when the RepoSync goes first and its RoleBinding a second later", func() {
		const rsFirst = "seed 1\nat 30s delete-namespace ns=bookstore first=RepoSync pace=1s\n"

		It("buggy: the ns-reconciler wins the race: it destroys its objects, removes its own finalizer, and the namespace terminates", func() {
			c := runFor(rsFirst, opts(variant.Buggy), time.Minute)
			Expect(namespaceGone(c, bookstore)).To(BeTrue(), timeline(c))
			Expect(finalizerRemover(c, bookstore)).To(Equal(nsReconciler))
			Expect(steps(c, nsReconciler, forbidden)).To(BeEmpty())
		})

		for _, v := range []variant.Variant{variant.Fixed, variant.Robust} {
			It(string(v)+": the manager removes the reconciler finalizer as soon as it sees the deleting RepoSync (the side effect the commit message names), and the namespace terminates", func() {
				c := runFor(rsFirst, opts(v), time.Minute)
				Expect(namespaceGone(c, bookstore)).To(BeTrue(), timeline(c))
				Expect(finalizerRemover(c, bookstore)).To(Equal(scenario.ReconcilerManager))
			})
		}
	})

	Context("when the reconciler-manager's Namespace cache is warm and lags a minute (weakness 3)", func() {
		// alpha's deletion makes the manager read (and so start) its Namespace
		// informer; bookstore's Terminating then reaches it a minute late.
		const lagging = "seed 1\nlag process=reconciler-manager kind=/v1/Namespace min=1m max=1m\n" +
			"at 30s delete-namespace ns=alpha" + rbFirst + "\nat 3m delete-namespace ns=bookstore" + rbFirst + "\n"
		o := func(v variant.Variant) scenario.Options {
			return scenario.Options{Variant: v, Namespaces: []string{"alpha", bookstore}}
		}

		It("fixed: reads bookstore as Active, waits, and nothing requeues the RepoSync once the cache catches up: stuck forever", func() {
			c := run(lagging, o(variant.Fixed), 10*time.Minute, 30*time.Minute)
			Expect(namespaceGone(c, bookstore)).To(BeFalse(), timeline(c))
			Expect(namespaceGone(c, "alpha")).To(BeTrue(), "alpha went: the manager's first Namespace read started the informer with a fresh list")
			rs := repoSync(c, bookstore)
			Expect(rs).NotTo(BeNil())
			Expect(controllerutil.ContainsFinalizer(rs, reposync.ReconcilerFinalizer)).To(BeTrue())
			reads := steps(c, scenario.ReconcilerManager, func(s trace.Step) bool {
				return s.Op == "cached-get" && s.Object == "Namespace bookstore"
			})
			Expect(reads).NotTo(BeEmpty())
			last := reads[len(reads)-1]
			Expect(last.RVSeen).To(BeNumerically("<", last.RVCurrent), "the last read saw the Active namespace")
		})

		It("robust: reads the namespace live and terminates both", func() {
			c := runFor(lagging, o(variant.Robust), 5*time.Minute)
			Expect(namespaceGone(c, "alpha")).To(BeTrue(), timeline(c))
			Expect(namespaceGone(c, bookstore)).To(BeTrue(), timeline(c))
		})

		It("fixed, with a cold cache: the first cached Get of a Namespace starts the informer and lists it fresh, so the lag alone does not hurt", func() {
			cold := "seed 1\nlag process=reconciler-manager kind=/v1/Namespace min=1m max=1m\nat 30s delete-namespace ns=bookstore" + rbFirst + "\n"
			c := runFor(cold, opts(variant.Fixed), time.Minute)
			Expect(namespaceGone(c, bookstore)).To(BeTrue(), timeline(c))
		})
	})

	Context("when the shared RoleBinding is revoked by hand while the ns-reconciler finalizes a RepoSync in an Active namespace (weakness 1)", func() {
		// Finalize destroys three objects, 200ms each, from 30s: the
		// RoleBinding goes in the middle.
		const revoke = "seed 1\nat 30s delete-reposync ns=bookstore\nat 30.3s revoke-rolebinding ns=bookstore\n"

		for _, v := range []variant.Variant{variant.Buggy, variant.Fixed} {
			It(string(v)+": the ns-reconciler's remaining writes are forbidden and the manager waits: the RepoSync hangs Terminating forever", func() {
				c := runFor(revoke, opts(v), 30*time.Minute)
				rs := repoSync(c, bookstore)
				Expect(rs).NotTo(BeNil(), timeline(c))
				Expect(controllerutil.ContainsFinalizer(rs, reposync.ReconcilerFinalizer)).To(BeTrue())
				Expect(steps(c, nsReconciler, forbidden)).NotTo(BeEmpty())
			})
		}

		It("robust: the manager puts the RoleBinding back while the reconciler finalizer is there; the ns-reconciler finishes its Foreground deletion and the RepoSync goes after its objects (I2)", func() {
			c := runFor(revoke, opts(variant.Robust), 2*time.Minute)
			Expect(repoSync(c, bookstore)).To(BeNil(), timeline(c))
			Expect(finalizerRemover(c, bookstore)).To(Equal(nsReconciler))
			var cms corev1.ConfigMapList
			Expect(c.Final.List(&cms)).To(Succeed())
			for _, cm := range cms.Items {
				Expect(cm.Namespace + "/" + cm.Name).NotTo(HavePrefix(bookstore + "/declared-"))
			}
			Expect(namespaceGone(c, bookstore)).To(BeFalse(), "the namespace itself stays")
		})
	})

	It("over 20 seeds of the namespace controller's order and pace, buggy hangs in some and terminates in others; fixed and robust always terminate", func() {
		for _, v := range variant.All {
			gone := 0
			for seed := 1; seed <= 20; seed++ {
				c := run(fmt.Sprintf("seed %d\nat 30s delete-namespace ns=bookstore\n", seed), opts(v), time.Minute, 4*time.Minute)
				if namespaceGone(c, bookstore) {
					gone++
				}
			}
			if v == variant.Buggy {
				Expect(gone).To(And(BeNumerically(">", 0), BeNumerically("<", 20)), "buggy: %d of 20 terminated", gone)
			} else {
				Expect(gone).To(Equal(20), string(v))
			}
		}
	})

	It("replays bit for bit", func() {
		p := "seed 7\nlag process=reconciler-manager kind=* min=0s max=2s\nlag process=ns-reconciler-bookstore kind=* min=0s max=2s\n" +
			"lag process=kube-controller-manager kind=* min=0s max=2s\nat 30s delete-namespace ns=bookstore\n"
		for _, v := range variant.All {
			var traces []string
			for range 2 {
				c := runFor(p, opts(v), 3*time.Minute)
				traces = append(traces, c.Hash)
			}
			Expect(traces[0]).To(Equal(traces[1]), string(v))
		}
	})
})
