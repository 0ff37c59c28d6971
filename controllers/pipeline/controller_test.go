package pipeline_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	testclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/pipeline"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/promotion"
)

var (
	ctx   = context.Background()
	epoch = time.Date(2023, 11, 23, 0, 0, 0, 0, time.UTC)
	key   = types.NamespacedName{Namespace: "default", Name: "podinfo"}
	req   = reconcile.Request{NamespacedName: key}
)

// promoter counts Promote calls and fails the ones it is told to.
type promoter struct {
	calls []promotion.Key
	fail  int
}

func (p *promoter) Promote(_ context.Context, k promotion.Key) error {
	p.calls = append(p.calls, k)
	if p.fail > 0 {
		p.fail--
		return errors.New("pull request could not be opened")
	}
	return nil
}

func scheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := pipeline.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func app(env, revision string) *pipeline.HelmRelease {
	return &pipeline.HelmRelease{ObjectMeta: metav1.ObjectMeta{Namespace: env, Name: "podinfo"},
		Status: pipeline.HelmReleaseStatus{LastAppliedRevision: revision, Conditions: []metav1.Condition{{
			Type: pipeline.ReadyCondition, Status: metav1.ConditionTrue, Reason: "UpgradeSucceeded", LastTransitionTime: metav1.NewTime(epoch)}}}}
}

func newPipeline() *pipeline.Pipeline {
	p := &pipeline.Pipeline{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name, Generation: 1},
		Spec: pipeline.PipelineSpec{
			AppRef:    pipeline.LocalAppReference{APIVersion: pipeline.HelmGroupVersion.String(), Kind: "HelmRelease", Name: "podinfo"},
			Promotion: &pipeline.Promotion{Notification: &pipeline.NotificationPromotion{}},
		}}
	for _, env := range []string{"dev", "staging", "prod"} {
		p.Spec.Environments = append(p.Spec.Environments, pipeline.Environment{Name: env, Targets: []pipeline.Target{{Namespace: env}}})
	}
	return p
}

// world is dev at v2, staging and prod at v1, and a reconciler of variant v.
func world(t *testing.T, v variant.Variant, objs ...client.Object) (*pipeline.Reconciler, *promoter, client.Client, *testclock.FakeClock) {
	t.Helper()
	if objs == nil {
		objs = []client.Object{app("dev", "v2"), app("staging", "v1"), app("prod", "v1")}
	}
	c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(append(objs, newPipeline())...).
		WithStatusSubresource(&pipeline.Pipeline{}, &pipeline.PromotionClaim{}, &pipeline.HelmRelease{}).Build()
	pr := &promoter{}
	clk := testclock.NewFakeClock(epoch)
	return &pipeline.Reconciler{Client: c, Cache: c, Promoter: pr, Clock: clk, Variant: v}, pr, c, clk
}

func reconcileOK(t *testing.T, r *pipeline.Reconciler) reconcile.Result {
	t.Helper()
	res, err := r.Reconcile(ctx, req)
	if err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	return res
}

func status(t *testing.T, c client.Client) pipeline.PipelineStatus {
	t.Helper()
	var p pipeline.Pipeline
	if err := c.Get(ctx, key, &p); err != nil {
		t.Fatal(err)
	}
	return p.Status
}

var stagingV2 = promotion.Key{Pipeline: key, Environment: "staging", Version: "v2"}

// PR #214 (f852a075, 9244c67d): the promotion is recorded, and a reconcile that
// sees the record does not promote again, for buggy (f852a075) and fixed alike.
func TestARecordedPromotionIsNotRepeated(t *testing.T) {
	for _, v := range []variant.Variant{variant.Buggy, variant.Fixed} {
		r, pr, c, _ := world(t, v)
		reconcileOK(t, r)
		if len(pr.calls) != 1 || pr.calls[0] != stagingV2 {
			t.Fatalf("%s: Promote calls = %v, want [%s]", v, pr.calls, stagingV2)
		}
		rec := status(t, c).Environments["staging"].Promotion
		if rec == nil || rec.Revision != "v2" || !rec.Succeeded || !rec.LastAttemptedTime.Time.Equal(epoch) {
			t.Fatalf("%s: staging promotion record = %+v, want {v2, succeeded, at the clock's now}", v, rec)
		}
		reconcileOK(t, r)
		if len(pr.calls) != 1 {
			t.Errorf("%s: a reconcile that reads the record promoted again: %v", v, pr.calls)
		}
	}
}

// The fixed guard compares only the revision (SEEDS.md weakness 3): a failure is
// recorded with succeeded=false and never retried.
func TestFixedNeverRetriesAFailedPromotion(t *testing.T) {
	r, pr, c, clk := world(t, variant.Fixed)
	pr.fail = 1
	if res := reconcileOK(t, r); !res.IsZero() {
		t.Errorf("a failed promotion is not an error to the workqueue; got %+v", res)
	}
	if rec := status(t, c).Environments["staging"].Promotion; rec == nil || rec.Succeeded {
		t.Fatalf("record = %+v, want {v2, succeeded=false}", rec)
	}
	clk.Step(time.Hour)
	reconcileOK(t, r)
	if len(pr.calls) != 1 {
		t.Errorf("Promote calls = %d, want 1: the failure is never retried", len(pr.calls))
	}
}

// Before PR #214 nothing is recorded: every reconcile promotes again until a
// target runs the revision, and a failure is returned to the workqueue.
func TestPreRecordPromotesAtEveryReconcile(t *testing.T) {
	r, pr, c, _ := world(t, variant.Buggy)
	r.PreRecord = true
	pr.fail = 1
	if _, err := r.Reconcile(ctx, req); err == nil {
		t.Fatal("main@2ca1d66 returns the promotion error")
	}
	reconcileOK(t, r)
	reconcileOK(t, r)
	if len(pr.calls) != 3 {
		t.Fatalf("Promote calls = %d, want 3 (one per reconcile)", len(pr.calls))
	}
	if rec := status(t, c).Environments["staging"].Promotion; rec != nil {
		t.Errorf("before PR #214 nothing is recorded, got %+v", rec)
	}
	var hr pipeline.HelmRelease
	if err := c.Get(ctx, client.ObjectKey{Namespace: "staging", Name: "podinfo"}, &hr); err != nil {
		t.Fatal(err)
	}
	hr.Status.LastAppliedRevision = "v2"
	apimeta.SetStatusCondition(&hr.Status.Conditions, metav1.Condition{Type: pipeline.ReadyCondition, Status: metav1.ConditionFalse, Reason: "Progressing"})
	if err := c.Status().Update(ctx, &hr); err != nil {
		t.Fatal(err)
	}
	reconcileOK(t, r)
	if len(pr.calls) != 3 {
		t.Errorf("a target at the revision means in progress: Promote calls = %d, want still 3", len(pr.calls))
	}
}

// ed4cfb2d: with incomplete information (a missing target), fixed requeues
// (rate-limited) and makes no promotion decision ("the safest thing to do is not
// make any decisions on promotions"); buggy carries on and promotes to the
// environment whose app it could not read.
func TestFixedRequeuesWhenATargetIsMissing(t *testing.T) {
	for _, tc := range []struct {
		v        variant.Variant
		want     reconcile.Result
		promotes int
	}{{variant.Buggy, reconcile.Result{}, 1}, {variant.Fixed, reconcile.Result{Requeue: true}, 0}} {
		r, pr, c, _ := world(t, tc.v, app("dev", "v2"), app("prod", "v1"))
		if res := reconcileOK(t, r); res != tc.want {
			t.Errorf("%s: result = %+v, want %+v", tc.v, res, tc.want)
		}
		if len(pr.calls) != tc.promotes {
			t.Errorf("%s: with the staging app missing, Promote calls = %v, want %d", tc.v, pr.calls, tc.promotes)
		}
		st := status(t, c)
		if ts := st.Environments["staging"].Targets[0]; ts.Error == "" {
			t.Errorf("%s: staging target status = %+v, want the NotFound error", tc.v, ts)
		}
		if cond := apimeta.FindStatusCondition(st.Conditions, pipeline.ReadyCondition); cond == nil || cond.Status != metav1.ConditionFalse {
			t.Errorf("%s: Ready = %+v, want False", tc.v, cond)
		}
	}
}

// 9244c67d: GenerationChangedPredicate drops the pipeline's own status updates.
func TestPredicates(t *testing.T) {
	old, status := newPipeline(), newPipeline()
	status.Status.ObservedGeneration = 1
	ev := event.UpdateEvent{ObjectOld: old, ObjectNew: status}
	for _, v := range variant.All {
		r := &pipeline.Reconciler{Variant: v}
		passes := true
		for _, p := range r.PipelinePredicates() {
			passes = passes && p.Update(ev)
		}
		if want := v == variant.Buggy; passes != want {
			t.Errorf("%s: a status-only update passes the For predicates = %v, want %v", v, passes, want)
		}
	}
}

// The robust variant claims before promoting: a claim that already exists (the
// cache did not show it) stops the promotion; a Failed claim is retried after
// its backoff through a conditional write.
func TestRobustClaimsBeforePromoting(t *testing.T) {
	r, pr, c, clk := world(t, variant.Robust)
	pr.fail = 1
	res := reconcileOK(t, r)
	if len(pr.calls) != 1 || res.RequeueAfter != 30*time.Second {
		t.Fatalf("first reconcile: calls %v, result %+v; want one failed attempt and a 30s backoff", pr.calls, res)
	}
	name := client.ObjectKey{Namespace: key.Namespace, Name: pipeline.ClaimName("podinfo", "staging", "v2")}
	var claim pipeline.PromotionClaim
	if err := c.Get(ctx, name, &claim); err != nil {
		t.Fatal(err)
	}
	if claim.Status.Phase != pipeline.ClaimFailed || claim.Status.Attempts != 1 {
		t.Fatalf("claim status = %+v, want Failed after 1 attempt", claim.Status)
	}
	if res := reconcileOK(t, r); len(pr.calls) != 1 || res.RequeueAfter != 30*time.Second {
		t.Fatalf("inside the backoff: calls %d, result %+v; want no attempt and a requeue", len(pr.calls), res)
	}
	clk.Step(30 * time.Second)
	reconcileOK(t, r)
	if len(pr.calls) != 2 {
		t.Fatalf("after the backoff: Promote calls = %d, want 2", len(pr.calls))
	}
	if err := c.Get(ctx, name, &claim); err != nil {
		t.Fatal(err)
	}
	if claim.Status.Phase != pipeline.ClaimSucceeded || claim.Status.Attempts != 2 {
		t.Fatalf("claim status = %+v, want Succeeded after 2 attempts", claim.Status)
	}
	reconcileOK(t, r)
	if len(pr.calls) != 2 {
		t.Errorf("a Succeeded claim was promoted again: %d calls", len(pr.calls))
	}
}

// staleReader serves a PromotionClaim as it was, to show what the conditional
// write protects against.
type staleReader struct {
	client.Client
	claim *pipeline.PromotionClaim
}

func (s staleReader) Get(ctx context.Context, k client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if c, ok := obj.(*pipeline.PromotionClaim); ok && s.claim != nil && k.Name == s.claim.Name {
		s.claim.DeepCopyInto(c)
		return nil
	}
	return s.Client.Get(ctx, k, obj, opts...)
}

func TestRobustDoesNotRetryFromAStaleClaim(t *testing.T) {
	r, pr, c, clk := world(t, variant.Robust)
	pr.fail = 1
	reconcileOK(t, r)
	var stale pipeline.PromotionClaim
	if err := c.Get(ctx, client.ObjectKey{Namespace: key.Namespace, Name: pipeline.ClaimName("podinfo", "staging", "v2")}, &stale); err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Minute)
	reconcileOK(t, r) // the retry: the claim is now Succeeded at a newer resourceVersion
	r.Client = staleReader{Client: c, claim: &stale}
	clk.Step(time.Minute)
	if _, err := r.Reconcile(ctx, req); err != nil {
		t.Fatal(err)
	}
	if len(pr.calls) != 2 {
		t.Errorf("Promote calls = %d, want 2: the stale Failed claim must lose its conditional write", len(pr.calls))
	}
}

func TestIndexApplication(t *testing.T) {
	got := pipeline.IndexApplication(newPipeline())
	want := "/:helm.toolkit.fluxcd.io/v2beta1, Kind=HelmRelease:staging/podinfo"
	if len(got) != 3 || got[1] != want {
		t.Errorf("IndexApplication = %q, want 3 keys with %q second (upstream's <cluster>:<gvk>:<namespace>/<name>)", got, want)
	}
	if got := pipeline.IndexApplication(&corev1.ConfigMap{}); got != nil {
		t.Errorf("a non-Pipeline has no keys, got %v", got)
	}
}
