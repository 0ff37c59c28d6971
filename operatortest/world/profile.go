package world

import (
	"cmp"
	"context"
	"runtime/pprof"
)

// CPU profile labels. Every run a test simulates carries two pprof labels on
// its goroutines (the run's own and every goroutine of its world, which
// inherit them), so that a profile of a test (go test -cpuprofile) says
// where an exploration spent its time: `go tool pprof -tagfocus
// ctrlsim.phase=shrink` shows the shrink alone, `-tags` the split.
const (
	// LabelPhase is what the run was for: "find" (a plan of the explored
	// sequence, in the test's process or a worker's), "shrink" (a
	// shrinker's candidate, or the minimal plan judged to the end),
	// "replay" (a saved or given plan), "preflight" (the fault-free run
	// that checks the managers start, and the run that finds the kinds the
	// world holds).
	LabelPhase = "ctrlsim.phase"
	// LabelRun is which run of the phase: "plan" (the plan itself, judged
	// against its references) or "reference" (a fault-free run it is
	// judged against: reference.go).
	LabelRun = "ctrlsim.run"
)

// The phases of LabelPhase.
const (
	PhaseFind      = "find"
	PhaseShrink    = "shrink"
	PhaseReplay    = "replay"
	phasePreflight = "preflight"
)

// labelled runs f with the run's labels on this goroutine (and those it
// starts), then restores the ones it had.
func (w *World) labelled(judged bool, f func()) {
	run := "reference"
	if judged {
		run = "plan"
	}
	pprof.Do(context.Background(), pprof.Labels(LabelPhase, cmp.Or(w.Phase, phasePreflight), LabelRun, run), func(context.Context) { f() })
}
