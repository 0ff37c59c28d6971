package kopf

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/watch"

	kopfop "github.com/ctrlsim/ctrlsim/controllers/kopf"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Attempt is one PATCH of a KopfExample by the operator: kopf's progress PATCH
// (or a finalizer PATCH).
type Attempt struct {
	At     time.Duration
	Failed bool
	Result string
	// Incarnation is the operator's process incarnation that made it (1, then one
	// more per restart).
	Incarnation int
}

// Attempts returns the operator's PATCHes of KopfExample name, in trace order.
func Attempts(steps []trace.Step, name string) []Attempt {
	object := "KopfExample " + Namespace + "/" + name
	var out []Attempt
	incarnation := 0
	for _, s := range steps {
		if s.Process != Operator {
			continue
		}
		switch {
		case s.Op == "start" || s.Op == "restart":
			incarnation++
		case s.Op == "patch" && s.Object == object:
			out = append(out, Attempt{At: s.At, Failed: s.Result != "ok", Result: s.Result, Incarnation: incarnation})
		}
	}
	return out
}

// Failures returns the times of the failed attempts.
func Failures(attempts []Attempt) []time.Duration {
	var out []time.Duration
	for _, a := range attempts {
		if a.Failed {
			out = append(out, a.At)
		}
	}
	return out
}

// KopfDelay is the i-th delay (from 0) of kopf's default throttling sequence:
// 1, 1, 2, 3, 5, ... 610 s, then 610 s for ever.
func KopfDelay(i int) time.Duration {
	d := kopfop.DefaultErrorDelays
	if i >= len(d) {
		return d[len(d)-1]
	}
	return d[i]
}

// LimiterDelay is the i-th delay (from 0) of controller-runtime's per-item rate
// limiter: 5ms·2^i, capped at 1000 s.
func LimiterDelay(i int) time.Duration {
	if i >= 18 {
		return 1000 * time.Second
	}
	return min(5*time.Millisecond<<i, 1000*time.Second)
}

// BoundedRetryRate is the property bounded-retry-rate (docs/design.md; SEEDS.md Seed 3
// (e) I1) for one object: in every run of failed attempts by one incarnation of
// the operator with no success in between, the gap after the i-th failure is at
// least the smaller of kopf's i-th delay and the item rate limiter's i-th delay.
// kopf's throttle and the controller's rate limiter both keep inside it; a hot
// loop (one attempt per watch event) leaves it within ten failures. A restart
// starts a new run: both kopf's throttle and a controller's rate limiter live in
// memory (SEEDS.md Seed 3 (f), "throttle state resets"), and restarts are
// themselves spaced by CrashLoopBackOff.
func BoundedRetryRate(attempts []Attempt) error {
	_, err := envelope(attempts, 0)
	return err
}

// envelope checks the failed attempts against the envelope and returns the
// first one outside it. With quiet zero a success ends a streak of failures;
// otherwise a streak ends only after quiet with no failure. A restart always
// ends it.
func envelope(attempts []Attempt, quiet time.Duration) (Attempt, error) {
	streak, incarnation := 0, 0
	var last time.Duration
	for _, a := range attempts {
		if !a.Failed {
			if quiet == 0 {
				streak = 0 // a success ends the streak
			}
			continue
		}
		if a.Incarnation != incarnation || (quiet > 0 && streak > 0 && a.At-last >= quiet) {
			streak, incarnation = 0, a.Incarnation
		}
		if streak > 0 {
			want := min(KopfDelay(streak-1), LimiterDelay(streak-1))
			if gap := a.At - last; gap < want {
				return a, fmt.Errorf("failed attempt %d of a streak came %v after the previous one at %v, want at least %v: %s",
					streak+1, gap, last, want, trim(a.Result))
			}
		}
		streak++
		last = a.At
	}
	return Attempt{}, nil
}

func trim(s string) string {
	if len(s) > 120 {
		return s[:120] + "..."
	}
	return strings.TrimSpace(s)
}

// BoundedFailureRate is BoundedRetryRate for a write that fails only some of the
// time: the failed attempts of one incarnation keep inside the same envelope
// counted across the successes between them, and a streak starts again only
// after quiet with no failure (or at a restart). It is the reading of
// bounded-retry-rate under a flaky fault (SEEDS.md Seed 3 (f), "one success
// resets the sequence"): an operator that forgets its backoff at every success
// keeps failing about as often as events come. quiet must be positive.
func BoundedFailureRate(attempts []Attempt, quiet time.Duration) error {
	if quiet <= 0 {
		panic("kopf: BoundedFailureRate needs a positive quiet period")
	}
	_, err := envelope(attempts, quiet)
	return err
}

// The properties of the catalogue's kopf entries, as sim/check properties: they
// read only the run (the trace, the watch log and the final objects).

// patched returns the names of the KopfExamples the operator PATCHed, sorted.
func patched(r *check.Run) []string {
	prefix := "KopfExample " + Namespace + "/"
	var names []string
	for _, s := range r.Steps {
		if s.Process == Operator && s.Op == "patch" && strings.HasPrefix(s.Object, prefix) {
			if n := strings.TrimPrefix(s.Object, prefix); !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

// RetryRate is bounded-retry-rate (docs/design.md) over every KopfExample the
// operator PATCHes, judged on the fault phase. With Quiet zero it is
// BoundedRetryRate (SEEDS.md Seed 3 (e) I1: a success ends a streak of
// failures); otherwise BoundedFailureRate (failures count across successes
// until Quiet passes without one).
type RetryRate struct {
	Quiet time.Duration
}

func (p RetryRate) Name() string { return "bounded-retry-rate" }

func (p RetryRate) Check(r *check.Run) check.Verdict {
	end := r.FaultPhaseEnd()
	total := 0
	for _, name := range patched(r) {
		var attempts []Attempt
		for _, a := range Attempts(r.Steps, name) {
			if a.At <= end {
				attempts = append(attempts, a)
			}
		}
		total += len(attempts)
		if a, err := envelope(attempts, p.Quiet); err != nil {
			return check.Verdict{Property: p.Name(), At: a.At, Detail: fmt.Sprintf("KopfExample %s/%s: %v", Namespace, name, err)}
		}
	}
	return check.Verdict{Property: p.Name(), Holds: true, Detail: fmt.Sprintf("%d PATCHes within the envelope", total)}
}

// handledSpec is the spec kopf last handled, from its diff-base annotation.
func handledSpec(k *kopfop.KopfExample) (kopfop.KopfExampleSpec, bool) {
	raw, ok := k.Annotations[kopfop.AnnotationLastHandled]
	if !ok {
		return kopfop.KopfExampleSpec{}, false
	}
	var e struct {
		Spec kopfop.KopfExampleSpec `json:"spec"`
	}
	if json.Unmarshal([]byte(raw), &e) != nil {
		return kopfop.KopfExampleSpec{}, false
	}
	return e.Spec, true
}

// Handled reports whether kopf has handled k's current spec: its diff base
// holds the spec as it is.
func Handled(k *kopfop.KopfExample) bool {
	spec, ok := handledSpec(k)
	return ok && equality.Semantic.DeepEqual(spec, k.Spec)
}

// Isolation is SEEDS.md Seed 3 (e) I2 as a property ("isolation"): while some
// object fails, every change of the spec of each Healthy object is handled
// (kopf's diff base shows it) within Within, over the fault phase.
type Isolation struct {
	Healthy []string
	Within  time.Duration
}

func (p Isolation) Name() string { return "isolation" }

func (p Isolation) Check(r *check.Run) check.Verdict {
	end := r.FaultPhaseEnd()
	for _, name := range p.Healthy {
		since := time.Duration(-1) // when the spec kopf has not handled appeared
		late := func(at time.Duration) *check.Verdict {
			if since >= 0 && at-since > p.Within {
				return &check.Verdict{Property: p.Name(), At: since + p.Within,
					Detail: fmt.Sprintf("KopfExample %s/%s: a change of its spec at %v was not handled within %v", Namespace, name, since, p.Within)}
			}
			return nil
		}
		for _, ev := range r.Log {
			k, ok := ev.Object.(*kopfop.KopfExample)
			if !ok || ev.GVK != kopfop.KopfExampleGVK || k.Namespace != Namespace || k.Name != name {
				continue
			}
			at := ev.At.Sub(r.Start)
			if at > end {
				break
			}
			switch {
			case ev.Type == watch.Deleted || Handled(k):
				if v := late(at); v != nil {
					return *v
				}
				since = -1
			case since < 0:
				since = at
			}
		}
		if v := late(end); v != nil {
			return *v
		}
	}
	return check.Verdict{Property: p.Name(), Holds: true, Detail: fmt.Sprintf("%v handled within %v", p.Healthy, p.Within)}
}

// AllHandled is the desired state of a run: kopf has handled the current spec
// of every KopfExample.
func AllHandled(r *check.Run) error {
	var behind []string
	for _, o := range r.Objects(kopfop.KopfExampleGVK) {
		if k, ok := o.(*kopfop.KopfExample); ok && !Handled(k) {
			behind = append(behind, k.Namespace+"/"+k.Name)
		}
	}
	if len(behind) > 0 {
		slices.Sort(behind)
		return fmt.Errorf("KopfExamples whose spec kopf has not handled: %s", strings.Join(behind, ", "))
	}
	return nil
}
