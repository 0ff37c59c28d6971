package bench

import (
	"bytes"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/google/pprof/profile"
)

// A sample counts for the part of the innermost frame that has one: the
// runtime's allocation counts for its caller, an API call made inside a
// reconcile for the API server, the collector's background work and the
// goroutine switches for parts of their own.
func TestASampleCountsForTheInnermostPartOfItsStack(t *testing.T) {
	for _, c := range []struct {
		frames []string
		want   string
	}{
		{[]string{"runtime.mallocgc", "github.com/ctrlsim/ctrlsim/sim/apiserver.(*Server).create", "github.com/ctrlsim/ctrlsim/sim/kubeclient.(*Client).Create",
			"example.com/op.(*Reconciler).Reconcile", "sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).reconcileHandler"},
			"API server: storage, admission, validation, watch log"},
		{[]string{"runtime.memmove", "example.com/op.(*Reconciler).Reconcile", "sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).reconcileHandler"},
			"reconciles: controller-runtime's handler and the operator's code"},
		{[]string{"sigs.k8s.io/structured-merge-diff/v6/typed.(*TypedValue).Merge", "github.com/ctrlsim/ctrlsim/sim/apiserver.(*Server).update"},
			"API server: field manager (managed fields, typed conversion)"},
		{[]string{"runtime.scanobject", "runtime.gcDrain", "runtime.gcBgMarkWorker"}, PartGC},
		{[]string{"runtime.futex", "runtime.park_m", "runtime.mcall"}, PartScheduler},
		{[]string{"runtime.futex", "runtime.notesleep"}, PartOther},
	} {
		if got := partOf(c.frames); got != c.want {
			t.Errorf("partOf(%q) = %q, want %q", c.frames, got, c.want)
		}
	}
}

// A breakdown splits the samples by the phase operatortest labelled their
// run with, then by part, largest first; the collector's work carries no
// label and counts between runs. Every sampled second is in exactly one cell.
func TestABreakdownSplitsTheSamplesByPhaseThenPart(t *testing.T) {
	fn := func(id uint64, name string) *profile.Location {
		return &profile.Location{ID: id, Line: []profile.Line{{Function: &profile.Function{ID: id, Name: name}}}}
	}
	reconcile := fn(1, "sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller[...]).reconcileHandler")
	server := fn(2, "github.com/ctrlsim/ctrlsim/sim/apiserver.(*Server).create")
	gc := fn(3, "runtime.gcBgMarkWorker")
	sample := func(nanos int64, phase string, locs ...*profile.Location) *profile.Sample {
		s := &profile.Sample{Location: locs, Value: []int64{1, nanos}}
		if phase != "" {
			s.Label = map[string][]string{world.LabelPhase: {phase}, world.LabelRun: {"plan"}}
		}
		return s
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		Sample: []*profile.Sample{
			sample(3e9, "shrink", server, reconcile), sample(1e9, "shrink", reconcile), sample(2e9, "find", reconcile), sample(5e8, "", gc),
		},
		Location: []*profile.Location{reconcile, server, gc},
		Function: []*profile.Function{reconcile.Line[0].Function, server.Line[0].Function, gc.Line[0].Function},
	}
	var buf bytes.Buffer
	if err := p.Write(&buf); err != nil {
		t.Fatal(err)
	}
	got, err := Breakdown("x", &buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Seconds != 6.5 || len(got.Phases) != 3 {
		t.Fatalf("breakdown: %.1f s in %d phases, want 6.5 s in 3: %+v", got.Seconds, len(got.Phases), got)
	}
	shrink := got.Phases[0]
	if shrink.Name != "shrink" || shrink.Seconds != 4 || len(shrink.Parts) != 2 ||
		shrink.Parts[0] != (Share{"API server: storage, admission, validation, watch log", 3}) ||
		shrink.Parts[1] != (Share{"reconciles: controller-runtime's handler and the operator's code", 1}) {
		t.Errorf("the shrink phase: %+v", shrink)
	}
	if find := got.Phases[1]; find.Name != "find" || find.Seconds != 2 {
		t.Errorf("the find phase: %+v", find)
	}
	if between := got.Phases[2]; between.Name != "between runs" || between.Parts[0] != (Share{PartGC, 0.5}) {
		t.Errorf("the unlabelled samples: %+v", between)
	}
}
