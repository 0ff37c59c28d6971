package search

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/rundiff"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// reporter reports the violations of one Run: each fails the test, unless
// Options.Expect expects it (then it is logged, and the test needs one).
type reporter struct {
	t        *testing.T
	w        *world.World
	expected int // violations the test expected, reported
}

// isExpected reports whether vs include the property Options.Expect names:
// a plan is judged as a whole, its run's violations and those of the run
// its interleavings-agree violation blames (failure.Suspect.Violated), each
// shown with the failure and replayed by a plan.
func isExpected(w *world.World, vs []check.Verdict) bool {
	if w.Opts.Expect == "" {
		return false
	}
	for _, v := range vs {
		if w.Opts.Expect == world.AnyProperty || slices.Contains(w.Opts.Expected(), v.Property) {
			return true
		}
	}
	return false
}

// judge runs p (from path); when it violates something it reports it, and
// returns the signatures of what it violates.
func (rep *reporter) judge(p *plan.Plan, path string) []string {
	rep.t.Helper()
	r, err := reference.Run(rep.w, rep.t, p)
	if err != nil {
		rep.t.Fatalf("operatortest: the world could not run plan %s: %v", path, err)
	}
	vs := r.Violated()
	if len(vs) == 0 {
		if unmet := unmetFaults(p, r.Steps); unmet != "" { // phase.go
			// No silent pass: a plan whose fault never happens tests nothing.
			rep.t.Errorf("operatortest: plan %s holds, but its fault did not happen (%s): its crash falls outside the fault phase it is replayed under (%s; Options.FaultPhase): it tests nothing, and its hold says nothing of the bug it was saved for (trace hash %s)",
				path, unmet, rep.w.Opts.FaultPhase, r.Hash)
			return nil
		}
		timeline := ""
		if failure.FullTimeline() {
			// Asked for: the holding run, every step of it.
			timeline = "; its timeline:\n" + strings.Join(failure.FoldTimeline(r.Steps, rep.w.Space.Processes, true), "\n")
		}
		rep.t.Logf("operatortest: plan %s holds (trace hash %s)%s", path, r.Hash, timeline)
		return nil
	}
	rep.report(p, path, r, "")
	return signatures(rep.w, vs)
}

// replay replays a finding's minimal plan, saved at path: a violation that its
// plan does not reproduce is a determinism bug, never a pass, and the
// finding is reported as one that did not replay. A replay that gives
// another trace hash but agrees with the exploring run modulo what the
// oracles ignore (determinism.go), and shows the finding again, replays.
func (rep *reporter) replay(f Finding, path string) {
	rep.t.Helper()
	w := rep.w
	r, err := reference.Run(w, rep.t, f.Minimal)
	if err != nil {
		rep.t.Fatalf("operatortest: the world could not run plan %s: %v", path, err)
	}
	note := ""
	if r.Hash != f.Hash {
		explored := f.explored
		if explored == nil {
			explored = reference.Recalled(w, f.Minimal)
		}
		if explored != nil && explored.Hash != f.Hash {
			explored = nil
		}
		again := slices.Contains(signatures(w, r.Violated()), f.Signature)
		var beyond *rundiff.Divergence
		if explored != nil {
			beyond = agreeLearning(w, explored, r) // determinism.go
		}
		if explored != nil && again && beyond == nil {
			what := "nothing the steps keep"
			if d := rundiff.Diverge(w, explored, r, false, explorationOf(w).found); d != nil {
				what = d.String()
			}
			rep.t.Logf("operatortest: the minimal plan %s replays to trace hash %s, not %s as explored: the runs differ only in what the oracles ignore (%s), and the replay shows %s again",
				path, r.Hash, f.Hash, what, f.Signature)
			rep.report(f.Minimal, path, r, "")
			return
		}
		// Said once, at the test's end (run.go): here only where.
		d := rundiff.Steps(f.steps, r.Steps, w.Space.Processes, explorationOf(w).nondeterminism != "")
		if beyond != nil {
			d += fmt.Sprintf("\nBeyond what the oracles ignore, %s differ: sort what the operator renders there, or declare it with Options.Nondeterministic: %s", beyond, beyond.Declare())
		}
		msg := fmt.Sprintf("operatortest: the minimal plan %s does not replay bit for bit: exploring it gave trace hash %s, replaying it %s; %s",
			path, f.Hash, r.Hash, d)
		if len(r.Violated()) == 0 {
			// Never dropped: replayed again, and reported with the hashes
			// seen and how many of the replays violate (the operator's own
			// nondeterminism decides; report the first that does).
			hashes, violating := []string{r.Hash}, 0
			for range moreReplays {
				again, err := reference.Run(w, rep.t, f.Minimal)
				if err != nil {
					rep.t.Fatalf("operatortest: the world could not run plan %s: %v", path, err)
				}
				hashes = append(hashes, again.Hash)
				if len(again.Violated()) > 0 {
					violating++
					if violating == 1 {
						r = again
					}
				}
			}
			seen := fmt.Sprintf("%d replays gave trace hashes %s; %d of them violate%s", len(hashes), strings.Join(hashes, ", "), violating,
				map[bool]string{true: " (the first that does is reported below)", false: ""}[violating > 0])
			if violating == 0 {
				var was []string
				for _, v := range f.Violations {
					was = append(was, fmt.Sprintf("  %s: %s", v.Property, v.Detail))
				}
				rep.t.Errorf("%s\nThe replay violates nothing (%s): the violation found while exploring (%s) does not reproduce from its plan. Exploring it, the plan violated:\n%s",
					msg, seen, f.Signature, strings.Join(was, "\n"))
				return
			}
			msg += "\n" + seen
		}
		note = msg
	}
	rep.report(f.Minimal, path, r, note)
}

// moreReplays are the replays made again of a finding's minimal plan whose
// first replay gave another trace hash and violated nothing: how many of
// them violate is reported with the hashes, and the finding with the first
// that does.
const moreReplays = 3

// report reports a violating run of p; note, if set, is a determinism
// failure that fails the test even when the violation was expected.
func (rep *reporter) report(p *plan.Plan, path string, r *world.RunResult, note string) {
	rep.t.Helper()
	t := rep.t
	f := failure.Of(rep.w, t, p, path, r)
	text := f.Text
	switch {
	case note != "":
		t.Errorf("%s\n\n%s", note, text)
	case isExpected(rep.w, r.Violated()), isExpected(rep.w, f.Suspect.Violated()):
		rep.expected++
		t.Logf("operatortest: as expected (Options.Expect %q):\n%s", rep.w.Opts.Expect, text)
	case rep.w.Opts.Expect != "":
		t.Errorf("%s\n(Options.Expect is %q: this violation is another one)", text, rep.w.Opts.Expect)
	default:
		t.Error(text)
	}
}

// finish fails a test that expected a violation and saw none.
func (rep *reporter) finish(plans int) {
	rep.t.Helper()
	if rep.w.Opts.Expect != "" && rep.expected == 0 {
		what := "a violation of " + strings.Join(rep.w.Opts.Expected(), " or ")
		if rep.w.Opts.Expect == world.AnyProperty {
			what = "a violation"
		}
		rep.t.Errorf("operatortest: Options.Expect: %s was expected, and %d plans (seed %d) showed none: the known bug is no longer caught",
			what, plans, rep.w.Opts.EffectiveSeed())
	}
}

// savedPath is where a test's minimal plan is saved: <test>.plan, or with a
// signature (KeepGoing) <test>.<property and kinds>.<hash>.plan.
func savedPath(test, sig string) string {
	name := failure.FileName(test)
	if sig != "" {
		h := sha256.Sum256([]byte(sig))
		head, _, _ := strings.Cut(sig, " @ ")
		name += "." + strings.Trim(failure.FileName(strings.ReplaceAll(head, " ", "-")), "._-") + "." + hex.EncodeToString(h[:4])
	}
	return filepath.Join("testdata", "ctrlsim", name+".plan")
}

// savedPlans are a test's saved plans: <test>.plan, then the per-signature
// ones, in name order.
func savedPlans(test string) []string {
	var out []string
	if p := savedPath(test, ""); failure.Exists(p) {
		out = append(out, p)
	}
	more, _ := filepath.Glob(filepath.Join("testdata", "ctrlsim", globEscape(failure.FileName(test))+".*.plan"))
	slices.Sort(more)
	return append(out, more...)
}

func globEscape(s string) string {
	return strings.NewReplacer(`[`, `\[`, `*`, `\*`, `?`, `\?`, `\`, `\\`).Replace(s)
}

// Signatures.
//
// Two violations are the same bug when they violate the same property, name
// the same kinds, and (a panic) panicked at the same code location: what a
// fuzzer's crash deduplication keys on (the stack's top frames), without what
// differs between occurrences of one bug (object names, times, goroutine ids).

// signatures are the signatures of vs, in order, each once.
func signatures(w *world.World, vs []check.Verdict) []string {
	var out []string
	for _, v := range vs {
		if s := signature(w, v); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// signature is v's: "<property> <kinds named>[ @ <where>]".
func signature(w *world.World, v check.Verdict) string {
	s := v.Property
	if kinds := kindsNamed(w, v.Detail); len(kinds) > 0 {
		s += " " + strings.Join(kinds, ",")
	}
	if v.Where != "" {
		s += " @ " + v.Where
	}
	return s
}

// kindsNamed are the kinds of the world (judged, collected, and the
// cluster's own) that detail names as words, sorted.
func kindsNamed(w *world.World, detail string) []string {
	known := map[string]bool{"Namespace": true, "Lease": true, "Event": true}
	for _, k := range w.Kinds {
		known[k.Kind] = true
	}
	for _, k := range w.Collected { // common children: judged when the operator touches them
		known[k.Kind] = true
	}
	for _, k := range world.WorkloadKinds {
		known[k.Kind] = true
	}
	var out []string
	for _, word := range strings.FieldsFunc(detail, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if known[word] && !slices.Contains(out, word) {
			out = append(out, word)
		}
	}
	slices.Sort(out)
	return out
}
