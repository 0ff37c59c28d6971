package differential

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// The namespace-deletion and collection scripts run on envtest with the real
// kube-controller-manager's namespace controller and garbage collector
// (--controllers=namespace-controller,garbage-collector-controller) and in the
// simulator with models/kube's, over every kind the apiserver model stores
// (kubeworld.SetupEveryKind), as a world holding every kind runs them. After
// each step settles, the objects the script names are recorded (present,
// deleting, or absent; a namespace's phase and deletion conditions, times
// left out; whether the collector reported OwnerRefInvalidNamespace on an
// object), and the two sides' records must be the same, step by step.

// nsgcControllers are the controllers the scripts run on the real side.
var nsgcControllers = []string{"namespace-controller", "garbage-collector-controller"}

// An nsgcStep is one step of a script: an action, then the controllers until
// Settled holds (or the timeout).
type nsgcStep struct {
	Name    string
	Do      func(ctx context.Context, c client.Client) error
	Settled func(ctx context.Context, c client.Client) bool
}

// nsgcScript is a script: its steps and the objects it records.
type nsgcScript struct {
	steps   []nsgcStep
	records []client.Object // each read by its kind and key
}

const (
	nsgcNamespace = "nsgc-tenant"
	nsgcOwnerNS   = "nsgc-owners"
	nsgcHold      = "example.com/hold"
)

func nsgcMeta(ns, name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: name} }

// nsgcScripts are the scripts, by name.
func nsgcScripts() map[string]nsgcScript {
	labels := map[string]string{"app": "web"}
	content := []client.Object{
		&rbacv1.Role{ObjectMeta: nsgcMeta(nsgcNamespace, "reader"), Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}}}},
		&rbacv1.RoleBinding{ObjectMeta: nsgcMeta(nsgcNamespace, "reader"), RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "reader"},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "alice"}}},
		&corev1.ResourceQuota{ObjectMeta: nsgcMeta(nsgcNamespace, "quota"), Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("5")}}},
		&corev1.LimitRange{ObjectMeta: nsgcMeta(nsgcNamespace, "limits"), Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{Type: corev1.LimitTypeContainer,
			Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}},
		&networkingv1.NetworkPolicy{ObjectMeta: nsgcMeta(nsgcNamespace, "same-namespace"), Spec: networkingv1.NetworkPolicySpec{
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress},
			Ingress:     []networkingv1.NetworkPolicyIngressRule{{From: []networkingv1.NetworkPolicyPeer{{PodSelector: &metav1.LabelSelector{}}}}}}},
		&corev1.ServiceAccount{ObjectMeta: nsgcMeta(nsgcNamespace, "robot")},
		&coordinationv1.Lease{ObjectMeta: nsgcMeta(nsgcNamespace, "leader")},
		&policyv1.PodDisruptionBudget{ObjectMeta: nsgcMeta(nsgcNamespace, "web"), Spec: policyv1.PodDisruptionBudgetSpec{
			MinAvailable: ptrIntStr(intstr.FromInt32(1)), Selector: &metav1.LabelSelector{MatchLabels: labels}}},
	}
	held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: nsgcNamespace, Name: "held", Finalizers: []string{nsgcHold}}}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsgcNamespace}}

	clusterOwner := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "nsgc-owner"}}
	nsOwner := &corev1.ConfigMap{ObjectMeta: nsgcMeta(nsgcOwnerNS, "owner")}
	ownerNS := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: nsgcOwnerNS}}
	depBinding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "nsgc-dependent"},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "nsgc-owner"}}
	depNS := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "nsgc-dependent"}}
	depCM := &corev1.ConfigMap{ObjectMeta: nsgcMeta(nsgcOwnerNS, "dependent")}
	invalid := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "nsgc-invalid-owner"}}

	return map[string]nsgcScript{
		"namespace-rbac-quota": {
			records: append([]client.Object{ns, held}, content...),
			steps: []nsgcStep{
				{Name: "a namespace with RBAC, quota, limits, a policy, a service account, a lease, a PDB and a ConfigMap under a finalizer",
					Do: func(ctx context.Context, c client.Client) error {
						for _, o := range append([]client.Object{ns, held}, content...) {
							if err := c.Create(ctx, fresh(o)); err != nil {
								return err
							}
						}
						return nil
					}, Settled: func(context.Context, client.Client) bool { return true }},
				{Name: "the namespace deleted: its content goes, but the ConfigMap its finalizer holds",
					Do: func(ctx context.Context, c client.Client) error { return c.Delete(ctx, fresh(ns)) },
					Settled: func(ctx context.Context, c client.Client) bool {
						var n corev1.Namespace
						if err := c.Get(ctx, client.ObjectKeyFromObject(ns), &n); err != nil {
							return false
						}
						return slices.ContainsFunc(n.Status.Conditions, func(cd corev1.NamespaceCondition) bool {
							return cd.Type == corev1.NamespaceFinalizersRemaining && cd.Status == corev1.ConditionTrue
						}) && gone(ctx, c, content...)
					}},
				{Name: "the finalizer removed: the namespace goes",
					Do: func(ctx context.Context, c client.Client) error {
						cm := &corev1.ConfigMap{}
						if err := c.Get(ctx, client.ObjectKeyFromObject(held), cm); err != nil {
							return err
						}
						cm.Finalizers = nil
						return c.Update(ctx, cm)
					},
					Settled: func(ctx context.Context, c client.Client) bool { return gone(ctx, c, ns) }},
			},
		},
		"gc-cluster-scoped": {
			records: []client.Object{clusterOwner, nsOwner, depBinding, depNS, depCM, invalid},
			steps: []nsgcStep{
				{Name: "a ClusterRole owning a ClusterRoleBinding, a Namespace and a ConfigMap; a ClusterRole naming a namespaced owner",
					Do: func(ctx context.Context, c client.Client) error {
						co, no := fresh(clusterOwner), fresh(nsOwner)
						for _, o := range []client.Object{fresh(ownerNS), co, no} {
							if err := c.Create(ctx, o); err != nil {
								return err
							}
						}
						byCluster := []metav1.OwnerReference{{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: co.GetName(), UID: co.GetUID()}}
						for _, o := range []client.Object{depBinding, depNS, depCM} {
							d := fresh(o)
							d.SetOwnerReferences(byCluster)
							if err := c.Create(ctx, d); err != nil {
								return err
							}
						}
						bad := fresh(invalid)
						bad.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: no.GetName(), UID: no.GetUID()}})
						return c.Create(ctx, bad)
					},
					Settled: func(ctx context.Context, c client.Client) bool { return reported(ctx, c, invalid.Name) }},
				{Name: "both owners deleted: the ClusterRole's dependents are collected, the invalid reference's object is not",
					Do: func(ctx context.Context, c client.Client) error {
						for _, o := range []client.Object{clusterOwner, nsOwner} {
							if err := c.Delete(ctx, fresh(o)); err != nil {
								return err
							}
						}
						return nil
					},
					Settled: func(ctx context.Context, c client.Client) bool { return gone(ctx, c, depBinding, depNS, depCM) }},
			},
		},
	}
}

func ptrIntStr(v intstr.IntOrString) *intstr.IntOrString { return &v }

// fresh is a copy of o to write.
func fresh(o client.Object) client.Object { return o.DeepCopyObject().(client.Object) }

// gone reports whether none of objs exists.
func gone(ctx context.Context, c client.Client, objs ...client.Object) bool {
	for _, o := range objs {
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), fresh(o)); !apierrors.IsNotFound(err) {
			return false
		}
	}
	return true
}

// reported reports whether the collector recorded OwnerRefInvalidNamespace on
// the cluster-scoped object named name.
func reported(ctx context.Context, c client.Client, name string) bool {
	var events corev1.EventList
	if err := c.List(ctx, &events); err != nil {
		return false
	}
	return slices.ContainsFunc(events.Items, func(e corev1.Event) bool {
		return e.Reason == "OwnerRefInvalidNamespace" && e.InvolvedObject.Name == name && e.Source.Component == "garbage-collector-controller"
	})
}

// nsgcLines records the objects of a script: each present (with its
// finalizers, and deleting or not), or absent; a namespace's phase and
// deletion conditions; whether OwnerRefInvalidNamespace was reported on it.
func nsgcLines(ctx context.Context, c client.Client, objs []client.Object) []string {
	var out []string
	for _, o := range objs {
		got := fresh(o)
		kind := fmt.Sprintf("%T", o)
		key := client.ObjectKeyFromObject(o).String()
		err := c.Get(ctx, client.ObjectKeyFromObject(o), got)
		switch {
		case apierrors.IsNotFound(err):
			out = append(out, kind+" "+key+": absent")
			continue
		case err != nil:
			out = append(out, kind+" "+key+": "+err.Error())
			continue
		}
		line := fmt.Sprintf("%s %s: present, finalizers %v, deleting %t", kind, key, got.GetFinalizers(), got.GetDeletionTimestamp() != nil)
		if n, ok := got.(*corev1.Namespace); ok {
			line += fmt.Sprintf(", phase %s, spec.finalizers %v", n.Status.Phase, n.Spec.Finalizers)
			for _, t := range conditionTypes() {
				for _, cd := range n.Status.Conditions {
					if cd.Type == t {
						line += fmt.Sprintf("\n  condition %s=%s %s: %s", cd.Type, cd.Status, cd.Reason, cd.Message)
					}
				}
			}
		}
		if o.GetNamespace() == "" && reported(ctx, c, o.GetName()) {
			line += ", OwnerRefInvalidNamespace reported"
		}
		out = append(out, line)
	}
	return out
}

// conditionTypes are the namespace deletion conditions in upstream's order.
func conditionTypes() []corev1.NamespaceConditionType {
	return []corev1.NamespaceConditionType{corev1.NamespaceDeletionDiscoveryFailure, corev1.NamespaceDeletionGVParsingFailure,
		corev1.NamespaceDeletionContentFailure, corev1.NamespaceContentRemaining, corev1.NamespaceFinalizersRemaining}
}

// runNSGC runs script on side: each step, then polls until it settles (at
// most timeout of the side's time), then records.
func runNSGC(ctx context.Context, side WorkloadSide, script nsgcScript, poll, timeout time.Duration) ([]WorkloadRecord, error) {
	c := side.Client()
	var out []WorkloadRecord
	for _, s := range script.steps {
		if err := s.Do(ctx, c); err != nil {
			return out, fmt.Errorf("%s: %w", s.Name, err)
		}
		for waited := time.Duration(0); !s.Settled(ctx, c); waited += poll {
			if err := side.Failed(); err != nil {
				return out, err
			}
			if waited > timeout {
				return out, fmt.Errorf("%s: not settled after %v:\n  %s", s.Name, timeout, strings.Join(nsgcLines(ctx, c, script.records), "\n  "))
			}
			side.Wait(poll)
		}
		out = append(out, WorkloadRecord{Step: s.Name, Lines: nsgcLines(ctx, c, script.records)})
	}
	return out, nil
}

// nsgcOnKubeControllerManager runs every script on a fresh envtest with the
// real namespace controller and garbage collector.
func nsgcOnKubeControllerManager(t *testing.T) map[string][]WorkloadRecord {
	t.Helper()
	assets, err := assetsFromEnv()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("envtest is required here: %v", err)
		}
		t.Skipf("skipping the namespace and collector comparison: %v", err)
	}
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: Scheme})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	kcm, err := StartKubeControllerManager(assets, env.Environment.KubeConfig, nsgcControllers)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = kcm.Stop() }()
	side := &realSide{c: env.Admin, kcm: kcm}
	out := map[string][]WorkloadRecord{}
	for name, script := range nsgcScripts() {
		recs, err := runNSGC(context.Background(), side, script, 200*time.Millisecond, 90*time.Second)
		if err != nil {
			t.Fatalf("%s on kube-controller-manager: %v\nits log ends:\n%s", name, err, kcm.Log(30))
		}
		out[name] = recs
	}
	return out
}

// nsgcOnModels runs script in a fresh simulated cluster whose
// kube-controller-manager runs models/kube's namespace controller and
// collector over every kind the apiserver model stores.
func nsgcOnModels(script nsgcScript) ([]WorkloadRecord, error) {
	var kinds []schema.GroupVersionKind
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: Scheme,
		Processes: []process.Spec{{Name: "kube-controller-manager", StartDelay: time.Second, Setup: func(p *process.Process) error {
			return kubeworld.SetupEveryKind(p, kinds)
		}}},
	})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	if kinds, err = kubeworld.StoredKinds(c.Server, c.Admin().RESTMapper()); err != nil {
		return nil, err
	}
	c.RunFor(2 * time.Second)
	return runNSGC(context.Background(), &simSide{c: c}, script, 200*time.Millisecond, 90*time.Second)
}

// TestNamespaceDeletionAndCollectionMatchKubeControllerManager runs each
// script on the real kube-controller-manager and on the models and requires
// the same records, step by step: a namespace's RBAC, quota, limits, policy,
// service account, lease and PDB deleted with it and its conditions while a
// finalizer holds a ConfigMap (namespace-rbac-quota); a cluster-scoped
// owner's cluster-scoped and namespaced dependents collected, and a
// cluster-scoped object naming a namespaced owner reported and kept
// (gc-cluster-scoped).
func TestNamespaceDeletionAndCollectionMatchKubeControllerManager(t *testing.T) {
	real := nsgcOnKubeControllerManager(t)
	for name, script := range nsgcScripts() {
		t.Run(name, func(t *testing.T) {
			model, err := nsgcOnModels(script)
			if err != nil {
				t.Fatalf("on the models: %v", err)
			}
			if d := diffRecords(real[name], model, nil); d != "" {
				t.Errorf("the models diverge from kube-controller-manager (-kube-controller-manager +models):\n%s", d)
			}
		})
	}
}
