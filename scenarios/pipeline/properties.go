package pipeline

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctrlsim/ctrlsim/controllers/pipeline"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The promotion system's trace steps (Process PromotionProcess): one "promote"
// step per attempt, with Result "ok" when it took effect, and one
// "promotion-applied" step when an effect reaches the cluster. Object is the
// promotion key, "namespace/pipeline/environment@version".
const (
	OpPromote = "promote"
	OpApplied = "promotion-applied"
)

// Properties are the properties of a run of this world: at-most-once over the
// promotion ledger (as traced) and retried-after-failure. They read only the
// run (trace and final state), as sim/check properties do.
func Properties() []check.Property {
	return []check.Property{
		check.AtMostOnce{Effects: Effects},
		check.Eventually{Property: "retried-after-failure", Desired: RetriedAfterFailure},
	}
}

// Effects are the keys of the promotions that took effect, in order: the ledger
// as the trace shows it. A failed attempt (no effect) is not one.
func Effects(r *check.Run) []string {
	var out []string
	for _, s := range r.Steps {
		if isPromote(s) && s.Result == "ok" {
			out = append(out, s.Object)
		}
	}
	return out
}

func isPromote(s trace.Step) bool { return s.Process == PromotionProcess && s.Op == OpPromote }

// RetriedAfterFailure: every promotion attempt that failed was followed by one
// that took effect, unless the version is no longer wanted (the first
// environment's app no longer runs it at the end of the run).
func RetriedAfterFailure(r *check.Run) error {
	latest := map[string]string{} // namespace -> lastAppliedRevision
	for _, o := range r.Objects(pipeline.HelmReleaseGVK) {
		if hr, ok := o.(*pipeline.HelmRelease); ok {
			latest[hr.Namespace] = hr.Status.LastAppliedRevision
		}
	}
	var missing []string
	for i, s := range r.Steps {
		if !isPromote(s) || s.Result == "ok" || slices.Contains(missing, s.Object) {
			continue
		}
		_, version, _ := strings.Cut(s.Object, "@")
		if latest[Environments[0]] != version {
			continue // no longer wanted
		}
		retried := false
		for _, t := range r.Steps[i+1:] {
			if isPromote(t) && t.Object == s.Object && t.Result == "ok" {
				retried = true
				break
			}
		}
		if !retried {
			missing = append(missing, s.Object)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("failed promotions never retried successfully: %s", strings.Join(missing, ", "))
	}
	return nil
}
