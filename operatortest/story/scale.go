package story

import (
	"time"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Scale maps virtual time to a horizontal position in [0, Width]. Idle stretches
// (a gap longer than 3s and longer than the activity before it) are cut out and
// drawn as a break, so that a burst of milliseconds and a verdict judged half an
// hour later fit one picture; inside a segment time is linear.
type Scale struct {
	Segments []Segment
	Width    float64
}

// Segment is one linear stretch of a Scale.
type Segment struct {
	From, To time.Duration
	X, W     float64
}

// Tick is a labelled time on the axis.
type Tick struct {
	At    time.Duration
	X     float64
	Label string
}

const (
	scaleWidth = 1000.0
	breakWidth = 18.0
	minGap     = 3 * time.Second
	minSegment = 60.0
)

func newScale(ts []time.Duration) Scale {
	if len(ts) == 0 {
		ts = []time.Duration{0, time.Second}
	}
	type seg struct {
		from, to time.Duration
		n        int
	}
	segs := []seg{{from: min(ts[0], 0), to: ts[0], n: 1}}
	for _, t := range ts[1:] {
		cur := &segs[len(segs)-1]
		gap := t - cur.to
		if gap > minGap && gap > cur.to-cur.from {
			segs = append(segs, seg{from: t, to: t, n: 1})
			continue
		}
		cur.to, cur.n = t, cur.n+1
	}
	var total time.Duration
	count := 0
	for _, g := range segs {
		total += g.to - g.from
		count += g.n
	}
	room := scaleWidth - breakWidth*float64(len(segs)-1) - minSegment*float64(len(segs))
	sc := Scale{Width: scaleWidth}
	x := 0.0
	for _, g := range segs {
		share := float64(g.n) / float64(count)
		if total > 0 {
			share = 0.7*share + 0.3*float64(g.to-g.from)/float64(total)
		}
		w := minSegment + room*share
		sc.Segments = append(sc.Segments, Segment{From: g.from, To: g.to, X: x, W: w})
		x += w + breakWidth
	}
	return sc
}

// X is the position of t.
func (sc Scale) X(t time.Duration) float64 {
	for i, g := range sc.Segments {
		if t < g.From {
			if i == 0 {
				return g.X
			}
			// In a break: proportionally across it.
			p := sc.Segments[i-1]
			return p.X + p.W + breakWidth*float64(t-p.To)/float64(g.From-p.To)
		}
		if t <= g.To {
			if g.To == g.From {
				return g.X + g.W/2
			}
			return g.X + g.W*float64(t-g.From)/float64(g.To-g.From)
		}
	}
	return sc.Width
}

// End is the last time on the scale.
func (sc Scale) End() time.Duration { return sc.Segments[len(sc.Segments)-1].To }

// Breaks are the positions of the breaks (the middle of each).
func (sc Scale) Breaks() []float64 {
	var out []float64
	for _, g := range sc.Segments[1:] {
		out = append(out, g.X-breakWidth/2)
	}
	return out
}

var niceSteps = func() []time.Duration {
	var out []time.Duration
	for d := time.Duration(1); d < 10*time.Second; d *= 10 {
		out = append(out, d, 2*d, 5*d)
	}
	return append(out, 10*time.Second, 15*time.Second, 30*time.Second, time.Minute, 2*time.Minute,
		5*time.Minute, 10*time.Minute, 15*time.Minute, 30*time.Minute, time.Hour, 2*time.Hour, 6*time.Hour, 24*time.Hour)
}()

// Ticks are round times along the axis, at least spacing apart (in scale units),
// and a label at the start of each segment after a break.
func (sc Scale) Ticks(spacing float64) []Tick {
	var out []Tick
	for i, g := range sc.Segments {
		d := g.To - g.From
		if d == 0 {
			out = append(out, Tick{At: g.From, X: sc.X(g.From), Label: roundLabel(g.From, 0)})
			continue
		}
		step := niceSteps[len(niceSteps)-1]
		for _, s := range niceSteps {
			if float64(s)/float64(d)*g.W >= spacing {
				step = s
				break
			}
		}
		first := (g.From + step - 1) / step * step
		if g.From < 0 {
			first = g.From / step * step
		}
		if i > 0 && sc.X(first)-g.X > spacing/2 {
			out = append(out, Tick{At: g.From, X: g.X, Label: roundLabel(g.From, step)})
		}
		for t := first; t <= g.To; t += step {
			out = append(out, Tick{At: t, X: sc.X(t), Label: trace.FormatAt(t)})
		}
	}
	return out
}

// roundLabel is t to the precision of a tenth of step (or three digits), with ≈.
func roundLabel(t, step time.Duration) string {
	p := time.Duration(1)
	for p*10 < step || p*1000 < t {
		p *= 10
	}
	if r := t.Round(p); r != t {
		return "≈" + trace.FormatAt(r)
	}
	return trace.FormatAt(t)
}
