package reposync

import (
	"context"
	"math/rand/v2"
	"sync"
	"time"

	otworld "github.com/ctrlsim/ctrlsim/operatortest/world"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/controllers/reposync"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The reposync/ entries as operatortest tests of config-sync's
// reconciler-manager's variants, written with the public API: the reconciler-manager as its ServiceAccount; the ns-reconciler as
// the pod of the Deployment the manager keeps for it
// (operatortest.Manager.Deployment, 2 s to start) and as its own
// ServiceAccount; kube-controller-manager as a manager of the test (not
// operatortest's built-in one: its namespace controller's deletion order and
// pace are the plan's, set by the delete-namespace step through the
// namespace-deletion System and otherwise drawn from the plan's seed, as
// upstream's order comes from iterating a map).

// Deletion is the System that holds kube-controller-manager's namespace
// deletion order and pace in a run.
const Deletion = "namespace-deletion"

// PropDeletionCompletes is the entries' domain property: no object, the
// namespace included, is still being deleted at the end of the heal budget
// (check.Terminates). Unlike the generic terminates oracle it is absolute:
// a correct reconciler-manager lets every deletion finish, in fault-free
// runs too.
const PropDeletionCompletes = "deletion-completes"

// NamespaceDeleted is reposync/namespace-deleted: bookstore is deleted once,
// within 20 s, with the namespace controller's order and pace drawn; faults
// of every process (lags, holds, latency) on RepoSyncs, RoleBindings and
// Deployments.
func NamespaceDeleted(v variant.Variant) operatortest.Options {
	o := reposyncOptions(v, deleteNamespaceStep())
	o.Faults.Processes = []string{KubeControllerManager, ReconcilerManager, ReconcilerProcess(Namespace)}
	o.Faults.Kinds = []schema.GroupVersionKind{reposync.RepoSyncGVK, rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), appsv1.SchemeGroupVersion.WithKind("Deployment")}
	return o
}

// NamespaceDeletedStaleCache is reposync/namespace-deleted-stale-cache: the
// same deletion, faults only of the reconciler-manager's Namespace cache
// (lags and holds).
func NamespaceDeletedStaleCache(v variant.Variant) operatortest.Options {
	o := reposyncOptions(v, deleteNamespaceStep())
	o.Faults.Classes = []plan.FaultKind{plan.Lag, plan.Hold}
	o.Faults.Processes = []string{ReconcilerManager}
	o.Faults.Kinds = []schema.GroupVersionKind{corev1.SchemeGroupVersion.WithKind("Namespace")}
	return o
}

// RoleBindingRevoked is reposync/rolebinding-revoked: the RepoSync is
// deleted 5 to 20 s in (once the ns-reconciler, up 2 s after its Deployment,
// has added its finalizer, as the kernel's entry drew it) and the shared
// RoleBinding revoked within 3 s after,
// with the faults of NamespaceDeleted.
func RoleBindingRevoked(v variant.Variant) operatortest.Options {
	ns := []operatortest.Param{{Key: "ns", Values: []string{Namespace}}}
	o := reposyncOptions(v,
		operatortest.DomainStep{Name: "delete-reposync", Params: ns, From: 5 * time.Second, Within: 20 * time.Second, Min: 1, Max: 1,
			Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
				return env.Client.Delete(ctx, &reposync.RepoSync{ObjectMeta: metav1.ObjectMeta{Namespace: a.Get("ns"), Name: reposync.RepoSyncName}})
			}},
		operatortest.DomainStep{Name: "revoke-rolebinding", Params: ns, After: "delete-reposync", Within: 3 * time.Second, Min: 1, Max: 1,
			Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
				return env.Client.Delete(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: a.Get("ns"), Name: reposync.RepoSyncBaseRoleBindingName}})
			}})
	o.Faults.Processes = []string{KubeControllerManager, ReconcilerManager, ReconcilerProcess(Namespace)}
	o.Faults.Kinds = []schema.GroupVersionKind{reposync.RepoSyncGVK, rbacv1.SchemeGroupVersion.WithKind("RoleBinding"), appsv1.SchemeGroupVersion.WithKind("Deployment")}
	return o
}

// deleteNamespaceStep deletes bookstore, once, within 20 s, with the
// namespace controller's order (first=: the kinds it deletes first; none:
// the seed's shuffle) and pace (its time per object) drawn.
func deleteNamespaceStep() operatortest.DomainStep {
	return operatortest.DomainStep{
		Name: "delete-namespace", Within: 20 * time.Second, Min: 1, Max: 1,
		Keys: []string{"ns", "first", "pace"},
		Draw: func(t *rapid.T) operatortest.Args {
			args := operatortest.Args{{Key: "ns", Value: Namespace}}
			if first := rapid.SampledFrom(deletionOrders).Draw(t, "first"); first != "" {
				args = append(args, plan.Arg{Key: "first", Value: first})
			}
			pace := time.Duration(rapid.IntRange(0, 10).Draw(t, "pace")) * 100 * time.Millisecond
			return append(args, plan.Arg{Key: "pace", Value: pace.String()})
		},
		Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
			if err := env.System(Deletion).(*deletionSystem).set(a.Get("first"), a.Get("pace")); err != nil {
				return err
			}
			return env.Client.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: a.Get("ns")}})
		},
	}
}

// deletionSystem is a run's namespace deletion: the order and pace a
// delete-namespace step set (deletion), and the plan
// seed's draws for the rest (a shuffle of each pass, up to 500 ms an
// object).
type deletionSystem struct {
	deletion
	rand *rand.Rand
}

func (d *deletionSystem) shuffle(n int, swap func(i, j int)) { d.rand.Shuffle(n, swap) }

// drawnDelay is the pace no step set: drawn from the plan's seed.
func (d *deletionSystem) drawnDelay(client.Object) time.Duration {
	return time.Duration(d.rand.Int64N(int64(500 * time.Millisecond)))
}

// Test is the world of o as an operatortest test with a fault phase and a
// heal budget, every step of the world declared and no fault class drawn (a
// plan's faults are its text's): the world the package's specs replay their
// plans on (operatortest.Replay). Steps:
//
//	at 30s delete-namespace ns=bookstore [first=RoleBinding,RepoSync] [pace=1s]
//	at 30s delete-reposync ns=bookstore
//	at 30s revoke-rolebinding ns=bookstore [name=configsync.gke.io:ns-reconciler]
//
// first= lists the kinds the namespace controller deletes first, in that
// order, pace= its time per object; unset, the plan's seed draws them.
func Test(o Options, faultPhase, heal time.Duration) operatortest.Options {
	nsOf := func(*rapid.T) operatortest.Args { return operatortest.Args{{Key: "ns", Value: Namespace}} }
	opts := world(o, deleteNamespaceStep(),
		operatortest.DomainStep{Name: "delete-reposync", Keys: []string{"ns"}, Draw: nsOf,
			Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
				return env.Client.Delete(ctx, &reposync.RepoSync{ObjectMeta: metav1.ObjectMeta{Namespace: a.Get("ns"), Name: reposync.RepoSyncName}})
			}},
		operatortest.DomainStep{Name: "revoke-rolebinding", Keys: []string{"ns", "name"}, Draw: nsOf,
			Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
				name := a.Get("name")
				if name == "" {
					name = reposync.RepoSyncBaseRoleBindingName
				}
				return env.Client.Delete(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: a.Get("ns"), Name: name}})
			}})
	opts.Faults = operatortest.Faults{Classes: []plan.FaultKind{}}
	opts.FaultPhase, opts.HealBudget = faultPhase, heal
	return opts
}

// reposyncOptions are the options every reposync/ entry shares, with the
// entry's workload steps.
func reposyncOptions(v variant.Variant, steps ...operatortest.DomainStep) operatortest.Options {
	return world(Options{Variant: v}, steps...)
}

// world is the world of o (one ns-reconciler per namespace) with the
// workload steps given.
func world(o Options, steps ...operatortest.DomainStep) operatortest.Options {
	o = o.withDefaults()
	v := o.Variant
	terminates := otworld.FromCheck(check.Terminates{})
	terminates.Name = PropDeletionCompletes
	return operatortest.Options{
		Scheme: sharedScheme(),
		CRDs:   crds(),
		Systems: []operatortest.System{{Name: Deletion, New: func(env operatortest.SystemEnv) (any, error) {
			return &deletionSystem{rand: env.Rand}, nil
		}}},
		Managers: append([]operatortest.Manager{
			{Name: KubeControllerManager, SetupWithSystems: func(mgr manager.Manager, s operatortest.Systems) error {
				d := s[Deletion].(*deletionSystem)
				return SetupKubeControllerManager(mgr, catalogue.ClockOf(mgr), d.shuffle, d.order(nil), d.delay(d.drawnDelay))
			}},
			{Name: ReconcilerManager, ServiceAccount: &types.NamespacedName{Namespace: reposync.ControllerNamespace, Name: ReconcilerManager},
				Setup: func(mgr manager.Manager) error {
					return (&reposync.Manager{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: catalogue.ClockOf(mgr), Variant: v}).SetupWithManager(mgr)
				}},
		}, nsReconcilers(o)...),
		Objects:  setupObjects(o), // config-sync's installation and the user's RBAC and RepoSync
		Workload: operatortest.Workload{Steps: []operatortest.StepKind{}, Domain: steps},
		Faults:   operatortest.Faults{Classes: []plan.FaultKind{plan.Lag, plan.Hold, plan.Latency}, MaxLag: 3 * time.Second},
		// kube-controller-manager is the test's own (its namespace
		// controller's order and pace are the plan's).
		NoBuiltinControllers: true,
		NoWorkloadModels:     true,
		Properties:           []operatortest.Property{terminates},
		FaultPhase:           30 * time.Second,
		HealBudget:           30 * time.Second,
	}
}

// nsReconcilers are the ns-reconciler of each namespace of o: the pod of
// the Deployment the reconciler-manager keeps for it (up 2 s after it), as
// its ServiceAccount.
func nsReconcilers(o Options) []operatortest.Manager {
	var out []operatortest.Manager
	for _, ns := range o.Namespaces {
		sync := types.NamespacedName{Namespace: ns, Name: reposync.RepoSyncName}
		key := reposync.ReconcilerKey(sync)
		out = append(out, operatortest.Manager{Name: key.Name, ServiceAccount: &key, Deployment: &key, StartDelay: 2 * time.Second,
			Setup: func(mgr manager.Manager) error {
				clk, stop := catalogue.ClockOf(mgr), &reposync.Stop{}
				if err := (&reposync.Finalizer{Client: mgr.GetClient(), Clock: clk, Sync: sync, Source: source(o), Stop: stop}).SetupWithManager(mgr); err != nil {
					return err
				}
				return (&reposync.Syncer{Client: mgr.GetClient(), Clock: clk, Sync: sync, Source: source(o), Stop: stop}).SetupWithManager(mgr)
			}})
	}
	return out
}

// crds are the world's CRDs as manifests (envtest's, from the Go types).
var crds = sync.OnceValue(func() [][]byte {
	return catalogue.CRDManifests(envtestenv.CRD{GVK: reposync.RepoSyncGVK, Plural: reposync.RepoSyncPlural, Namespaced: true, Status: true, Type: &reposync.RepoSync{}})
})

// OnOperatortest are the reposync/ entries (Entries, their text) with their
// tests: what the catalogue runs.
func OnOperatortest() []*catalogue.Entry {
	return catalogue.Ported(Entries(), map[string]func(variant.Variant) operatortest.Options{
		"reposync/namespace-deleted":             NamespaceDeleted,
		"reposync/namespace-deleted-stale-cache": NamespaceDeletedStaleCache,
		"reposync/rolebinding-revoked":           RoleBindingRevoked,
	})
}
