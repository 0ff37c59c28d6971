package differential

import (
	"math"
	"strings"
	"testing"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "k8s.io/api/batch/v1"
)

// The Indexed Job scripts (pkg/controller/job indexed_job_utils.go): one whose pods
// succeed, 3 completions 2 at a time (pods named <job>-<index>-, the completion
// index annotation and label, hostname and JOB_COMPLETION_INDEX, completedIndexes
// "0-2"); one whose pods fail until the Job's backoffLimit is exceeded; one whose
// indexes fail one by one (backoffLimitPerIndex: failedIndexes, the per-index
// failure count annotation, FailedIndexes).
func init() {
	workloadScripts["job-indexed-completes"] = []WorkloadStep{
		{Name: "an Indexed Job of 3 completions, 2 in parallel", Do: createStep(func(ns string) client.Object {
			j := WorkloadJob(ns, "idx", 6, KubeletSucceed)
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions, j.Spec.Parallelism = ptr.To[int32](3), ptr.To[int32](2)
			return j
		}), Settled: jobFinished("idx")},
	}
	workloadScripts["job-indexed-per-index"] = []WorkloadStep{
		// backoffLimitPerIndex 1: each index's first pod fails, waits (its
		// finalizer kept) for its replacement, which gets the failure count 1
		// and fails too: both indexes failed, FailedIndexes.
		{Name: "an Indexed Job of 2 completions whose pods fail, backoffLimitPerIndex 1", Do: createStep(func(ns string) client.Object {
			j := WorkloadJob(ns, "perindex", 1, KubeletFail)
			j.Spec.BackoffLimit = ptr.To[int32](math.MaxInt32) // SetDefaults_Job's, with backoffLimitPerIndex
			j.Spec.BackoffLimitPerIndex = ptr.To[int32](1)
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions, j.Spec.Parallelism = ptr.To[int32](2), ptr.To[int32](2)
			return j
		}), Settled: jobFinished("perindex")},
	}
	workloadScripts["job-indexed-fails"] = []WorkloadStep{
		// backoffLimit 1, 2 indexes at once: both pods fail, 2 failures >
		// backoffLimit.
		{Name: "an Indexed Job of 2 completions whose pods fail, backoffLimit 1", Do: createStep(func(ns string) client.Object {
			j := WorkloadJob(ns, "idxfail", 1, KubeletFail)
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions, j.Spec.Parallelism = ptr.To[int32](2), ptr.To[int32](2)
			return j
		}), Settled: jobFinished("idxfail")},
	}
}

// TestKubeControllerManagerIndexedJobs checks what upstream documents of the Indexed
// Job scripts' records on the real kube-controller-manager
// (pkg/controller/job/indexed_job_utils.go, job_controller.go manageJob): pods named
// <job>-<index>-*, with the completion index annotation and label, hostname
// <job>-<index> and JOB_COMPLETION_INDEX from the label; completedIndexes in
// interval form; a failed Indexed Job counts its failed pods against backoffLimit.
func TestKubeControllerManagerIndexedJobs(t *testing.T) {
	recs := needKubeControllerManagerRecords(t)
	all := func(script string) string { return strings.Join(recs[script][0].Lines, "\n") }
	for _, want := range []string{
		`"completedIndexes":"0-2"`, `"succeeded":3`, `"reason":"CompletionsReached"`,
		`"name":"idx-0-*"`, `"name":"idx-1-*"`, `"name":"idx-2-*"`, `"hostname":"idx-2"`,
		`"batch.kubernetes.io/job-completion-index":"1"`,
		`"name":"JOB_COMPLETION_INDEX","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.labels['batch.kubernetes.io/job-completion-index']"}}`,
		`"message":"Created pod: idx-2-*"`,
	} {
		if !strings.Contains(all("job-indexed-completes"), want) {
			t.Errorf("job-indexed-completes: no %s in\n  %s", want, strings.ReplaceAll(all("job-indexed-completes"), "\n", "\n  "))
		}
	}
	for _, want := range []string{
		`"failed":2`, `"reason":"BackoffLimitExceeded"`, `"type":"FailureTarget"`, `"name":"idxfail-1-*"`,
	} {
		if !strings.Contains(all("job-indexed-fails"), want) {
			t.Errorf("job-indexed-fails: no %s in\n  %s", want, strings.ReplaceAll(all("job-indexed-fails"), "\n", "\n  "))
		}
	}
	for _, want := range []string{
		`"failedIndexes":"0,1"`, `"failed":4`, `"reason":"FailedIndexes"`, `"message":"Job has failed indexes"`,
		`"batch.kubernetes.io/job-index-failure-count":"0"`, `"batch.kubernetes.io/job-index-failure-count":"1"`,
	} {
		if !strings.Contains(all("job-indexed-per-index"), want) {
			t.Errorf("job-indexed-per-index: no %s in\n  %s", want, strings.ReplaceAll(all("job-indexed-per-index"), "\n", "\n  "))
		}
	}
	if strings.Contains(all("job-indexed-fails"), `"completedIndexes":"`) {
		t.Errorf("job-indexed-fails: completed indexes in a Job whose pods all failed:\n  %s", all("job-indexed-fails"))
	}
}
