package differential

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// A WorkloadGap is a known divergence between the simulator (a model of models/kube
// or the kernel under it) and kube-controller-manager on envtest: Normalise rewrites a
// record (of either side) so that the divergence no longer shows. Each is pinned by a
// test (TestKnownGapWorkload*) that fails once the gap closes; then drop it here.
type WorkloadGap struct {
	Name      string
	Normalise func(lines []string) []string
}

// workloadGaps are the divergences of the simulator (the models of models/kube and
// the apiserver model under them) from kube-controller-manager on envtest that remain,
// each pinned by a TestKnownGapWorkload* test.
var workloadGaps = []WorkloadGap{gapEventsNotAggregated}

// gapEventsNotAggregated: kube-controller-manager's event recorder (client-go
// tools/record/events_cache.go EventCorrelator, EventAggregate) combines similar
// events (same source, object, type and reason) after the 10th within 10 minutes into
// one Event whose message starts "(combined from similar events): " and whose count
// grows; the simulator's recorder writes every Event as it comes (sim/process/doc.go
// known gap). Normalised by dropping the prefix and summing the counts of the lines
// that then agree.
var gapEventsNotAggregated = WorkloadGap{
	Name: "events are not aggregated (sim/process)",
	Normalise: func(lines []string) []string {
		counts := map[string]int{}
		var out []string
		for _, l := range lines {
			rest, ok := strings.CutPrefix(l, "Event ")
			if !ok {
				out = append(out, l)
				continue
			}
			i := strings.LastIndex(rest, " x")
			if i < 0 {
				panic("an Event record without its count: " + l)
			}
			n, err := strconv.Atoi(rest[i+2:])
			if err != nil {
				panic("an Event record without its count: " + l)
			}
			counts[strings.Replace(rest[:i], `"message":"(combined from similar events): `, `"message":"`, 1)] += n
		}
		for l, n := range counts {
			out = append(out, fmt.Sprintf("Event %s x%d", l, n))
		}
		slices.Sort(out)
		return out
	},
}

// perLine returns a Normalise that rewrites each line with f.
func perLine(f func(string) string) func([]string) []string {
	return func(lines []string) []string {
		out := make([]string, len(lines))
		for i, l := range lines {
			out[i] = f(l)
		}
		slices.Sort(out)
		return out
	}
}

// editLine returns a Normalise that applies edit to the records of kind.
func editLine(kind string, edit func(obj map[string]any)) func(string) string {
	return func(line string) string {
		k, js, ok := strings.Cut(line, " ")
		if !ok || k != kind {
			return line
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(js), &obj); err != nil {
			panic(fmt.Sprintf("a record line is not JSON: %v: %s", err, line))
		}
		edit(obj)
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(obj); err != nil {
			panic(err)
		}
		return k + " " + strings.TrimSuffix(b.String(), "\n")
	}
}

// diffRecords compares two runs of a script, step by step, after gaps.
func diffRecords(real, model []WorkloadRecord, gaps []WorkloadGap) string {
	norm := func(recs []WorkloadRecord) []WorkloadRecord {
		out := make([]WorkloadRecord, len(recs))
		for i, r := range recs {
			lines := slices.Clone(r.Lines)
			for _, g := range gaps {
				lines = g.Normalise(lines)
			}
			out[i] = WorkloadRecord{Step: r.Step, Lines: lines}
		}
		return out
	}
	a, b := norm(real), norm(model)
	var sb strings.Builder
	for i := 0; i < max(len(a), len(b)); i++ {
		switch {
		case i >= len(a):
			fmt.Fprintf(&sb, "step %q: only the models recorded it\n", b[i].Step)
		case i >= len(b):
			fmt.Fprintf(&sb, "step %q: the models did not get there\n", a[i].Step)
		default:
			if d := cmp.Diff(a[i].Lines, b[i].Lines); d != "" {
				fmt.Fprintf(&sb, "after step %q:\n%s", a[i].Step, d)
			}
		}
	}
	return sb.String()
}
