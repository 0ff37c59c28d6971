package envtestenv

import (
	"context"
	"sync"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/promotion"
)

// Promotions is models/promotion's System on the wall clock, safe for a real
// manager's goroutines: the System is written for the simulator's one-at-a-time
// scheduler, so every call into it and every effect it applies (a timer
// goroutine) holds one lock.
type Promotions struct {
	mu     sync.Mutex
	system *promotion.System
}

// NewPromotions is a promotion system whose effects are made by apply through c,
// lag after each successful Promote.
func NewPromotions(c client.Client, apply promotion.ApplyFunc, lag time.Duration) *Promotions {
	p := &Promotions{}
	p.system = &promotion.System{
		Client: c, Clock: lockedClock{mu: &p.mu}, Apply: apply,
		Lag: func(promotion.Key, int) time.Duration { return lag },
	}
	return p
}

// SetCallTime sets how long each Promote call takes (on the wall clock; zero by
// default), as System.CallTime.
func (p *Promotions) SetCallTime(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.system.CallTime = d
}

// OnApply sets a callback run after each effect is applied (under the lock).
func (p *Promotions) OnApply(f func(promotion.Effect)) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.system.OnApply = f
}

// Promote is System.Promote.
func (p *Promotions) Promote(ctx context.Context, k promotion.Key) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.system.Promote(ctx, k)
}

// Promoted is System.Promoted (the robust pipeline controller's Prober).
func (p *Promotions) Promoted(ctx context.Context, k promotion.Key) (bool, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.system.Promoted(ctx, k)
}

// FailNext is System.FailNext.
func (p *Promotions) FailNext(k promotion.Key, n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.system.FailNext(k, n)
}

// Attempts is System.Attempts.
func (p *Promotions) Attempts() []promotion.Attempt {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.system.Attempts()
}

// Ledger is System.Ledger.
func (p *Promotions) Ledger() []promotion.Effect {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.system.Ledger()
}

// lockedClock is the real clock whose AfterFunc callbacks hold the Promotions'
// lock, so that an effect applied by a timer goroutine never races a Promote.
type lockedClock struct {
	clock.RealClock
	mu *sync.Mutex
}

func (c lockedClock) AfterFunc(d time.Duration, f func()) clock.Timer {
	return c.RealClock.AfterFunc(d, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		f()
	})
}
