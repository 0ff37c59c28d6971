package promotion_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"testing"
	"time"

	testclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/promotion"
)

// A promotion of an older version, merged after a newer one for the same
// environment, is applied all the same: the app ends at the older version,
// and no effect is rejected or reverted.
func TestAnOlderPromotionMergedLastIsAppliedOverANewerOne(t *testing.T) {
	s, clk, c := newSystem(t)
	newer := staging
	newer.Version = "v3"
	s.Lag = func(k promotion.Key, _ int) time.Duration {
		if k == newer {
			return time.Minute
		}
		return 2 * time.Minute
	}
	for _, k := range []promotion.Key{staging, newer} {
		if err := s.Promote(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	clk.Step(time.Minute) // the newer is merged
	clk.Step(time.Minute) // then the older
	l := s.Ledger()
	if v := appVersion(t, c); v != "v2" || len(l) != 2 || !l[0].Applied || !l[1].Applied {
		t.Fatalf("app at %s, ledger %+v; want v2 (the older, merged last) with both effects applied", v, l)
	}
}

// The system decides from its own memory: with no client at all (and no
// Apply), a promotion takes effect and is remembered as promoted.
func TestThePromotionSystemDecidesWithoutReadingTheCluster(t *testing.T) {
	clk := testclock.NewFakeClock(epoch)
	s := &promotion.System{Clock: clk}
	if err := s.Promote(ctx, staging); err != nil {
		t.Fatal(err)
	}
	clk.Step(time.Hour)
	if ok, err := s.Promoted(ctx, staging); !ok || err != nil || s.Effects(staging) != 1 {
		t.Fatalf("Promoted = %v, %v with %d effects; want true, nil, 1", ok, err, s.Effects(staging))
	}
}

// Apply is called once per effect, with the key alone: what it changes is
// the world's, and an effect is applied whole or not at all.
func TestEachEffectIsOneCallOfApply(t *testing.T) {
	s, clk, _ := newSystem(t)
	var calls []promotion.Key
	apply := s.Apply
	s.Apply = func(ctx context.Context, c client.Client, k promotion.Key) error {
		calls = append(calls, k)
		return apply(ctx, c, k)
	}
	for range 2 {
		if err := s.Promote(ctx, staging); err != nil {
			t.Fatal(err)
		}
	}
	clk.Step(promotion.DefaultLag)
	if len(calls) != 2 || calls[0] != staging || calls[1] != staging {
		t.Fatalf("Apply called with %v, want %s once per effect (twice)", calls, staging)
	}
}
