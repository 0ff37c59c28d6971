package reposync

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
)

var gapEpoch = time.Date(2024, 4, 12, 0, 0, 0, 0, time.UTC)

const gapNS = "bookstore"

var gapKey = types.NamespacedName{Namespace: gapNS, Name: RepoSyncName}

// writes records the kinds of a fake client's writes, in order: "create
// Deployment", "patch apply Deployment", "delete ConfigMap" ...
type writes struct{ log []string }

func (w *writes) client(t *testing.T, objs ...client.Object) client.Client {
	t.Helper()
	s := scheme(t)
	kind := func(o client.Object) string {
		gvk, _ := apiutil.GVKForObject(o, s)
		return gvk.Kind + " " + o.GetName()
	}
	return fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&RepoSync{}).
		WithInterceptorFuncs(interceptor.Funcs{
			Create: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.CreateOption) error {
				w.log = append(w.log, "create "+kind(o))
				return c.Create(ctx, o, opts...)
			},
			Update: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.UpdateOption) error {
				w.log = append(w.log, "update "+kind(o))
				return c.Update(ctx, o, opts...)
			},
			Patch: func(ctx context.Context, c client.WithWatch, o client.Object, p client.Patch, opts ...client.PatchOption) error {
				w.log = append(w.log, "patch "+string(p.Type())+" "+kind(o))
				return c.Patch(ctx, o, p, opts...)
			},
			Delete: func(ctx context.Context, c client.WithWatch, o client.Object, opts ...client.DeleteOption) error {
				w.log = append(w.log, "delete "+kind(o))
				return c.Delete(ctx, o, opts...)
			},
		}).Build()
}

func TestTheManagerMakesOnlyTheServiceAccountRoleBindingAndDeployment(t *testing.T) {
	var w writes
	rs := &RepoSync{ObjectMeta: metav1.ObjectMeta{Namespace: gapNS, Name: RepoSyncName},
		Spec: RepoSyncSpec{SourceType: "helm", Git: &Git{Auth: "token"}}} // no helm block, a secret it names
	c := w.client(t, rs, active(gapNS))
	m := &Manager{Client: c, APIReader: c, Clock: clocktesting.NewFakeClock(gapEpoch), Variant: variant.Fixed}
	if _, err := m.Reconcile(context.Background(), reconcile.Request{NamespacedName: gapKey}); err != nil {
		t.Fatal(err)
	}
	reconciler := ReconcilerKey(gapKey).Name
	want := []string{"update RepoSync " + RepoSyncName, "create ServiceAccount " + reconciler,
		"create RoleBinding " + RepoSyncBaseRoleBindingName, "create Deployment " + reconciler}
	if !slices.Equal(w.log, want) {
		t.Fatalf("writes %q, want %q: no Secret, ConfigMap or ResourceGroup", w.log, want)
	}
	var got RepoSync
	if err := c.Get(context.Background(), gapKey, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status.Conditions) != 0 {
		t.Errorf("conditions %+v, want none: a helm source with no helm block is not refused, and a Deployment "+
			"that is not available yet is not Reconciling", got.Status.Conditions)
	}
}

func TestTheReconcilerDeploymentIsWrittenWithoutServerSideApply(t *testing.T) {
	var w writes
	rs := &RepoSync{ObjectMeta: metav1.ObjectMeta{Namespace: gapNS, Name: RepoSyncName}}
	c := w.client(t, rs, active(gapNS))
	m := &Manager{Client: c, APIReader: c, Clock: clocktesting.NewFakeClock(gapEpoch), Variant: variant.Fixed}
	ctx := context.Background()
	if _, err := m.Reconcile(ctx, reconcile.Request{NamespacedName: gapKey}); err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := c.Get(ctx, ReconcilerKey(gapKey), &d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Replicas = ptrTo[int32](3) // drift
	if err := c.Update(ctx, &d); err != nil {
		t.Fatal(err)
	}
	w.log = nil
	if _, err := m.Reconcile(ctx, reconcile.Request{NamespacedName: gapKey}); err != nil {
		t.Fatal(err)
	}
	name := "Deployment " + ReconcilerKey(gapKey).Name
	if !slices.Contains(w.log, "update "+name) || slices.Contains(w.log, "patch "+string(types.ApplyPatchType)+" "+name) {
		t.Errorf("writes %q, want the Deployment put back by an update, no apply", w.log)
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestTheSyncerCorrectsNoDriftAndTheDestroyerKeepsNoDependsOnOrder(t *testing.T) {
	ctx := context.Background()
	deployed := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: gapNS, Name: "app",
		Annotations: map[string]string{"config.kubernetes.io/depends-on": "/namespaces/" + gapNS + "/ConfigMap/base"}},
		Data: map[string]string{"k": "declared"}}
	base := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: gapNS, Name: "base"}}
	drifted := deployed.DeepCopy()
	drifted.Data["k"] = "drifted"
	var w writes
	rs := &RepoSync{ObjectMeta: metav1.ObjectMeta{Namespace: gapNS, Name: RepoSyncName}}
	c := w.client(t, rs, drifted)
	src := Source{Commit: "abc", Objects: []client.Object{base, deployed}, Latency: time.Second}
	s := &Syncer{Client: c, Clock: clocktesting.NewFakeClock(gapEpoch), Sync: gapKey, Source: src}
	if _, err := s.Reconcile(ctx, reconcile.Request{NamespacedName: gapKey}); err != nil {
		t.Fatal(err)
	}
	var got corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKeyFromObject(deployed), &got); err != nil || got.Data["k"] != "drifted" {
		t.Fatalf("app's data %v (%v), want the drift left in place", got.Data, err)
	}
	clk := &sleeps{Clock: clocktesting.NewFakeClock(gapEpoch)}
	f := &Finalizer{Client: c, Clock: clk, Sync: gapKey, Source: src}
	w.log = nil
	if err := f.destroy(ctx, gapNS); err != nil {
		t.Fatal(err)
	}
	want := []string{"delete ConfigMap base", "delete ConfigMap app"}
	if !slices.Equal(w.log, want) || !slices.Equal(clk.slept, []time.Duration{time.Second, time.Second}) {
		t.Errorf("destroy: writes %q and sleeps %v; want %q (base, which app depends on, first) and one latency each",
			w.log, clk.slept, want)
	}
}

// sleeps is a clock that records its sleeps.
type sleeps struct {
	clock.Clock
	slept []time.Duration
}

func (s *sleeps) Sleep(d time.Duration) { s.slept = append(s.slept, d) }

func TestTheFinalizerIsAddedForForegroundAndRemovedForOrphan(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		policy string
		want   bool
	}{{DeletionPropagationForeground, true}, {DeletionPropagationOrphan, false}, {"", false}} {
		rs := &RepoSync{ObjectMeta: metav1.ObjectMeta{Namespace: gapNS, Name: RepoSyncName, Finalizers: []string{ReconcilerFinalizer}}}
		if tc.policy != "" {
			rs.Annotations = map[string]string{DeletionPropagationPolicyAnnotation: tc.policy}
		}
		var w writes
		c := w.client(t, rs)
		f := &Finalizer{Client: c, Clock: clocktesting.NewFakeClock(gapEpoch), Sync: gapKey}
		if _, err := f.Reconcile(ctx, reconcile.Request{NamespacedName: gapKey}); err != nil {
			t.Fatal(err)
		}
		var got RepoSync
		if err := c.Get(ctx, gapKey, &got); err != nil {
			t.Fatal(err)
		}
		if has := slices.Contains(got.Finalizers, ReconcilerFinalizer); has != tc.want {
			t.Errorf("policy %q: finalizer kept %v, want %v", tc.policy, has, tc.want)
		}
	}
}

func TestWithRetrySleeps10msBetweenAttemptsWithoutJitter(t *testing.T) {
	ctx := context.Background()
	rs := &RepoSync{ObjectMeta: metav1.ObjectMeta{Namespace: gapNS, Name: RepoSyncName}}
	conflicts := 3
	c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(rs).WithStatusSubresource(&RepoSync{}).
		WithInterceptorFuncs(interceptor.Funcs{
			SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, o client.Object, opts ...client.SubResourceUpdateOption) error {
				if conflicts > 0 {
					conflicts--
					return apierrors.NewConflict(schema.GroupResource{Group: GroupVersion.Group, Resource: RepoSyncPlural}, o.GetName(), nil)
				}
				return c.SubResource(sub).Update(ctx, o, opts...)
			},
		}).Build()
	var live RepoSync
	if err := c.Get(ctx, gapKey, &live); err != nil {
		t.Fatal(err)
	}
	clk := &sleeps{Clock: clocktesting.NewFakeClock(gapEpoch)}
	wrote, err := withRetry(ctx, c, clk, &live, updateStatus(c), func() error {
		live.Status.LastSyncedCommit = "abc"
		return nil
	})
	if !wrote || err != nil {
		t.Fatalf("withRetry: wrote %v, %v; want the fourth attempt to write", wrote, err)
	}
	want := []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 10 * time.Millisecond}
	if !slices.Equal(clk.slept, want) {
		t.Errorf("sleeps %v, want %v", clk.slept, want)
	}
}
