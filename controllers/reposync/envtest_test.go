package reposync_test

import (
	"context"
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
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlsim/ctrlsim/controllers/reposync"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
)

// config-sync's reconciler-manager and ns-reconciler on a real kube-apiserver
// (envtest), each in a real controller-runtime manager registered by their own
// SetupWithManager, each as its ServiceAccount (impersonated) under RBAC, on the
// wall clock, with models/kube's namespace controller deleting content
// RoleBindings first. Seed 4 (config-sync PR #1191).
func TestRepoSyncOnEnvtest(t *testing.T) {
	assets = envtestenv.Require(t)
	RegisterFailHandler(Fail)
	RunSpecs(t, "reposync on envtest")
}

var (
	assets string
	env    *envtestenv.Env
	ctx    = context.Background()
)

// managedRoleBinding is the user's RoleBinding letting the ns-reconciler manage
// the declared ConfigMaps (as in scenarios/reposync).
const managedRoleBinding = "ns-reconciler-configmaps"

var managerUser = envtestenv.ServiceAccountUser(reposync.ControllerNamespace, "reconciler-manager")

// rbFirst is a namespace controller deletion order in which RoleBindings go
// first: the order of Seed 4's bug (upstream ranges over a map of resources).
func rbFirst(objs []client.Object) {
	slices.SortStableFunc(objs, func(a, b client.Object) int {
		rank := func(o client.Object) int {
			if o.GetObjectKind().GroupVersionKind().Kind == "RoleBinding" {
				return 0
			}
			return 1
		}
		return rank(a) - rank(b)
	})
}

var _ = BeforeSuite(func() {
	ctrl.SetLogger(GinkgoLogr)
	s := runtime.NewScheme()
	Expect(clientgoscheme.AddToScheme(s)).To(Succeed())
	Expect(reposync.AddToScheme(s)).To(Succeed())
	var err error
	env, err = envtestenv.Start(assets, envtestenv.Options{Scheme: s, CRDs: []envtestenv.CRD{{
		GVK: reposync.RepoSyncGVK, Plural: reposync.RepoSyncPlural, Namespaced: true, Status: true, Type: &reposync.RepoSync{}}}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(env.Stop)
	// upstream's 5s grace period, shortened to keep the suite quick
	nc, err := env.StartNamespaceController(envtestenv.NamespaceControllerOptions{GracePeriod: 200 * time.Millisecond, Order: rbFirst,
		Content: []client.ObjectList{&corev1.ConfigMapList{}, &corev1.SecretList{}, &corev1.ServiceAccountList{}, &rbacv1.RoleList{},
			&rbacv1.RoleBindingList{}, &appsv1.DeploymentList{}, &reposync.RepoSyncList{}}})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(nc.Stop)

	// config-sync's installation: its namespace, the reconciler-manager's
	// rights, manifests/ns-reconciler-base-cluster-role.yaml, and the user's
	// ClusterRole for the declared ConfigMaps.
	for _, o := range []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: reposync.ControllerNamespace}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "reconciler-manager"},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "reconciler-manager"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "reconciler-manager"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: reposync.ControllerNamespace, Name: "reconciler-manager"}}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: reposync.RepoSyncBaseClusterRoleName},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{reposync.GroupVersion.Group}, Resources: []string{"reposyncs"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
				{APIGroups: []string{reposync.GroupVersion.Group}, Resources: []string{"reposyncs/status"}, Verbs: []string{"get", "update", "patch"}},
			}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: managedRoleBinding},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}},
	} {
		Expect(env.Admin.Create(ctx, o)).To(Succeed())
	}
	Expect(env.WaitAllowed(ctx, managerUser, authorizationv1.ResourceAttributes{Verb: "watch", Group: reposync.GroupVersion.Group,
		Resource: reposync.RepoSyncPlural}, 10*time.Second)).To(Succeed())
})

// syncRun is one spec's RepoSync repo-sync in a fresh namespace, with its two
// processes.
type syncRun struct {
	ns         string
	key        types.NamespacedName // the RepoSync
	reconciler types.NamespacedName // the ns-reconciler's Deployment and ServiceAccount
	// nsReconciler records the ns-reconciler's writes.
	nsReconciler *envtestenv.Recorder
	// recorded is nsReconciler, for the manager's goroutines (holdRemoval).
	recorded atomic.Pointer[envtestenv.Recorder]
}

// forbiddenWrites are the ns-reconciler's writes of its RepoSync that the API
// server forbade.
func (s *syncRun) forbiddenWrites() []envtestenv.Call {
	r := s.recorded.Load()
	if r == nil {
		return nil
	}
	var out []envtestenv.Call
	for _, c := range r.Calls() {
		if c.Object == s.key.String() && apierrors.IsForbidden(c.Err) {
			out = append(out, c)
		}
	}
	return out
}

// holdRemoval is the reconciler-manager's client with its removal of the
// reconciler finalizer held until the ns-reconciler has met a forbidden write
// (at most 10 s): the seed's interleaving, in which the ns-reconciler's
// Finalize runs after the RoleBinding went and before the manager takes its
// finalizer away. On a real cluster the manager can win that race (CI,
// 2026-11-25: the robust manager, reading the Namespace live, removed the
// finalizer before the ns-reconciler's first write, and the spec saw no
// forbidden write); the simulator reaches both orders by its interleavings.
type holdRemoval struct {
	client.Client
	s *syncRun
}

func (h holdRemoval) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if rs, ok := obj.(*reposync.RepoSync); ok && rs.DeletionTimestamp != nil && !controllerutil.ContainsFinalizer(rs, reposync.ReconcilerFinalizer) {
		for deadline := time.Now().Add(10 * time.Second); len(h.s.forbiddenWrites()) == 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
	}
	return h.Client.Update(ctx, obj, opts...)
}

// declared are the ConfigMaps the repository declares.
func declared() reposync.Source {
	s := reposync.Source{Commit: "c0ffee", Latency: 50 * time.Millisecond}
	for i := range 3 {
		s.Objects = append(s.Objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("declared-%d", i)}, Data: map[string]string{"k": "v"}})
	}
	return s
}

// start creates the namespace, the user's RoleBinding and a RepoSync with
// Foreground deletion, runs the reconciler-manager of variant v, and, once the
// manager has created its Deployment and the shared RoleBinding is in force,
// the ns-reconciler (the simulator binds it to its Deployment). With hold, the
// manager's removal of the reconciler finalizer waits for the ns-reconciler's
// first forbidden write (holdRemoval).
func start(v variant.Variant, hold bool) *syncRun {
	GinkgoHelper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bookstore-"}}
	Expect(env.Admin.Create(ctx, ns)).To(Succeed())
	s := &syncRun{ns: ns.Name, key: types.NamespacedName{Namespace: ns.Name, Name: reposync.RepoSyncName}}
	s.reconciler = reposync.ReconcilerKey(s.key)
	Expect(env.Admin.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: managedRoleBinding},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: managedRoleBinding},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: s.reconciler.Namespace, Name: s.reconciler.Name}}})).To(Succeed())
	Expect(env.Admin.Create(ctx, &reposync.RepoSync{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns.Name, Name: reposync.RepoSyncName,
			Annotations: map[string]string{reposync.DeletionPropagationPolicyAnnotation: reposync.DeletionPropagationForeground}},
		Spec: reposync.RepoSyncSpec{SourceType: "git", Git: &reposync.Git{Repo: "https://github.com/example/" + ns.Name, Revision: "HEAD", Auth: "none"}},
	})).To(Succeed())

	mgr, err := env.StartManager(envtestenv.ManagerOptions{As: &managerUser}, func(mgr ctrl.Manager) error {
		var c client.Client = mgr.GetClient()
		if hold {
			c = holdRemoval{Client: c, s: s}
		}
		return (&reposync.Manager{Client: c, APIReader: mgr.GetAPIReader(), Clock: clock.RealClock{}, Variant: v}).SetupWithManager(mgr)
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(mgr.Stop)

	Eventually(func() error { return env.Admin.Get(ctx, s.reconciler, &appsv1.Deployment{}) }).WithTimeout(10 * time.Second).Should(Succeed())
	user := envtestenv.ServiceAccountUser(s.reconciler.Namespace, s.reconciler.Name)
	Expect(env.WaitAllowed(ctx, user, authorizationv1.ResourceAttributes{Namespace: ns.Name, Verb: "watch",
		Group: reposync.GroupVersion.Group, Resource: reposync.RepoSyncPlural}, 10*time.Second)).To(Succeed())
	// Its rights are namespaced, so its cache must be too: a manager's default
	// cache lists and watches cluster-wide, which is forbidden (the simulator's
	// informers do not authorize their lists and watches).
	asUser, err := client.New(env.ConfigAs(user), client.Options{Scheme: env.Scheme})
	Expect(err).NotTo(HaveOccurred())
	Expect(apierrors.IsForbidden(asUser.List(ctx, &reposync.RepoSyncList{}))).To(BeTrue(), "a cluster-wide list as the ns-reconciler")
	nsr, err := env.StartManager(envtestenv.ManagerOptions{As: &user, Namespaces: []string{ns.Name}}, func(mgr ctrl.Manager) error {
		s.nsReconciler = envtestenv.Record(mgr.GetClient())
		s.recorded.Store(s.nsReconciler)
		stop := &reposync.Stop{}
		f := &reposync.Finalizer{Client: s.nsReconciler, Clock: clock.RealClock{}, Sync: s.key, Source: declared(), Stop: stop}
		if err := f.SetupWithManager(mgr); err != nil {
			return err
		}
		return (&reposync.Syncer{Client: s.nsReconciler, Clock: clock.RealClock{}, Sync: s.key, Source: declared(), Stop: stop}).SetupWithManager(mgr)
	})
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(nsr.Stop)
	return s
}

func (s *syncRun) repoSync() (*reposync.RepoSync, error) {
	var rs reposync.RepoSync
	return &rs, env.Admin.Get(ctx, s.key, &rs)
}

// synced waits until the ns-reconciler holds the RepoSync with its finalizer
// and has applied the declared ConfigMaps.
func (s *syncRun) synced() {
	GinkgoHelper()
	Eventually(func(g Gomega) {
		rs, err := s.repoSync()
		g.Expect(err).NotTo(HaveOccurred())
		g.Expect(rs.Finalizers).To(ConsistOf(reposync.ReconcilerManagerFinalizer, reposync.ReconcilerFinalizer))
		g.Expect(rs.Status.Reconciler).To(Equal(s.reconciler.Name))
		g.Expect(rs.Status.LastSyncedCommit).To(Equal("c0ffee"))
		var cms corev1.ConfigMapList
		g.Expect(env.Admin.List(ctx, &cms, client.InNamespace(s.ns), client.MatchingLabels{reposync.ManagedByLabel: reposync.ManagedByValue})).To(Succeed())
		g.Expect(cms.Items).To(HaveLen(3))
	}).WithTimeout(15 * time.Second).Should(Succeed())
}

func gone(obj client.Object) func() bool {
	return func() bool { return apierrors.IsNotFound(env.Admin.Get(ctx, client.ObjectKeyFromObject(obj), obj)) }
}

var _ = DescribeTable("deleting a RepoSync: the ns-reconciler destroys what it applied, then the reconciler-manager tears the ns-reconciler down",
	func(v variant.Variant) {
		s := start(v, false)
		DeferCleanup(func() { Expect(envtestenv.DeleteNamespace(ctx, env.Admin, s.ns, 30*time.Second)).To(Succeed()) })
		s.synced()
		Expect(env.Admin.Get(ctx, types.NamespacedName{Namespace: s.ns, Name: reposync.RepoSyncBaseRoleBindingName}, &rbacv1.RoleBinding{})).
			To(Succeed(), "the shared RoleBinding keeps upstream's name, colon included: kube-apiserver takes any path segment")

		rs, err := s.repoSync()
		Expect(err).NotTo(HaveOccurred())
		Expect(env.Admin.Delete(ctx, rs)).To(Succeed())
		Eventually(gone(rs)).WithTimeout(15 * time.Second).Should(BeTrue())
		var cms corev1.ConfigMapList
		Expect(env.Admin.List(ctx, &cms, client.InNamespace(s.ns), client.MatchingLabels{reposync.ManagedByLabel: reposync.ManagedByValue})).To(Succeed())
		Expect(cms.Items).To(BeEmpty(), "Foreground: the declared objects are destroyed first")
		meta := metav1.ObjectMeta{Namespace: s.reconciler.Namespace, Name: s.reconciler.Name}
		Expect(gone(&appsv1.Deployment{ObjectMeta: meta})()).To(BeTrue())
		Expect(gone(&corev1.ServiceAccount{ObjectMeta: meta})()).To(BeTrue())
		Expect(gone(&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: reposync.RepoSyncBaseRoleBindingName}})()).To(BeTrue())
		// Until it removes its finalizer (its last successful update), the
		// ns-reconciler's only errors are conflicts: its two controllers and the
		// manager write the same RepoSync, and withRetry re-reads. After that, a
		// reconcile that read its cache before its own update's event arrived
		// finalizes again, and its writes are forbidden once the manager has
		// deleted the shared RoleBinding: the simulator stops the process at
		// once when its Deployment goes (sim/process: no graceful shutdown), a
		// real pod runs on for its termination grace period.
		calls := s.nsReconciler.Calls()
		removed := -1
		for i := len(calls) - 1; i >= 0; i-- {
			if c := calls[i]; c.Verb == "update" && c.Object == s.key.String() && c.Err == nil {
				removed = i
				break
			}
		}
		Expect(removed).To(BeNumerically(">=", 0))
		for _, c := range calls[:removed] {
			if c.Err != nil {
				Expect(apierrors.IsConflict(c.Err)).To(BeTrue(), "%s %s: %v", c.Verb, c.Object, c.Err)
			}
		}
		for _, c := range calls[removed+1:] {
			if c.Err != nil {
				Expect(apierrors.IsConflict(c.Err) || apierrors.IsForbidden(c.Err) || apierrors.IsNotFound(c.Err)).To(BeTrue(), "%s %s: %v", c.Verb, c.Object, c.Err)
			}
		}
	},
	Entry("fixed (9e28c844b)", variant.Fixed), Entry("robust", variant.Robust))

var _ = DescribeTable("deleting the RepoSync's namespace, RoleBindings first: every write of the ns-reconciler's Finalize is forbidden, "+
	"and the reconciler-manager removes the reconciler finalizer itself so that the namespace finishes terminating",
	func(v variant.Variant) {
		s := start(v, true)
		s.synced()
		Expect(envtestenv.DeleteNamespace(ctx, env.Admin, s.ns, 30*time.Second)).To(Succeed())

		forbidden := s.forbiddenWrites()
		Expect(forbidden).NotTo(BeEmpty(), "the ns-reconciler's writes of its RepoSync after the shared RoleBinding went")
		Expect(forbidden[0].Err.Error()).To(MatchRegexp(`User "system:serviceaccount:%s:%s" cannot (update|patch) resource "reposyncs(/status)?" `+
			`in API group "configsync.gke.io" in the namespace "%s"`, reposync.ControllerNamespace, s.reconciler.Name, s.ns))
		meta := metav1.ObjectMeta{Namespace: s.reconciler.Namespace, Name: s.reconciler.Name}
		Eventually(gone(&appsv1.Deployment{ObjectMeta: meta})).Should(BeTrue(), "torn down")
	},
	Entry("fixed (9e28c844b: the namespace is Terminating in the manager's cache)", variant.Fixed),
	Entry("robust (the namespace is read live)", variant.Robust))
