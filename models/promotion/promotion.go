package promotion

import (
	"context"
	"fmt"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DefaultLag is the time from a promotion being triggered to its effect when
// System.Lag is nil: a pull request reviewed and merged, then applied by Flux.
const DefaultLag = 2 * time.Minute

// Key names one promotion: a version of a pipeline's app promoted into an
// environment. It is the key of the at-most-once property.
type Key struct {
	Pipeline    types.NamespacedName
	Environment string
	Version     string
}

func (k Key) String() string {
	return fmt.Sprintf("%s/%s@%s", k.Pipeline, k.Environment, k.Version)
}

// Attempt is one call of Promote.
type Attempt struct {
	Key Key
	N   int       // the attempt number for this key, from 1
	At  time.Time // when Promote was called
	Err error     // nil: the attempt took effect
}

// Effect is one side effect that took effect: a Ledger entry.
type Effect struct {
	Key         Key
	Attempt     int       // the attempt that caused it
	TriggeredAt time.Time // when the attempt took effect (Promote was called)
	AppliesAt   time.Time // when Apply runs (TriggeredAt + lag)
	Applied     bool      // Apply has run
	ApplyErr    error     // what Apply returned
}

// ApplyFunc makes a promotion's effect in the cluster, e.g. sets the environment's
// app objects to the promoted version.
type ApplyFunc func(ctx context.Context, c client.Client, k Key) error

// Error is the error of an attempt that failed with no effect.
type Error struct {
	Key     Key
	Attempt int
}

func (e *Error) Error() string {
	return fmt.Sprintf("promotion %s failed (attempt %d): the pull request could not be opened", e.Key, e.Attempt)
}

// System is the promotion system. Set the fields before the first Promote; the
// zero value of each optional field is documented.
type System struct {
	// Client is how effects reach the cluster.
	Client client.Client
	// Clock schedules effects (AfterFunc) and times calls (Sleep).
	Clock clock.WithDelayedExecution
	// Apply makes an effect; nil applies nothing (the Ledger still counts).
	Apply ApplyFunc
	// Lag is the time from trigger to effect for an attempt; nil is DefaultLag.
	Lag func(k Key, attempt int) time.Duration
	// CallTime is how long Promote takes to return (0: no time).
	CallTime time.Duration
	// OnAttempt and OnApply observe the system (e.g. to trace it); optional. They
	// run inside Promote and inside the Apply callback.
	OnAttempt func(Attempt)
	OnApply   func(Effect)

	failures map[Key]int
	attempts []Attempt
	ledger   []Effect
}

// FailNext makes the next n attempts of k fail with no effect.
func (s *System) FailNext(k Key, n int) {
	if s.failures == nil {
		s.failures = map[Key]int{}
	}
	s.failures[k] += n
}

// Promote is one attempt to promote k: it fails with no effect (an *Error) if a
// failure is planned for k, and otherwise takes effect now and applies after the
// lag. Either way it returns after CallTime.
func (s *System) Promote(ctx context.Context, k Key) error {
	now := s.Clock.Now()
	a := Attempt{Key: k, N: s.count(k) + 1, At: now}
	if s.failures[k] > 0 {
		s.failures[k]--
		a.Err = &Error{Key: k, Attempt: a.N}
	} else {
		s.trigger(k, a.N, now)
	}
	s.attempts = append(s.attempts, a)
	if s.OnAttempt != nil {
		s.OnAttempt(a)
	}
	if s.CallTime > 0 {
		s.Clock.Sleep(s.CallTime)
	}
	return a.Err
}

// trigger records an effect and schedules its application.
func (s *System) trigger(k Key, attempt int, now time.Time) {
	lag := DefaultLag
	if s.Lag != nil {
		lag = s.Lag(k, attempt)
	}
	i := len(s.ledger)
	// AppliesAt is computed here: the callback must not read the clock (a fake
	// clock may call it while holding its lock).
	s.ledger = append(s.ledger, Effect{Key: k, Attempt: attempt, TriggeredAt: now, AppliesAt: now.Add(lag)})
	s.Clock.AfterFunc(lag, func() { s.apply(i) })
}

func (s *System) apply(i int) {
	e := &s.ledger[i]
	if s.Apply != nil {
		e.ApplyErr = s.Apply(context.Background(), s.Client, e.Key)
	}
	e.Applied = true
	if s.OnApply != nil {
		s.OnApply(*e)
	}
}

func (s *System) count(k Key) int {
	n := 0
	for _, a := range s.attempts {
		if a.Key == k {
			n++
		}
	}
	return n
}

// Applied reports whether an effect of k has been applied yet, and the error of
// the first one applied.
func (s *System) Applied(k Key) (bool, error) {
	for _, e := range s.ledger {
		if e.Key == k && e.Applied {
			return true, e.ApplyErr
		}
	}
	return false, nil
}

// Attempts are the calls of Promote, in order.
func (s *System) Attempts() []Attempt { return slices.Clone(s.attempts) }

// Ledger is every side effect that took effect, in the order they did.
func (s *System) Ledger() []Effect { return slices.Clone(s.ledger) }

// Effects is the number of side effects of k that took effect.
func (s *System) Effects(k Key) int {
	n := 0
	for _, e := range s.ledger {
		if e.Key == k {
			n++
		}
	}
	return n
}

// Promoted reports whether a promotion of k took effect: what a strategy could
// answer by looking for the pull request of k (a branch named after it). The
// robust pipeline controller asks it to settle a promotion left in doubt.
func (s *System) Promoted(_ context.Context, k Key) (bool, error) { return s.Effects(k) > 0, nil }

// Duplicates are the keys with more than one effect, in the order of their
// second effect: the violations of at-most-once.
func (s *System) Duplicates() []Key {
	seen := map[Key]int{}
	var out []Key
	for _, e := range s.ledger {
		seen[e.Key]++
		if seen[e.Key] == 2 {
			out = append(out, e.Key)
		}
	}
	return out
}

// Unretried are the keys whose attempts all failed: a failure that was never
// attempted again successfully (retried-after-failure, while the version is still
// wanted, is the caller's to judge).
func (s *System) Unretried() []Key {
	var out []Key
	for _, a := range s.attempts {
		if a.Err != nil && s.Effects(a.Key) == 0 && !slices.Contains(out, a.Key) {
			out = append(out, a.Key)
		}
	}
	return out
}
