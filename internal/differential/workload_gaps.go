package differential

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// A WorkloadGap is a known divergence between a model of models/kube and
// kube-controller-manager on the workload scripts: Normalise rewrites one record line
// (of either side) so that the divergence no longer shows. Each is pinned by a test
// (TestKnownGapWorkload*) that fails once the model closes it; then drop it here.
type WorkloadGap struct {
	Name      string
	Normalise func(line string) string
}

// workloadGaps are the divergences of the simulator (the models of models/kube and
// the apiserver model under them) from kube-controller-manager on envtest that remain,
// each pinned by a TestKnownGapWorkload* test.
var workloadGaps = []WorkloadGap{gapJobSelectorNotGenerated}

// gapJobSelectorNotGenerated: kube-apiserver's Job strategy generates the selector of
// a Job created without one and labels its template (pkg/registry/batch/job/strategy.go
// PrepareForCreate, generateSelector: batch.kubernetes.io/controller-uid and
// controller-uid with the Job's uid, batch.kubernetes.io/job-name and job-name), and
// the Job's defaulting copies the template's labels to a Job that has none
// (pkg/apis/batch/v1/defaults.go SetDefaults_Job). The apiserver model does neither
// (sim/apiserver/doc.go: no type-specific defaulting), so the simulated Job keeps no
// labels and no selector; the job model puts the same labels on its pods itself
// (models/kube/job.go, "The apiserver's Job strategy"), so the pods agree.
// Normalised by dropping the Job's labels, selector and template labels.
var gapJobSelectorNotGenerated = WorkloadGap{
	Name: "the Job's selector and labels are not generated (sim/apiserver)",
	Normalise: editLine("Job", func(obj map[string]any) {
		if m, ok := obj["metadata"].(map[string]any); ok {
			delete(m, "labels")
		}
		if spec, ok := obj["spec"].(map[string]any); ok {
			delete(spec, "selector")
			if tm, ok := nested(spec, []string{"template", "metadata"}); ok {
				delete(tm.(map[string]any), "labels")
				if len(tm.(map[string]any)) == 0 {
					delete(spec, "template")
				}
			}
			if len(spec) == 0 {
				delete(obj, "spec")
			}
		}
	}),
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
			out[i] = WorkloadRecord{Step: r.Step, Lines: make([]string, len(r.Lines))}
			for j, l := range r.Lines {
				for _, g := range gaps {
					l = g.Normalise(l)
				}
				out[i].Lines[j] = l
			}
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
