package promotion_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	testclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/ctrlsim/ctrlsim/models/promotion"
)

var (
	ctx     = context.Background()
	epoch   = time.Date(2023, 11, 23, 0, 0, 0, 0, time.UTC)
	staging = promotion.Key{Pipeline: types.NamespacedName{Namespace: "default", Name: "podinfo"}, Environment: "staging", Version: "v2"}
)

// setVersion is the world's effect in these tests: the environment's app (a
// ConfigMap here) records the promoted version, as completePromotion in upstream's
// promote_test.go sets status.lastAppliedRevision.
func setVersion(ctx context.Context, c client.Client, k promotion.Key) error {
	var cm corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: k.Environment, Name: "app"}, &cm); err != nil {
		return err
	}
	cm.Data = map[string]string{"version": k.Version}
	return c.Update(ctx, &cm)
}

func newSystem(t *testing.T) (*promotion.System, *testclock.FakeClock, client.Client) {
	t.Helper()
	c := fake.NewClientBuilder().WithObjects(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "staging", Name: "app"},
		Data: map[string]string{"version": "v1"}}).Build()
	clk := testclock.NewFakeClock(epoch)
	return &promotion.System{Client: c, Clock: clk, Apply: setVersion}, clk, c
}

func appVersion(t *testing.T, c client.Client) string {
	t.Helper()
	var cm corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: "staging", Name: "app"}, &cm); err != nil {
		t.Fatal(err)
	}
	return cm.Data["version"]
}

// A promotion takes effect when it is triggered (the pull request exists) and
// reaches the cluster a human-scale lag later (upstream 9244c67d: "there will be a
// human-scale lag between a promotion being triggered and it taking effect").
func TestPromotionTakesEffectAtOnceAndAppliesAfterTheLag(t *testing.T) {
	s, clk, c := newSystem(t)
	if err := s.Promote(ctx, staging); err != nil {
		t.Fatalf("Promote: %v", err)
	}
	l := s.Ledger()
	if len(l) != 1 || l[0].Key != staging || l[0].Attempt != 1 || !l[0].TriggeredAt.Equal(epoch) || l[0].Applied {
		t.Fatalf("ledger right after Promote = %+v, want one unapplied effect of %s triggered at the epoch", l, staging)
	}
	if !l[0].AppliesAt.Equal(epoch.Add(promotion.DefaultLag)) {
		t.Errorf("AppliesAt = %s, want epoch + DefaultLag", l[0].AppliesAt)
	}
	clk.Step(promotion.DefaultLag - time.Second)
	if v := appVersion(t, c); v != "v1" {
		t.Fatalf("before the lag ends the app is at %s, want v1", v)
	}
	clk.Step(time.Second)
	if v := appVersion(t, c); v != "v2" {
		t.Fatalf("after the lag the app is at %s, want v2", v)
	}
	if l := s.Ledger(); !l[0].Applied || l[0].ApplyErr != nil {
		t.Errorf("effect after the lag = %+v, want applied without error", l[0])
	}
}

// A planned failure fails the attempt with no effect: nothing in the ledger,
// nothing applied; the next attempt takes effect.
func TestAFailedAttemptHasNoEffect(t *testing.T) {
	s, clk, c := newSystem(t)
	s.FailNext(staging, 1)
	err := s.Promote(ctx, staging)
	var perr *promotion.Error
	if !errors.As(err, &perr) || perr.Attempt != 1 {
		t.Fatalf("Promote = %v, want a *promotion.Error for attempt 1", err)
	}
	clk.Step(time.Hour)
	if n := s.Effects(staging); n != 0 || appVersion(t, c) != "v1" {
		t.Fatalf("after a failed attempt: %d effects, app at %s; want none and v1", n, appVersion(t, c))
	}
	if ok, _ := s.Promoted(ctx, staging); ok {
		t.Error("Promoted reports an effect for a key whose only attempt failed")
	}
	if u := s.Unretried(); len(u) != 1 || u[0] != staging {
		t.Errorf("Unretried = %v, want [%s]", u, staging)
	}
	if err := s.Promote(ctx, staging); err != nil {
		t.Fatalf("second attempt: %v", err)
	}
	if a := s.Attempts(); len(a) != 2 || a[1].N != 2 || a[1].Err != nil {
		t.Errorf("attempts = %+v, want a second, successful attempt", a)
	}
	if ok, _ := s.Promoted(ctx, staging); !ok {
		t.Error("Promoted must report the effect of the successful retry")
	}
	if u := s.Unretried(); len(u) != 0 {
		t.Errorf("Unretried after a successful retry = %v, want none", u)
	}
}

// Promotions are not idempotent ("none of the current strategies are
// idepontent", controller.go): a second call is a second side effect.
func TestPromotionsAreNotIdempotent(t *testing.T) {
	s, clk, _ := newSystem(t)
	s.Lag = func(_ promotion.Key, attempt int) time.Duration { return time.Duration(attempt) * time.Minute }
	for range 2 {
		if err := s.Promote(ctx, staging); err != nil {
			t.Fatal(err)
		}
	}
	other := staging
	other.Environment = "prod"
	if err := s.Promote(ctx, other); err != nil {
		t.Fatal(err)
	}
	if n := s.Effects(staging); n != 2 {
		t.Fatalf("Effects(%s) = %d, want 2", staging, n)
	}
	if d := s.Duplicates(); len(d) != 1 || d[0] != staging {
		t.Fatalf("Duplicates = %v, want [%s]", d, staging)
	}
	clk.Step(90 * time.Second)
	l := s.Ledger()
	if !l[0].Applied || l[1].Applied {
		t.Errorf("with lags of 1m and 2m, after 90s: applied = %v, %v; want true, false", l[0].Applied, l[1].Applied)
	}
	if l[2].ApplyErr == nil {
		t.Errorf("the prod effect found no app object and should keep Apply's error")
	}
}

// A Promote call takes CallTime on the injected clock.
func TestPromoteTakesCallTime(t *testing.T) {
	s, clk, _ := newSystem(t)
	s.CallTime = 3 * time.Second
	var seen []promotion.Attempt
	s.OnAttempt = func(a promotion.Attempt) { seen = append(seen, a) }
	if err := s.Promote(ctx, staging); err != nil {
		t.Fatal(err)
	}
	if got := clk.Now().Sub(epoch); got != 3*time.Second {
		t.Errorf("clock after Promote = epoch+%s, want epoch+3s", got)
	}
	if len(seen) != 1 || !seen[0].At.Equal(epoch) {
		t.Errorf("OnAttempt saw %+v, want one attempt at the epoch", seen)
	}
}
