package reposync

import (
	"fmt"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/controllers/reposync"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// Process names.
const (
	KubeControllerManager = "kube-controller-manager"
	ReconcilerManager     = "reconciler-manager"
)

// ReconcilerProcess is the process name of the ns-reconciler of namespace ns
// (its Deployment's name).
func ReconcilerProcess(ns string) string { return reposync.NsReconcilerName(ns, reposync.RepoSyncName) }

// ManagedRoleBinding is the RoleBinding a user creates in each RepoSync
// namespace so that the ns-reconciler may manage the declared ConfigMaps.
const ManagedRoleBinding = "ns-reconciler-configmaps"

// Options describe a world.
type Options struct {
	Variant variant.Variant
	// Namespaces each hold a RepoSync "repo-sync" (Foreground deletion) served
	// by its own ns-reconciler. Default: "bookstore".
	Namespaces []string
	// Declared is how many ConfigMaps each repository declares. Default 3.
	Declared int
	// Latency is how long the ns-reconciler takes per object it applies or
	// destroys. Default 200ms.
	Latency time.Duration
}

func (o Options) withDefaults() Options {
	if len(o.Namespaces) == 0 {
		o.Namespaces = []string{"bookstore"}
	}
	if o.Declared == 0 {
		o.Declared = 3
	}
	if o.Latency == 0 {
		o.Latency = 200 * time.Millisecond
	}
	if o.Variant == "" {
		o.Variant = variant.Buggy
	}
	return o
}

// Scheme has client-go's types and RepoSync.
func Scheme() *runtime.Scheme { return catalogue.NewScheme(reposync.AddToScheme) }

// sharedScheme is one Scheme for every world: a scheme is only read once
// built, and building client-go's costs more than a short run of a world.
var sharedScheme = sync.OnceValue(Scheme)

// content is what the namespace controller deletes (its discovery).
func content() []client.ObjectList {
	return []client.ObjectList{
		&corev1.ConfigMapList{}, &corev1.SecretList{}, &corev1.ServiceAccountList{},
		&rbacv1.RoleList{}, &rbacv1.RoleBindingList{}, &appsv1.DeploymentList{}, &reposync.RepoSyncList{},
	}
}

// collected are the kinds the garbage collector watches.
func collected() []client.Object {
	return []client.Object{
		&corev1.ConfigMap{}, &corev1.Secret{}, &corev1.ServiceAccount{},
		&rbacv1.RoleBinding{}, &appsv1.Deployment{}, &reposync.RepoSync{},
	}
}

// source is what every ns-reconciler syncs: n ConfigMaps.
func source(o Options) reposync.Source {
	s := reposync.Source{Commit: "c0ffee", Latency: o.Latency}
	for i := range o.Declared {
		s.Objects = append(s.Objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("declared-%d", i)}, Data: map[string]string{"k": "v"}})
	}
	return s
}

// deletion is how the namespace controller deletes content as a plan's
// delete-namespace step sets it: first= lists kinds it deletes first, in that
// order (kube.DeleteFirst, after the pass's shuffle), pace= its time per object.
// Unset, the plan's seed decides (deletionSystem).
type deletion struct {
	first []string
	pace  *time.Duration
}

func (d *deletion) order(base func([]client.Object)) func([]client.Object) {
	return func(objs []client.Object) {
		if d.first != nil {
			kube.DeleteFirst(d.first...)(objs)
		} else if base != nil {
			base(objs)
		}
	}
}

func (d *deletion) delay(base func(client.Object) time.Duration) func(client.Object) time.Duration {
	return func(o client.Object) time.Duration {
		if d.pace != nil {
			return *d.pace
		}
		return base(o)
	}
}

// set reads a delete-namespace step's first= and pace= (either may be "":
// unset).
func (d *deletion) set(first, pace string) error {
	if first != "" {
		d.first = strings.Split(first, ",")
	}
	if pace != "" {
		p, err := time.ParseDuration(pace)
		if err != nil || p < 0 {
			return fmt.Errorf("delete-namespace: pace: want a duration, got %q", pace)
		}
		d.pace = &p
	}
	return nil
}

// SetupKubeControllerManager is kube-controller-manager's main in this world:
// the namespace controller (with the plan's deletion order and pace) and the
// garbage collector of the collected kinds, through their SetupWithManager.
func SetupKubeControllerManager(mgr manager.Manager, clk clock.WithTicker, shuffle func(int, func(int, int)), order func([]client.Object), delay func(client.Object) time.Duration) error {
	nc := &kube.NamespaceController{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: clk,
		Content: content(), Shuffle: shuffle, Order: order, Delay: delay,
	}
	if err := nc.SetupWithManager(mgr); err != nil {
		return err
	}
	gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(), Kinds: collected()}
	return gc.SetupWithManager(mgr)
}

// setupObjects are the world's objects: config-sync's installation, and the
// namespaces, RBAC and RepoSyncs of the user, in order.
func setupObjects(o Options) []client.Object {
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: reposync.ControllerNamespace}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ReconcilerManager},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}}},
		&rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: ReconcilerManager},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ReconcilerManager},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: reposync.ControllerNamespace, Name: ReconcilerManager}}},
		// manifests/ns-reconciler-base-cluster-role.yaml
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: reposync.RepoSyncBaseClusterRoleName},
			Rules: []rbacv1.PolicyRule{
				{APIGroups: []string{reposync.GroupVersion.Group}, Resources: []string{"reposyncs"}, Verbs: []string{"get", "list", "watch", "update", "patch"}},
				{APIGroups: []string{reposync.GroupVersion.Group}, Resources: []string{"reposyncs/status"}, Verbs: []string{"get", "update", "patch"}},
				{APIGroups: []string{"kpt.dev"}, Resources: []string{"resourcegroups", "resourcegroups/status"}, Verbs: []string{"*"}},
			}},
		&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: ManagedRoleBinding},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}},
	}
	for _, ns := range o.Namespaces {
		key := reposync.ReconcilerKey(types.NamespacedName{Namespace: ns, Name: reposync.RepoSyncName})
		objs = append(objs,
			&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
			&rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: ManagedRoleBinding},
				RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: ManagedRoleBinding},
				Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: key.Namespace, Name: key.Name}}},
			&reposync.RepoSync{
				ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: reposync.RepoSyncName,
					Annotations: map[string]string{reposync.DeletionPropagationPolicyAnnotation: reposync.DeletionPropagationForeground}},
				Spec: reposync.RepoSyncSpec{SourceType: "git", Git: &reposync.Git{Repo: "https://github.com/example/" + ns, Revision: "HEAD", Auth: "none"}},
			})
	}
	return objs
}
