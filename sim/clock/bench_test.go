package clock_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// BenchmarkScheduleAndFire measures one AfterFunc plus one FireNext with a
// steady population of pending timers (the heap size).
func BenchmarkScheduleAndFire(b *testing.B) {
	for _, pending := range []int{1, 1_000, 1_000_000} {
		b.Run(fmt.Sprintf("pending=%d", pending), func(b *testing.B) {
			c := clock.New(clock.Epoch)
			f := func() {}
			// Delays spread over [1ms, 1000s] by a fixed stride, so the heap is
			// exercised without a random source.
			delay := func(i int) time.Duration { return time.Duration(1+(i*7919)%1_000_000) * time.Millisecond }
			for i := range pending {
				c.AfterFunc(delay(i), f)
			}
			i := 0
			for b.Loop() {
				c.AfterFunc(delay(i), f)
				c.FireNext()
				i++
			}
			if c.Pending() != pending {
				b.Fatalf("Pending() = %d, want %d", c.Pending(), pending)
			}
		})
	}
}

// BenchmarkScheduleAndStop measures one NewTimer plus its Stop with a steady
// population of pending timers: the cost of a cancelled timeout.
func BenchmarkScheduleAndStop(b *testing.B) {
	c := clock.New(clock.Epoch)
	for i := range 1_000_000 {
		c.AfterFunc(time.Duration(1+i%1000)*time.Second, func() {})
	}
	for b.Loop() {
		c.NewTimer(500 * time.Second).Stop()
	}
	if c.Pending() != 1_000_000 {
		b.Fatalf("Pending() = %d", c.Pending())
	}
}
