package main

// The output of `ctrlsim run` and `ctrlsim replay` for people (the --json forms
// are the contract for scripts): the table with self-explaining headers, a legend,
// a summary of what was caught with replay commands to copy, and the entry's
// introduction at the top of a replay.

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// variantMeaning says what each variant of a reference controller is.
var variantMeaning = map[variant.Variant]string{
	variant.Buggy:  "the code before the upstream fix",
	variant.Fixed:  "the upstream fix, as proposed or merged",
	variant.Robust: "this project's own design",
}

// caughtMeaning says what a caught result of each variant is.
var caughtMeaning = map[variant.Variant]string{
	variant.Buggy:  "in the code before the upstream fix",
	variant.Fixed:  "in the upstream fix itself (bugs an accepted fix leaves or brings)",
	variant.Robust: "in this project's own design (none expected)",
}

// replayAllUpTo is how many caught results the summary gives a replay command
// each; above it, it gives one example per variant (and every unexpected one) and
// points to --json and reports/.
const replayAllUpTo = 4

// shellCommand is how the summary spells the command: runnable from the
// repository's root as printed, with nothing installed.
const shellCommand = "go run ./cmd/"

func printTable(w io.Writer, results []runResult, sum runSummary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ENTRY\tVARIANT\tEXPECTED\tOUTCOME\tPLANS RUN\tVIOLATED\tMINIMAL PLAN\tWALL\t")
	for _, r := range results {
		mark := ""
		if r.Outcome != r.Expect {
			mark = "  <- UNEXPECTED"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%.2fs\t%s\n", r.Entry, r.Variant, r.Expect, r.Outcome, r.Checks,
			or(strings.Join(r.Violated, ","), "-"), planCell(r.MinimalPlan), float64(r.WallMS)/1000, mark)
	}
	tw.Flush()
	fmt.Fprintf(w, "%d results: %d as expected, %d unexpected\n", sum.Results, sum.AsExpected, sum.Unexpected)
	printLegend(w)
	printSummary(w, results)
}

// planCell says what a minimal plan holds beyond the entry's own workload:
// "none needed" when the workload alone triggers the bug.
func planCell(text string) string {
	if text == "" {
		return "-"
	}
	p, err := plan.Parse(text)
	if err != nil { // not a plan the command printed; show its size in lines
		return fmt.Sprintf("%d lines", strings.Count(text, "\n")-1)
	}
	var parts []string
	if n := len(p.Steps); n > 0 {
		parts = append(parts, plural(n, "action"))
	}
	if n := len(p.Faults); n > 0 {
		parts = append(parts, plural(n, "fault"))
	}
	if len(parts) == 0 {
		return "none needed"
	}
	return strings.Join(parts, " + ")
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func printLegend(w io.Writer) {
	fmt.Fprintf(w, `
How to read the table: each row explored one entry with one variant of its controller, running
generated plans (a workload, faults and a seed) in the simulator.
  ENTRY         a known controller bug under one fault profile (list: %[1]sctrlsim list; pages: reports/index.md)
  VARIANT       buggy: %[2]s; fixed: %[3]s;
                robust: %[4]s
  OUTCOME       caught: a plan broke a property (VIOLATED) and was shrunk; holds: no plan did
  PLANS RUN     plans tried (when caught, up to the first that broke a property)
  MINIMAL PLAN  what the shrunk plan adds to the entry's workload; none needed: the workload alone triggers it
`, shellCommand, variantMeaning[variant.Buggy], variantMeaning[variant.Fixed], variantMeaning[variant.Robust])
}

func printSummary(w io.Writer, results []runResult) {
	caught := map[string]int{}
	present := map[string]bool{}
	var all, unexpected []runResult
	for _, r := range results {
		present[r.Variant] = true
		if r.Outcome == string(catalogue.Caught) {
			caught[r.Variant]++
			all = append(all, r)
		}
		if r.Outcome != r.Expect {
			unexpected = append(unexpected, r)
		}
	}
	fmt.Fprintf(w, "\nCaught %s in %d runs (one run: one entry, one variant):\n", plural(len(all), "bug"), len(results))
	for _, v := range variant.All {
		if present[string(v)] {
			fmt.Fprintf(w, "  %-7s %3d caught %s\n", v, caught[string(v)], caughtMeaning[v])
		}
	}
	if len(unexpected) > 0 {
		fmt.Fprintf(w, "Not as expected (the row marked UNEXPECTED; the run exits 1):\n")
		for _, r := range unexpected {
			if r.Replay != "" {
				fmt.Fprintf(w, "  %s %s: expected to hold, caught; replay below\n", r.Entry, r.Variant)
			} else {
				fmt.Fprintf(w, "  %s %s: expected to be caught, held in %d plans; explore further:\n    %sctrlsim run --entry %s --variant %s --checks %d\n",
					r.Entry, r.Variant, r.Checks, shellCommand, r.Entry, r.Variant, 10*r.Checks)
			}
		}
	}
	if len(all) == 0 {
		return
	}
	// The replays to show: every caught result when there are few; else the
	// first of each variant and every unexpected one.
	shown := all
	if len(all) > replayAllUpTo {
		shown = nil
		seen := map[string]bool{}
		for _, r := range all {
			if !seen[r.Variant] || r.Outcome != r.Expect {
				seen[r.Variant] = true
				shown = append(shown, r)
			}
		}
	}
	fmt.Fprintf(w, "\nSee a bug happen: each command replays a shrunk plan bit for bit and prints its timeline.\n")
	for _, r := range shown {
		fmt.Fprintf(w, "  %s, %s variant (page: reports/%s):\n    %s%s\n", r.Entry, r.Variant, catalogue.PageFile(r.Entry), shellCommand, r.Replay)
	}
	if len(shown) < len(all) {
		fmt.Fprintf(w, "The replay commands of all %d: %sctrlsim run --json (field \"replay\"). Each entry's page in reports/\n", len(all), shellCommand)
		fmt.Fprintf(w, "shows its caught plans with their replay commands, timelines and pictures (index: reports/index.md).\n")
	}
}

// writeReplayIntro starts a replay's output: the entry, what the variant is, the
// first paragraph of the entry's summary and where its page is, then the plan.
func writeReplayIntro(w io.Writer, e *catalogue.Entry, v variant.Variant, p *plan.Plan) {
	fmt.Fprintf(w, "entry %s, variant %s (%s)\n", e.ID, v, variantMeaning[v])
	if e.Upstream != "" {
		fmt.Fprintf(w, "upstream fix: %s\n", e.Upstream)
	}
	if intro := firstParagraph(e.Summary); intro != "" {
		fmt.Fprintf(w, "\n%s\n", wrap(intro, 100))
	}
	fmt.Fprintf(w, "(more, with every caught plan: reports/%s)\n\nplan:\n%s", catalogue.PageFile(e.ID), p)
}

func firstParagraph(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n\n")
	return strings.Join(strings.Fields(first), " ")
}

// wrap breaks s between words into lines of at most width characters (a longer
// word gets a line of its own).
func wrap(s string, width int) string {
	var b strings.Builder
	line := 0
	for _, word := range strings.Fields(s) {
		switch {
		case line == 0:
		case line+1+len(word) > width:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	return b.String()
}
