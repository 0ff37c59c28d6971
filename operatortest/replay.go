package operatortest

import (
	"os"
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/story"
	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Replayed is one plan run and judged as Run judges each plan (its
// fault-free references, the generic oracles and the test's properties, less
// what Options.Disable turns off).
type Replayed struct {
	// Verdicts are every verdict of the run; Violated those that do not hold.
	Verdicts []check.Verdict
	// Hash is the trace hash: the same plan gives the same hash.
	Hash string
	// Steps are the trace; Virtual the run's virtual length.
	Steps   []trace.Step
	Virtual time.Duration
	// Timeline is the run's timeline as a failure report prints it: the
	// built-in processes' start-up and their steps on objects the operator
	// never touched folded into one line each.
	Timeline []string
	// Final is the run's final state (read as cluster admin) and what
	// happened, as a Property sees them: for a test that asserts more of one
	// plan's run than a property says (every state in between is in
	// Final.Run().Log).
	Final *world.History
	rep   *failure.Report
	// runsToTell runs the fault-free runs the story compares this one with
	// (failure.ComparedRun) or draws instead (failure.SuspectOf), only when
	// a story is written.
	runsToTell func() (*story.Compared, *failure.Suspect)
}

// Violated are the verdicts that do not hold.
func (r *Replayed) Violated() []check.Verdict { return check.Violated(r.Verdicts) }

// Replay runs the plan p of the operator o describes and judges it, without
// exploring, saving or failing the test: the one plan a catalogue page or
// `ctrlsim replay` shows. Its steps may name seed objects by index or by
// kind and name (object=ConfigMap/team/app, as a failure saves them); it
// runs as the plan with indexes, so both forms give one trace hash. An
// error is a world that cannot run (bad Options, a plan that names an
// unknown step, key or seed object), not a violation.
func Replay(t *testing.T, o world.Options, p *plan.Plan) (*Replayed, error) {
	defer world.Simulating()()
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		return nil, err
	}
	if err := search.AimFaultPhase(w, t); err != nil { // the fault phase Run explored it under
		return nil, err
	}
	if p, err = plan.IndexObjects(p, failure.SeedNames(w)); err != nil {
		return nil, err
	}
	w.KeepFinal = true
	w.Phase = world.PhaseReplay
	r, err := reference.Run(w, t, p)
	if err != nil {
		return nil, err
	}
	ops := w.OperatorProcesses()
	out := &Replayed{Verdicts: r.Verdicts, Hash: r.Hash, Steps: r.Steps, Final: r.Final, Timeline: failure.FoldTimeline(r.Steps, append(slices.Clone(ops), world.SystemNames(w.Opts.Systems)...), failure.FullTimeline()),
		rep: &failure.Report{Test: t.Name(), P: p, R: r, Violated: r.Violated(), Operators: ops, Names: failure.SeedNames(w)}}
	out.runsToTell = func() (*story.Compared, *failure.Suspect) {
		defer world.Simulating()()
		return failure.ComparedRun(w, t, p, r.Violated()), failure.SuspectOf(w, t, p, r.Violated())
	}
	if n := len(r.Steps); n > 0 {
		out.Virtual = r.Steps[n-1].At
	}
	return out, nil
}

// WriteStory writes the run's picture (.svg) and inspector (.html) beside
// planPath (the plan saved as a file there), as a failing test writes them
// beside its saved plan, and returns their paths. title heads the picture.
// (The markdown report a failing test also writes tells how to replay it
// with go test: not for a plan run some other way.)
func (r *Replayed) WriteStory(planPath, title string) (svg, html string, err error) {
	rep := *r.rep
	rep.PlanPath, rep.Test = planPath, title
	if r.runsToTell != nil {
		r.rep.Compared, r.rep.Suspect = r.runsToTell()
		r.runsToTell = nil
		rep.Compared, rep.Suspect = r.rep.Compared, r.rep.Suspect
	}
	a := failure.ArtifactPaths(planPath)
	st := rep.Story()
	if err := failure.WriteFile(a.SVG, func(f *os.File) error { return st.WriteSVG(f) }); err != nil {
		return "", "", err
	}
	return a.SVG, a.HTML, failure.WriteFile(a.HTML, func(f *os.File) error { return st.WriteHTML(f, rep.AllLogs()) })
}
