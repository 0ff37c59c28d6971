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
)

// The properties of the catalogue's kopf entries, as sim/check properties: they
// read only the run (the trace, the watch log and the final objects).

// faultPhaseEnd is when the run's fault phase ended.
func faultPhaseEnd(r *check.Run) time.Duration {
	if r.HealAt > 0 {
		return r.HealAt
	}
	return r.End
}

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
	end := faultPhaseEnd(r)
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
	end := faultPhaseEnd(r)
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
