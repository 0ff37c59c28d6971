package worldcost

import (
	"strings"
	"testing"
)

// The ratios pair the rounds (current over baseline, round by round): their
// median and range, and each side's median CPU seconds.
func TestSummarizePairsTheRounds(t *testing.T) {
	c := Summarize(Operators[0], []float64{1.0, 1.5, 0.9, 1.2}, []float64{1.0, 1.0, 1.0, 0.8})
	if c.Note != "" {
		t.Fatal(c.Note)
	}
	// ratios 1.0, 1.5, 0.9, 1.5: sorted 0.9 1.0 1.5 1.5
	if c.Ratio != 1.25 || c.Min != 0.9 || c.Max != 1.5 {
		t.Errorf("ratio %v (%v-%v), want 1.25 (0.9-1.5)", c.Ratio, c.Min, c.Max)
	}
	if c.CurrentMedian != 1.1 || c.BaseMedian != 1.0 {
		t.Errorf("medians %v, %v, want 1.1, 1.0", c.CurrentMedian, c.BaseMedian)
	}
	if !c.Within() {
		t.Errorf("1.25x is within %.1fx", Goal)
	}
	if c := Summarize(Operators[0], []float64{1.4}, []float64{1.0}); c.Within() {
		t.Errorf("1.4x is not within %.1fx", Goal)
	}
	if c := Summarize(Operators[0], nil, nil); c.Note == "" || c.Within() {
		t.Errorf("no rounds: %+v, want a note", c)
	}
	if c := Summarize(Operators[0], []float64{1}, []float64{0}); c.Note == "" {
		t.Errorf("a baseline of no CPU time: %+v, want a note", c)
	}
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median of 3, 1, 2: %v", m)
	}
}

// The section has a row per operator with its medians, its ratio and
// whether it meets the goal; the figures table's value is the more costly
// operator's.
func TestTheSectionShowsEachOperatorBesideTheGoal(t *testing.T) {
	f := &Figures{Baseline: Baseline, BaselineCommit: "fd20a10aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", Current: "3eda463", Rounds: 7, Machine: "host h: 2 CPUs", Date: "2026-11-27",
		Costs: []Cost{
			{Operator: "twowrites", What: "w", Test: "TestA", Plan: "seed 1\nat 5s delete object=0\n", CurrentMedian: 0.16, BaseMedian: 0.15, Ratio: 1.05, Min: 0.9, Max: 1.2},
			{Operator: "cronjob", What: "c", Test: "TestB", Plan: "seed 1\n", CurrentMedian: 1.5, BaseMedian: 1.0, Ratio: 1.5, Min: 1.4, Max: 1.6},
		}}
	md := Markdown(f)
	for _, want := range []string{Heading + "\n\n", "at this checkout (3eda463) and at 7f5d150^ (fd20a10)", "7 rounds", "Measured on host h: 2 CPUs, 2026-11-27.",
		"| twowrites | TestA: w; plan `seed 1 / at 5s delete object=0` | 0.160 | 0.150 | 1.05x (0.90-1.20) | <= 1.3x | yes |",
		"| cronjob | TestB: c; plan `seed 1` | 1.500 | 1.000 | 1.50x (1.40-1.60) | <= 1.3x | no |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the section lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "--only-world-cost") {
		t.Errorf("a section measured with the rest says it was merged:\n%s", md)
	}
	f.Alone = true
	if md := Markdown(f); !strings.Contains(md, "Measured on its own (`ctrlsim bench --only-world-cost --report`) and merged into this report") {
		t.Errorf("a section measured alone does not say so:\n%s", md)
	}
	if v, goal := Value(f); v != "1.50x (cronjob; 1.40-1.60)" || goal != "<= 1.3x" {
		t.Errorf("value %q, goal %q", v, goal)
	}
}

// Without git or the baseline the section says why in one line, and the
// table's value says so too: no silent pass.
func TestTheBaselineUnavailableIsOneLine(t *testing.T) {
	f := Unavailable(7, "the baseline revision 7f5d150^ is not in this checkout's history (a shallow clone?)")
	md := Markdown(f)
	want := "\n" + Heading + "\n\nNot measured: the baseline revision 7f5d150^ is not in this checkout's history (a shallow clone?).\n"
	if md != want {
		t.Errorf("got %q, want %q", md, want)
	}
	if v, _ := Value(f); !strings.HasPrefix(v, "not measured: the baseline revision") {
		t.Errorf("value %q", v)
	}
	if n := Notes(f); len(n) != 1 || !strings.Contains(n[0], "not measured") {
		t.Errorf("notes %q", n)
	}
	one := &Figures{Baseline: Baseline, Rounds: 7, Costs: []Cost{{Operator: "cronjob", Test: "TestB", Plan: "seed 1\n", Note: "not measured: go test -c failed"}}}
	if !strings.Contains(Markdown(one), "| cronjob | TestB: ; plan `seed 1` | not measured: go test -c failed | - | - | <= 1.3x | - |") {
		t.Errorf("an operator not measured:\n%s", Markdown(one))
	}
	if v, _ := Value(one); v != "cronjob not measured: go test -c failed" {
		t.Errorf("value %q", v)
	}
	if n := Notes(one); len(n) != 1 {
		t.Errorf("notes %q", n)
	}
	if v, _ := Value(nil); !strings.Contains(v, "--no-world-cost") {
		t.Errorf("value of a skipped measurement %q", v)
	}
}
