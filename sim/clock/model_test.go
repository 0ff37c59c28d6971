package clock_test

import (
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/clock"
	k8sclock "k8s.io/utils/clock"
	"pgregory.net/rapid"
)

// modelTimer is the dumb model of one AfterFunc timer: a due time and the
// sequence number it was last scheduled with.
type modelTimer struct {
	when    time.Duration
	seq     int
	pending bool
}

// clockModel is a linear-scan reference: fire the pending timer with the
// smallest (when, seq), never moving now backwards.
type clockModel struct {
	now    time.Duration
	seq    int
	timers []*modelTimer
	fired  []int
}

func (m *clockModel) schedule(mt *modelTimer, d time.Duration) {
	mt.when, mt.seq, mt.pending = m.now+max(d, 0), m.seq, true
	m.seq++
}

func (m *clockModel) earliest() int {
	best := -1
	for i, mt := range m.timers {
		if !mt.pending {
			continue
		}
		if b := best; b < 0 || mt.when < m.timers[b].when || mt.when == m.timers[b].when && mt.seq < m.timers[b].seq {
			best = i
		}
	}
	return best
}

func (m *clockModel) fire(i int) {
	m.now = max(m.now, m.timers[i].when)
	m.timers[i].pending = false
	m.fired = append(m.fired, i)
}

func (m *clockModel) pending() int {
	n := 0
	for _, mt := range m.timers {
		if mt.pending {
			n++
		}
	}
	return n
}

// TestClockMatchesLinearScanModel checks the heap against a linear-scan model
// over random sequences of AfterFunc, Stop, Reset, FireNext and AdvanceTo:
// same firing order by (time, seq), same Now, same Pending, and Now never
// goes backwards.
func TestClockMatchesLinearScanModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		c := clock.New(clock.Epoch)
		m := &clockModel{}
		var timers []k8sclock.Timer
		var fired []int
		delay := rapid.Custom(func(t *rapid.T) time.Duration {
			return time.Duration(rapid.IntRange(-2, 20).Draw(t, "seconds")) * time.Second
		})
		pick := func(t *rapid.T) int { return rapid.IntRange(0, len(timers)-1).Draw(t, "timer") }
		t.Repeat(map[string]func(*rapid.T){
			"AfterFunc": func(t *rapid.T) {
				d := delay.Draw(t, "d")
				id := len(timers)
				timers = append(timers, c.AfterFunc(d, func() { fired = append(fired, id) }))
				mt := &modelTimer{}
				m.timers = append(m.timers, mt)
				m.schedule(mt, d)
			},
			"Stop": func(t *rapid.T) {
				if len(timers) == 0 {
					t.Skip("no timers")
				}
				i := pick(t)
				if got, want := timers[i].Stop(), m.timers[i].pending; got != want {
					t.Fatalf("Stop() = %v, want %v", got, want)
				}
				m.timers[i].pending = false
			},
			"Reset": func(t *rapid.T) {
				if len(timers) == 0 {
					t.Skip("no timers")
				}
				i, d := pick(t), delay.Draw(t, "d")
				if got, want := timers[i].Reset(d), m.timers[i].pending; got != want {
					t.Fatalf("Reset() = %v, want %v", got, want)
				}
				m.schedule(m.timers[i], d)
			},
			"FireNext": func(t *rapid.T) {
				i := m.earliest()
				if got := c.FireNext(); got != (i >= 0) {
					t.Fatalf("FireNext() = %v, want %v", got, i >= 0)
				}
				if i >= 0 {
					m.fire(i)
				}
			},
			"AdvanceTo": func(t *rapid.T) {
				target := delay.Draw(t, "by") + m.now
				before := c.Now()
				c.AdvanceTo(clock.Epoch.Add(target))
				for i := m.earliest(); i >= 0 && m.timers[i].when <= target; i = m.earliest() {
					m.fire(i)
				}
				m.now = max(m.now, target)
				if c.Now().Before(before) {
					t.Fatalf("Now went backwards: %v -> %v", before, c.Now())
				}
			},
			"": func(t *rapid.T) {
				if !slices.Equal(fired, m.fired) {
					t.Fatalf("fired %v, model fired %v", fired, m.fired)
				}
				if want := clock.Epoch.Add(m.now); !c.Now().Equal(want) {
					t.Fatalf("Now() = %v, model %v", c.Now(), want)
				}
				if c.Pending() != m.pending() {
					t.Fatalf("Pending() = %d, model %d", c.Pending(), m.pending())
				}
				next, ok := c.Next()
				if i := m.earliest(); ok != (i >= 0) || ok && !next.Equal(clock.Epoch.Add(m.timers[i].when)) {
					t.Fatalf("Next() = %v, %v; model timer %d", next, ok, i)
				}
			},
		})
	})
}
