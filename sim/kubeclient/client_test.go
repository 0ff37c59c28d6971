package kubeclient_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/informer"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

var ctx = context.Background()

type process struct {
	clock  *clock.Clock
	server *apiserver.Server
	cache  *informer.Cache
	client *kubeclient.Client
	calls  []kubeclient.Call
}

// newProcess returns a process whose cache lags the server by lag, acting as admin.
func newProcess(t *testing.T, lag time.Duration) *process {
	t.Helper()
	c := clock.New(clock.Epoch)
	s := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: c, CRDs: []apiserver.CRD{apiservertest.WidgetCRD}})
	s.CreateDefaultNamespaces()
	p := &process{clock: c, server: s}
	p.cache = informer.NewCache(s.Watcher(), c, s.Scheme(), func(schema.GroupVersionKind) informer.Lag {
		return func() time.Duration { return lag }
	})
	p.client = kubeclient.New(s, apiserver.Admin, kubeclient.Options{
		Cache: p.cache,
		Hooks: kubeclient.Hooks{Before: func(call kubeclient.Call) error { p.calls = append(p.calls, call); return nil }},
	})
	return p
}

func TestCachedReadsLagAndDirectReadsDoNot(t *testing.T) {
	p := newProcess(t, 2*time.Second)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}}
	// Start the informer first, as a controller's watch would.
	if err := p.client.List(ctx, &corev1.ConfigMapList{}); err != nil {
		t.Fatal(err)
	}
	if err := p.client.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	err := p.client.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{})
	if !apierrors.IsNotFound(err) {
		t.Fatalf("the cache does not show a write before the lag has passed, got %v", err)
	}
	if err := p.client.APIReader().Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}); err != nil {
		t.Fatalf("the API reader reads the server: %v", err)
	}
	p.clock.Step(2 * time.Second)
	got := &corev1.ConfigMap{}
	if err := p.client.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil {
		t.Fatalf("after the lag the cache shows the write: %v", err)
	}
	if got.ResourceVersion != cm.ResourceVersion {
		t.Errorf("cached rv %s, written rv %s", got.ResourceVersion, cm.ResourceVersion)
	}
	if len(p.calls) != 5 || !p.calls[0].Cached || p.calls[1].Verb != "create" || p.calls[3].Cached {
		t.Errorf("hooks see every call with its verb and whether the cache served it: %+v", p.calls)
	}
}

func TestWritesUpdateTheCallersObject(t *testing.T) {
	p := newProcess(t, 0)
	w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}}
	if err := p.client.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	before := w.DeepCopy()
	w.Spec.Size = 3
	if err := p.client.Patch(ctx, w, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
	if w.Generation != 2 || w.ResourceVersion == before.ResourceVersion {
		t.Errorf("patch returns the stored object: gen %d rv %s", w.Generation, w.ResourceVersion)
	}
	w.Status.Phase = "Ready"
	if err := p.client.Status().Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	stale := w.DeepCopy()
	w.Spec.Size = 4
	if err := p.client.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	stale.Spec.Size = 5
	if err := p.client.Update(ctx, stale); !apierrors.IsConflict(err) {
		t.Errorf("optimistic concurrency through the client: %v", err)
	}
	optimistic := client.MergeFromWithOptions(stale.DeepCopy(), client.MergeFromWithOptimisticLock{})
	stale.Spec.Size = 6
	if err := p.client.Patch(ctx, stale, optimistic); !apierrors.IsConflict(err) {
		t.Errorf("MergeFromWithOptimisticLock on a stale object conflicts: %v", err)
	}
}

func TestPreflightChecksOfClientGo(t *testing.T) {
	p := newProcess(t, 0)
	noNS := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"create without namespace", p.client.Create(ctx, noNS), "an empty namespace may not be set during creation"},
		{"get without namespace", p.client.APIReader().Get(ctx, client.ObjectKey{Name: "c"}, &corev1.ConfigMap{}), "an empty namespace may not be set when a resource name is provided"},
		{"update without name", p.client.Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default"}}), "resource name may not be empty"},
	} {
		if tc.err == nil || tc.err.Error() != tc.want {
			t.Errorf("%s: got %v, want %q", tc.name, tc.err, tc.want)
		}
	}
	err := p.client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "cluster-scoped", Namespace: "ignored"}})
	if err != nil {
		t.Errorf("a cluster-scoped object's namespace is not sent: %v", err)
	}
}

func TestIdentityIsAuthorized(t *testing.T) {
	p := newProcess(t, 0)
	sa := kubeclient.New(p.server, apiserver.ServiceAccount("default", "ctrl"), kubeclient.Options{})
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}}
	if err := sa.Create(ctx, cm); !apierrors.IsForbidden(err) {
		t.Fatalf("a ServiceAccount without a binding is forbidden: %v", err)
	}
	if err := p.client.Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "ctrl"},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "edit"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "default", Name: "ctrl"}},
	}); err != nil {
		t.Fatal(err)
	}
	if err := p.client.Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "edit"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"*"}}}}); err != nil {
		t.Fatal(err)
	}
	if err := sa.Create(ctx, cm); err != nil {
		t.Fatalf("with a binding: %v", err)
	}
}

func TestNamespaceFinalizeSubresource(t *testing.T) {
	p := newProcess(t, 0)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone"}}
	if err := p.client.Create(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if err := p.client.Delete(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if err := p.client.APIReader().Get(ctx, client.ObjectKeyFromObject(ns), ns); err != nil {
		t.Fatal(err)
	}
	ns.Spec.Finalizers = nil
	if err := p.client.SubResource("finalize").Update(ctx, ns); err != nil {
		t.Fatal(err)
	}
	if err := p.client.APIReader().Get(ctx, client.ObjectKeyFromObject(ns), ns); !apierrors.IsNotFound(err) {
		t.Errorf("a finalized terminating namespace is gone: %v", err)
	}
}

func TestMappingAndUnservedKinds(t *testing.T) {
	c := clock.New(clock.Epoch)
	s := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: c})
	cl := kubeclient.New(s, apiserver.Admin, kubeclient.Options{})
	w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}}
	if err := cl.Create(ctx, w); !meta.IsNoMatchError(err) {
		t.Errorf("a custom resource whose CRD is not installed: %v", err)
	}
	namespaced, err := cl.IsObjectNamespaced(&rbacv1.ClusterRole{})
	if err != nil || namespaced {
		t.Errorf("ClusterRole is cluster-scoped: %v %v", namespaced, err)
	}
	m, err := cl.RESTMapper().RESTMapping(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "v1")
	if err != nil || m.Resource.Resource != "deployments" || m.Scope.Name() != meta.RESTScopeNameNamespace {
		t.Errorf("REST mapping of Deployment: %+v %v", m, err)
	}
	gvk, err := cl.GroupVersionKindFor(&corev1.Pod{})
	if err != nil || gvk.Kind != "Pod" {
		t.Errorf("GVK of Pod: %v %v", gvk, err)
	}
}

// A write with client.DryRunAll (every verb, and a status update) reaches
// the server as a dry run: it is answered and stores nothing, and the
// hooks see it as one (Call.DryRun), so that the process does not count it
// as a write.
func TestADryRunWriteIsAnsweredStoresNothingAndIsSeenAsOne(t *testing.T) {
	p := newProcess(t, 0)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}, Data: map[string]string{"k": "v"}}
	if err := p.client.Create(ctx, cm, client.DryRunAll); err != nil || cm.UID == "" {
		t.Fatalf("a dry-run create: %v (uid %q), want the object as created", err, cm.UID)
	}
	if err := p.client.APIReader().Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after a dry-run create: %v, want nothing created", err)
	}
	real := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}}
	if err := p.client.Create(ctx, real); err != nil {
		t.Fatal(err)
	}
	up := real.DeepCopy()
	up.Data = map[string]string{"k": "new"}
	wd := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "w"}}
	if err := p.client.Create(ctx, wd); err != nil {
		t.Fatal(err)
	}
	rv := p.server.ResourceVersion()
	wd.Status.Phase = "Ready"
	for what, err := range map[string]error{
		"update":        p.client.Update(ctx, up.DeepCopy(), client.DryRunAll),
		"patch":         p.client.Patch(ctx, up.DeepCopy(), client.MergeFrom(real), client.DryRunAll),
		"status update": p.client.Status().Update(ctx, wd, client.DryRunAll),
		"delete":        p.client.Delete(ctx, up.DeepCopy(), client.DryRunAll),
		"deleteallof":   p.client.DeleteAllOf(ctx, &corev1.ConfigMap{}, client.InNamespace("default"), client.DryRunAll),
	} {
		if err != nil {
			t.Errorf("a dry-run %s: %v", what, err)
		}
	}
	if got := p.server.ResourceVersion(); got != rv {
		t.Errorf("the server moved from resourceVersion %d to %d after dry runs alone", rv, got)
	}
	dry := 0
	for _, c := range p.calls {
		if c.DryRun {
			dry++
		}
	}
	if dry != 6 {
		t.Errorf("the hooks saw %d dry-run calls, want 6: %+v", dry, p.calls)
	}
}
