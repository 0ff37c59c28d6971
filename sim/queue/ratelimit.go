package queue

import (
	"time"

	"golang.org/x/time/rate"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
)

var _ workqueue.TypedRateLimiter[string] = (*BucketRateLimiter[string])(nil)

// BucketRateLimiter is client-go's TypedBucketRateLimiter on virtual time: an
// overall token bucket shared by all items. client-go's calls
// Limiter.Reserve().Delay(), which reads time.Now twice; this one reserves and
// measures the delay at the clock's Now (ReserveN(now, 1).DelayFrom(now)).
type BucketRateLimiter[T comparable] struct {
	Limiter *rate.Limiter
	Clock   clock.PassiveClock
}

// NewBucketRateLimiter returns a bucket of burst tokens refilled at qps per
// second, full at the start, reading time from clk.
func NewBucketRateLimiter[T comparable](clk clock.PassiveClock, qps rate.Limit, burst int) *BucketRateLimiter[T] {
	return &BucketRateLimiter[T]{Limiter: rate.NewLimiter(qps, burst), Clock: clk}
}

// When takes a token and returns how long to wait for it: 0 while the bucket
// holds tokens, then 1/qps apart.
func (r *BucketRateLimiter[T]) When(T) time.Duration {
	now := r.Clock.Now()
	return r.Limiter.ReserveN(now, 1).DelayFrom(now)
}

// NumRequeues is always 0: the bucket tracks no items.
func (r *BucketRateLimiter[T]) NumRequeues(T) int { return 0 }

// Forget does nothing: the bucket tracks no items.
func (r *BucketRateLimiter[T]) Forget(T) {}

// DefaultControllerRateLimiter is client-go's DefaultTypedControllerRateLimiter
// (default_rate_limiters.go) on virtual time: the worse of client-go's own
// per-item exponential limiter (5ms*2^failures, capped at 1000s; it never
// reads a clock) and a 10 qps, burst 100 bucket on clk, combined by client-go's
// MaxOf limiter.
func DefaultControllerRateLimiter[T comparable](clk clock.PassiveClock) workqueue.TypedRateLimiter[T] {
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[T](5*time.Millisecond, 1000*time.Second),
		NewBucketRateLimiter[T](clk, rate.Limit(10), 100),
	)
}
