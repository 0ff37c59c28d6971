package main

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/cmd/ctrlsim/internal/bench"
	"github.com/ctrlsim/ctrlsim/cmd/ctrlsim/internal/worldcost"
)

// measuredWorldCost is a world cost as worldcost.Measure returns one.
func measuredWorldCost() *worldcost.Figures {
	return &worldcost.Figures{Baseline: worldcost.Baseline, BaselineCommit: "fd20a10", Current: "3eda463", Rounds: 7,
		Costs: []worldcost.Cost{{Operator: "twowrites", Test: "TestTheFixedOperatorHolds", Plan: "seed 1\n", CurrentMedian: 0.15, BaseMedian: 0.14, Ratio: 1.07, Min: 0.95, Max: 1.2},
			{Operator: "cronjob", Test: "TestTheOperatorUnderOperatorTest", Plan: "seed 1\n", CurrentMedian: 0.7, BaseMedian: 0.65, Ratio: 1.08, Min: 1.01, Max: 1.19}}}
}

// reports/bench.md has the cost of the world's fidelity as a
// row of its figures table and as a section before the catalogue's catches.
func TestBenchReportShowsTheCostOfTheWorldsFidelity(t *testing.T) {
	md := string(markdown(&bench.Figures{WorldCost: measuredWorldCost()}))
	row := lineWith(t, md, "| "+worldcost.Figure+" ")
	for _, want := range []string{"| 1.08x (cronjob; 1.01-1.19) ", "| <= 1.3x ", "| CPU time of a judged plan's test process"} {
		if !strings.Contains(row, want) {
			t.Errorf("the row %q lacks %q", row, want)
		}
	}
	i, j := strings.Index(md, worldcost.Heading), strings.Index(md, "## Time to catch each buggy variant")
	if i < 0 || j < i || !strings.Contains(md[i:j], "| cronjob | TestTheOperatorUnderOperatorTest: ; plan `seed 1` | 0.700 | 0.650 | 1.08x (1.01-1.19) | <= 1.3x | yes |") {
		t.Errorf("no world cost section before the catches:\n%s", md)
	}
	md = string(markdown(&bench.Figures{}))
	if !strings.Contains(md, worldcost.Heading+"\n\nNot measured (--no-world-cost).\n") || !strings.Contains(lineWith(t, md, "| "+worldcost.Figure+" "), "not measured (--no-world-cost)") {
		t.Errorf("a run without the world's cost does not say so:\n%s", md)
	}
}

// lineWith is the line of s that starts with prefix.
func lineWith(t *testing.T, s, prefix string) string {
	t.Helper()
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	t.Fatalf("no line starts with %q:\n%s", prefix, s)
	return ""
}

// bench --only-world-cost merges its row and section into a report: what
// was there is replaced, what was not is added, the rest is as it was, and
// the table stays aligned.
func TestMergingTheWorldsCostKeepsTheRestOfTheReport(t *testing.T) {
	f := &bench.Figures{APIOpsPerSec: 274951, OperatortestNote: "not measured (--no-operatortest)"}
	before := string(markdown(f))
	merged, err := mergeWorldCost([]byte(before), measuredWorldCost())
	if err != nil {
		t.Fatal(err)
	}
	f.WorldCost = measuredWorldCost()
	if want := string(markdown(f)); string(merged) != want {
		t.Errorf("merged into a report without the world's cost:\n%s\nwant the report with it:\n%s", merged, want)
	}
	// A report from before the section: no row, no section.
	var old []string
	for _, l := range strings.SplitAfter(before, "\n") {
		if !strings.HasPrefix(l, "| "+worldcost.Figure+" ") {
			old = append(old, l)
		}
	}
	oldText := strings.Replace(strings.Join(old, ""), worldcost.Markdown(nil), "", 1)
	if strings.Contains(oldText, worldcost.Heading) {
		t.Fatal("the section was not taken out")
	}
	again, err := mergeWorldCost([]byte(oldText), measuredWorldCost())
	if err != nil {
		t.Fatal(err)
	}
	// The row's width widens the table: compare with the table aligned.
	if string(again) != string(merged) {
		t.Errorf("merged into a report from before the section:\n%s\nwant:\n%s", again, merged)
	}
	twice, err := mergeWorldCost(merged, worldcost.Unavailable(7, "the baseline revision 7f5d150^ is not in this checkout's history"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(twice), worldcost.Heading) != 1 || !strings.Contains(string(twice), "\nNot measured: the baseline revision 7f5d150^ is not in this checkout's history.\n\n## Time to catch") ||
		!strings.Contains(lineWith(t, string(twice), "| "+worldcost.Figure+" "), "| not measured: the baseline revision") {
		t.Errorf("merged over a section:\n%s", twice)
	}
	if _, err := mergeWorldCost([]byte("# ctrlsim bench\n\nno table\n"), measuredWorldCost()); err == nil {
		t.Error("a report with no figures table was merged into")
	}
}

// bench --only-operatortest puts its section in place of the report's: the
// rest of the report is as it was, and the section says it was measured on
// its own.
func TestMergingTheOperatortestFiguresKeepsTheRestOfTheReport(t *testing.T) {
	f := &bench.Figures{APIOpsPerSec: 274951, OperatortestNote: "not measured (--no-operatortest)", WorldCost: measuredWorldCost()}
	before := string(markdown(f))
	alone := &bench.Figures{Operatortest: &bench.Operatortest{Workers: 2,
		Bugs: []bench.BugCatch{{Bug: "bigrecreate, lagging watches only", Seeds: 5, MaxPlans: 300, MedianPlans: 4, ShrinkOverFind: 1.7, CaughtFromAll: true, Targeted: "none"}}},
		OperatortestAlone: "2026-11-27"}
	merged, err := mergeOperatortest([]byte(before), alone)
	if err != nil {
		t.Fatal(err)
	}
	f.Operatortest, f.OperatortestNote, f.OperatortestAlone = alone.Operatortest, "", alone.OperatortestAlone
	if want := string(markdown(f)); string(merged) != want {
		t.Errorf("merged:\n%s\nwant the report with the section:\n%s", merged, want)
	}
	if !strings.Contains(string(merged), "Measured on its own on 2026-11-27") || !strings.Contains(string(merged), "| bigrecreate, lagging watches only | 300 | 4 |") {
		t.Errorf("the merged section does not say it was measured alone, or lacks its row:\n%s", merged)
	}
	if _, err := mergeOperatortest([]byte("# ctrlsim bench\n\nno section\n"), alone); err == nil {
		t.Error("a report with no operatortest section was merged into")
	}
}
