package failure

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Suspect is the fault-free run an interleavings-agree violation names as
// the one that shows the bug ("the suspect is the fault-free run with seed
// 2049"), when it is not the failing plan's own run: the plan that runs it
// (the failing plan's workload under the suspect's seed, no fault), its run
// judged, and the verdicts that name it. The story draws it, and the
// failure prints its plan and a replay line for it.
type Suspect struct {
	Name     string
	P        *plan.Plan
	R        *world.RunResult
	Verdicts []check.Verdict
}

// suspectRef is how interleavings-agree names its suspect
// (reference/reference.go's agree).
var suspectRef = regexp.MustCompile(`the suspect is (the fault-free run with seed (\d+))`)

// SuspectOf is the suspect of p's violations vs (nil: no interleavings-agree
// violation names one, p's own run is it, or its run cannot run or is cut
// at the work bound). Its run is judged as a replay of its plan is, so its
// trace hash is the one that replay gives.
func SuspectOf(w *world.World, t *testing.T, p *plan.Plan, vs []check.Verdict) *Suspect {
	for _, v := range vs {
		m := suspectRef.FindStringSubmatch(v.Detail)
		if v.Property != world.InterleavingsAgree || m == nil {
			continue
		}
		seed, err := strconv.ParseUint(m[2], 10, 64)
		if err != nil || seed == p.Seed && len(p.Faults) == 0 {
			return nil // the failing run is the suspect
		}
		sp := &plan.Plan{Seed: seed, Steps: p.Steps}
		defer uncounted(w)()
		r, err := reference.Run(w, t, sp)
		if err != nil || world.CutNote(r.Verdicts) != "" {
			return nil
		}
		return &Suspect{Name: m[1], P: sp, R: r, Verdicts: []check.Verdict{v}}
	}
	return nil
}

// Violated are the suspect's own violations besides interleavings-agree
// (the same two schedules' verdict again): an absolute property the run
// interleavings-agree blames breaks (a deletion that never completes, a
// promotion made twice) is the bug that verdict points at, never hidden
// under it. They are printed with the failure, and Options.Expect counts
// them as the failing plan's: the suspect's plan replays them bit for bit.
func (s *Suspect) Violated() []check.Verdict {
	if s == nil {
		return nil
	}
	var out []check.Verdict
	for _, v := range s.R.Violated() {
		if v.Property != world.InterleavingsAgree {
			out = append(out, v)
		}
	}
	return out
}

// drawsSuspect reports whether the story draws the suspect: when every
// violation is interleavings-agree's (the failing run's other violations
// are its own, drawn on its run).
func (rep *Report) drawsSuspect() bool {
	if rep.Suspect == nil {
		return false
	}
	for _, v := range rep.Violated {
		if v.Property != world.InterleavingsAgree {
			return false
		}
	}
	return true
}

// suspectPath is where the suspect's plan is saved: beside the story, in
// the artifacts directory (it is what the failure made, not a plan to
// commit: the failing plan replays the same violation).
func suspectPath(a artifacts) string {
	return strings.TrimSuffix(a.SVG, ".svg") + ".suspect.plan"
}

// writeSuspect saves the suspect's plan at path, with the header a saved
// plan has, and returns the lines the failure prints of it.
func (rep *Report) writeSuspect(path string) (string, error) {
	s := rep.Suspect
	text := PlanText(s.P, rep.Names)
	if err := os.WriteFile(path, []byte(PlanHeader(rep.Test, path)+text), 0o644); err != nil {
		return "", err
	}
	var b strings.Builder
	drawn := "is the run the story draws"
	if !rep.drawsSuspect() {
		drawn = "is not drawn (the story is this run's, for its other violations)"
	}
	fmt.Fprintf(&b, "\nthe suspect, %s, %s (trace hash %s): the failing plan's workload under its seed, no fault; its plan, saved as %s:\n%s\n",
		s.Name, drawn, s.R.Hash, path, indent(text))
	fmt.Fprintf(&b, "replay the suspect: %s\n", ReplayCommand(rep.Test, path))
	return b.String(), nil
}
