package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlsim/ctrlsim/models/promotion"
)

// ClaimName is the name of the PromotionClaim of (pipeline, environment,
// revision): the same inputs always give the same name, so only one Create can
// succeed.
func ClaimName(pipeline, env, revision string) string {
	h := sha256.Sum256([]byte(env + "\x00" + revision))
	return fmt.Sprintf("%s-%s-%s", pipeline, env, hex.EncodeToString(h[:])[:10])
}

func (r *Reconciler) retryBase() time.Duration  { return orDefault(r.RetryBase, 30*time.Second) }
func (r *Reconciler) retryMax() time.Duration   { return orDefault(r.RetryMax, 10*time.Minute) }
func (r *Reconciler) inDoubtFor() time.Duration { return orDefault(r.InDoubtAfter, 5*time.Minute) }

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// backoff is the wait after the n-th failed attempt.
func (r *Reconciler) backoff(n int) time.Duration {
	d := r.retryBase()
	for i := 1; i < n && d < r.retryMax(); i++ {
		d *= 2
	}
	return min(d, r.retryMax())
}

// promoteOnce is the robust variant's promotion of revision to env: at most once,
// whatever the caches show, and again after a failure.
//
//   - Each Promote is preceded by a write that only one reconcile can make: the
//     Create of the claim (AlreadyExists for everyone else), or, for a retry, an
//     Update of the claim's status from Failed to Attempting with the
//     resourceVersion it was read with (a stale read gets 409 Conflict).
//   - The outcome is written to the claim. A failure is retried with backoff.
//   - A claim whose outcome was never written (a crash after Promote) is in doubt:
//     after InDoubtAfter it is settled by asking the Promoter (Prober) whether the
//     promotion took effect; without a Prober it stays in doubt, never promoted
//     again (at most once is kept over at least once).
func (r *Reconciler) promoteOnce(ctx context.Context, p *Pipeline, env Environment, revision string) (ctrl.Result, error) {
	if p.Spec.GetPromotion(env.Name) == nil || r.Promoter == nil {
		return ctrl.Result{}, nil
	}
	key := promotion.Key{Pipeline: types.NamespacedName{Namespace: p.Namespace, Name: p.Name}, Environment: env.Name, Version: revision}
	var claim PromotionClaim
	err := r.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: ClaimName(p.Name, env.Name, revision)}, &claim)
	switch {
	case apierrors.IsNotFound(err):
		claim = PromotionClaim{
			ObjectMeta: metav1.ObjectMeta{Namespace: p.Namespace, Name: ClaimName(p.Name, env.Name, revision)},
			Spec:       PromotionClaimSpec{Pipeline: p.Name, Environment: env.Name, Revision: revision},
		}
		if err := controllerutil.SetControllerReference(p, &claim, r.Scheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := r.Create(ctx, &claim); err != nil {
			if apierrors.IsAlreadyExists(err) {
				return ctrl.Result{}, nil // the cache is behind; the claim's own event brings us back
			}
			return ctrl.Result{}, err
		}
		return r.attempt(ctx, p, env, &claim, key, 1)
	case err != nil:
		return ctrl.Result{}, err
	}

	now := r.Clock.Now()
	switch claim.Status.Phase {
	case ClaimSucceeded:
		setPromotionStatus(p, env.Name, revision, true, claim.Status.LastAttemptedTime.Time)
		return ctrl.Result{}, nil
	case ClaimFailed:
		setPromotionStatus(p, env.Name, revision, false, claim.Status.LastAttemptedTime.Time)
		if wait := claim.Status.LastAttemptedTime.Add(r.backoff(claim.Status.Attempts)).Sub(now); wait > 0 {
			return ctrl.Result{RequeueAfter: wait}, nil
		}
		return r.retry(ctx, p, env, &claim, key)
	}
	// In doubt: the first attempt (claimed by the Create) or a retry whose outcome
	// is not written, or not yet in the cache.
	since := claim.Status.LastAttemptedTime.Time
	if since.IsZero() {
		since = claim.CreationTimestamp.Time
	}
	if wait := since.Add(r.inDoubtFor()).Sub(now); wait > 0 {
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	prober, ok := r.Promoter.(Prober)
	if !ok {
		return ctrl.Result{}, nil
	}
	done, err := prober.Promoted(ctx, key)
	if err != nil {
		return ctrl.Result{}, err
	}
	if !done {
		return r.retry(ctx, p, env, &claim, key)
	}
	if err := r.settle(ctx, &claim, since); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	setPromotionStatus(p, env.Name, revision, true, since)
	return ctrl.Result{}, nil
}

// settle writes a claim in doubt as succeeded, its attempt made at since:
// the state an attempt whose outcome was written leaves (the same phase,
// count and time), so that a crash between a promotion and its record ends
// where a run without one does.
func (r *Reconciler) settle(ctx context.Context, claim *PromotionClaim, since time.Time) error {
	claim.Status.Phase, claim.Status.Message = ClaimSucceeded, ""
	claim.Status.Attempts = max(claim.Status.Attempts, 1)
	claim.Status.LastAttemptedTime = metav1.NewTime(since)
	return r.Status().Update(ctx, claim)
}

// recordDone records, for an environment whose targets already run
// revision, the promotion its claim made when the pipeline's status lacks
// it: the process crashed between the promotion and its record, and the
// promotion took effect meanwhile (the environment runs it). A claim still
// in doubt is settled.
func (r *Reconciler) recordDone(ctx context.Context, p *Pipeline, env Environment, revision string) error {
	if st := p.Status.Environments[env.Name]; st == nil || (st.Promotion != nil && st.Promotion.Revision == revision) {
		return nil
	}
	var claim PromotionClaim
	if err := r.Get(ctx, client.ObjectKey{Namespace: p.Namespace, Name: ClaimName(p.Name, env.Name, revision)}, &claim); err != nil {
		return client.IgnoreNotFound(err)
	}
	since := claim.Status.LastAttemptedTime.Time
	if since.IsZero() {
		since = claim.CreationTimestamp.Time
	}
	if claim.Status.Phase != ClaimSucceeded {
		if err := r.settle(ctx, &claim, since); err != nil {
			return client.IgnoreNotFound(err)
		}
	}
	setPromotionStatus(p, env.Name, revision, true, since)
	return nil
}

// retry claims the next attempt with a conditional write, then makes it.
func (r *Reconciler) retry(ctx context.Context, p *Pipeline, env Environment, claim *PromotionClaim, key promotion.Key) (ctrl.Result, error) {
	n := max(claim.Status.Attempts, 1) + 1
	claim.Status.Phase, claim.Status.Attempts = ClaimAttempting, n
	claim.Status.LastAttemptedTime = metav1.NewTime(r.Clock.Now())
	claim.Status.Message = ""
	if err := r.Status().Update(ctx, claim); err != nil { // carries the resourceVersion read
		if apierrors.IsConflict(err) {
			return ctrl.Result{RequeueAfter: time.Second}, nil // read a stale claim; look again
		}
		return ctrl.Result{}, err
	}
	return r.attempt(ctx, p, env, claim, key, n)
}

// attempt promotes and writes the outcome to the claim and the pipeline status.
func (r *Reconciler) attempt(ctx context.Context, p *Pipeline, env Environment, claim *PromotionClaim, key promotion.Key, n int) (ctrl.Result, error) {
	at := r.Clock.Now()
	promoteErr := r.Promoter.Promote(ctx, key)
	claim.Status.Attempts = n
	claim.Status.LastAttemptedTime = metav1.NewTime(at)
	claim.Status.Phase, claim.Status.Message = ClaimSucceeded, ""
	if promoteErr != nil {
		claim.Status.Phase, claim.Status.Message = ClaimFailed, promoteErr.Error()
	}
	setPromotionStatus(p, env.Name, key.Version, promoteErr == nil, at)
	if err := r.Status().Update(ctx, claim); err != nil {
		return ctrl.Result{}, err // the claim stays in doubt until InDoubtAfter
	}
	if promoteErr != nil {
		return ctrl.Result{RequeueAfter: r.backoff(n)}, nil
	}
	return ctrl.Result{}, nil
}
