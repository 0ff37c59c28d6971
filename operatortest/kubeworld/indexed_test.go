package kubeworld_test

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/ctrlsim/ctrlsim/models/kube"
)

func indexedJob(name string, completions, parallelism, backoffLimit int32, annotations map[string]string) *batchv1.Job {
	j := job(name, completions, parallelism, backoffLimit, annotations)
	j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
	return j
}

// indexOf checks a pod of an Indexed Job as manageJob makes it
// (indexed_job_utils.go): the completion index annotation and label, the
// generateName <job>-<index>-, hostname <job>-<index>, JOB_COMPLETION_INDEX
// from the label; it returns the index.
func indexOf(t *testing.T, job string, p *corev1.Pod) int {
	t.Helper()
	ix, err := strconv.Atoi(p.Annotations[batchv1.JobCompletionIndexAnnotation])
	if err != nil {
		t.Fatalf("pod %s: completion index annotation %q", p.Name, p.Annotations[batchv1.JobCompletionIndexAnnotation])
	}
	want := fmt.Sprintf("%s-%d", job, ix)
	if p.Labels[batchv1.JobCompletionIndexAnnotation] != strconv.Itoa(ix) || p.GenerateName != want+"-" || p.Spec.Hostname != want {
		t.Errorf("pod %s: label %q, generateName %q, hostname %q; want index %d", p.Name,
			p.Labels[batchv1.JobCompletionIndexAnnotation], p.GenerateName, p.Spec.Hostname, ix)
	}
	env := p.Spec.Containers[0].Env
	if len(env) != 1 || env[0].Name != "JOB_COMPLETION_INDEX" || env[0].ValueFrom == nil || env[0].ValueFrom.FieldRef == nil ||
		env[0].ValueFrom.FieldRef.FieldPath != "metadata.labels['batch.kubernetes.io/job-completion-index']" {
		t.Errorf("pod %s: env %+v", p.Name, env)
	}
	return ix
}

// An Indexed Job of 3 completions, 2 at a time: one pod per index, the lowest
// pending index first (firstPendingIndexes), completedIndexes "0-2" and
// succeeded 3 (the indexes, not the pods), then Complete.
func TestIndexedJobCompletes(t *testing.T) {
	c := world(t, "seed 21\n")
	j := indexedJob("idx", 3, 2, 6, map[string]string{kube.AnnotationRun: "5s"})
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	st := get(t, c, j).Status
	eq(t, "counters", fmt.Sprint(st.Active, st.Succeeded, st.Failed), "0 3 0")
	eq(t, "completedIndexes", st.CompletedIndexes, "0-2")
	eq(t, "conditions", fmt.Sprint(jobConds(st.Conditions)), fmt.Sprint([]string{
		"SuccessCriteriaMet=True/CompletionsReached: Reached expected number of succeeded pods",
		"Complete=True/CompletionsReached: Reached expected number of succeeded pods",
	}))
	var ixs []int
	for _, p := range pods(t, c) {
		ixs = append(ixs, indexOf(t, "idx", &p))
		if p.Status.Phase != corev1.PodSucceeded || len(p.Finalizers) != 0 {
			t.Errorf("pod %s: phase %s, finalizers %v", p.Name, p.Status.Phase, p.Finalizers)
		}
	}
	slices.Sort(ixs)
	eq(t, "indexes of the pods", fmt.Sprint(ixs), "[0 1 2]")
}

// The first pod bound fails (a podfail fault): after the pod failure back-off
// its index, and only it, gets a new pod; the Job completes with both indexes,
// failed 1.
func TestIndexedJobReplacesAFailedIndex(t *testing.T) {
	c := world(t, "seed 22\npodfail pod=1\n")
	j := indexedJob("idx", 2, 2, 6, map[string]string{kube.AnnotationRun: "5s"})
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Minute)
	st := get(t, c, j).Status
	eq(t, "counters", fmt.Sprint(st.Active, st.Succeeded, st.Failed), "0 2 1")
	eq(t, "completedIndexes", st.CompletedIndexes, "0,1")
	perIndex := map[int][]corev1.PodPhase{}
	for _, p := range pods(t, c) {
		ix := indexOf(t, "idx", &p)
		perIndex[ix] = append(perIndex[ix], p.Status.Phase)
	}
	var failed, succeeded int
	for ix := 0; ix < 2; ix++ {
		phases := perIndex[ix]
		slices.Sort(phases)
		switch fmt.Sprint(phases) {
		case "[Failed Succeeded]":
			failed++
		case "[Succeeded]":
			succeeded++
		default:
			t.Errorf("index %d: pods %v", ix, phases)
		}
	}
	eq(t, "indexes replaced, indexes run once", fmt.Sprint(failed, succeeded), "1 1")
}

// An Indexed Job whose pods all exit 1, 2 indexes at once, backoffLimit 1:
// two failures exceed it, the Job fails with no completed index.
func TestIndexedJobBackoffLimitExceeded(t *testing.T) {
	c := world(t, "seed 23\n")
	j := indexedJob("idx", 2, 2, 1, map[string]string{kube.AnnotationRun: "2s", kube.AnnotationExitCode: "1"})
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	st := get(t, c, j).Status
	eq(t, "counters", fmt.Sprint(st.Active, st.Succeeded, st.Failed), "0 0 2")
	eq(t, "completedIndexes", st.CompletedIndexes, "")
	eq(t, "conditions", fmt.Sprint(jobConds(st.Conditions)), fmt.Sprint([]string{
		"FailureTarget=True/BackoffLimitExceeded: Job has reached the specified backoff limit",
		"Failed=True/BackoffLimitExceeded: Job has reached the specified backoff limit",
	}))
	var ixs []int
	for _, p := range pods(t, c) {
		ixs = append(ixs, indexOf(t, "idx", &p))
	}
	slices.Sort(ixs)
	eq(t, "indexes of the pods", fmt.Sprint(ixs), "[0 1]")
}

// backoffLimitPerIndex 1, the first pod bound fails once (podfail): its index
// waits the back-off with the failed pod's finalizer kept
// (getPodsWithDelayedDeletionPerIndex), then gets a pod whose
// job-index-failure-count is 1, which succeeds; no index failed.
func TestIndexedJobBackoffLimitPerIndexRetriesAnIndex(t *testing.T) {
	c := world(t, "seed 24\npodfail pod=1\n")
	j := indexedJob("idx", 2, 2, 6, map[string]string{kube.AnnotationRun: "5s"})
	j.Spec.BackoffLimit, j.Spec.BackoffLimitPerIndex = nil, ptr.To[int32](1)
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Minute)
	st := get(t, c, j).Status
	eq(t, "counters", fmt.Sprint(st.Active, st.Succeeded, st.Failed), "0 2 1")
	eq(t, "completedIndexes", st.CompletedIndexes, "0,1")
	eq(t, "failedIndexes", fmt.Sprintf("%v %q", st.FailedIndexes != nil, ptr.Deref(st.FailedIndexes, "")), `true ""`)
	eq(t, "backoffLimit defaulted", ptr.Deref(get(t, c, j).Spec.BackoffLimit, 0), int32(math.MaxInt32))
	var counts []string
	for _, p := range pods(t, c) {
		indexOf(t, "idx", &p)
		counts = append(counts, fmt.Sprintf("%s:%s", p.Status.Phase, p.Annotations[batchv1.JobIndexFailureCountAnnotation]))
		if len(p.Finalizers) != 0 {
			t.Errorf("pod %s keeps finalizers %v", p.Name, p.Finalizers)
		}
	}
	slices.Sort(counts)
	eq(t, "pods by phase:failure count", fmt.Sprint(counts), "[Failed:0 Succeeded:0 Succeeded:1]")
}

// backoffLimitPerIndex 0, every pod exits 1: each index fails at its first
// failure; with every index failed the Job fails with FailedIndexes, and with
// maxFailedIndexes 0 already at the first, MaxFailedIndexesExceeded.
func TestIndexedJobFailedIndexes(t *testing.T) {
	for _, tc := range []struct {
		name       string
		maxFailed  *int32
		conditions []string
	}{
		{"all indexes", nil, []string{
			"FailureTarget=True/FailedIndexes: Job has failed indexes",
			"Failed=True/FailedIndexes: Job has failed indexes"}},
		{"maxFailedIndexes 0", ptr.To[int32](0), []string{
			"FailureTarget=True/MaxFailedIndexesExceeded: Job has exceeded the specified maximal number of failed indexes",
			"Failed=True/MaxFailedIndexesExceeded: Job has exceeded the specified maximal number of failed indexes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := world(t, "seed 25\n")
			j := indexedJob("idx", 2, 1, 6, map[string]string{kube.AnnotationRun: "2s", kube.AnnotationExitCode: "1"})
			j.Spec.BackoffLimit, j.Spec.BackoffLimitPerIndex, j.Spec.MaxFailedIndexes = nil, ptr.To[int32](0), tc.maxFailed
			if err := c.Admin().Create(ctx, j); err != nil {
				t.Fatal(err)
			}
			c.RunFor(time.Minute)
			st := get(t, c, j).Status
			eq(t, "conditions", fmt.Sprint(jobConds(st.Conditions)), fmt.Sprint(tc.conditions))
			wantFailed := "0,1"
			if tc.maxFailed != nil {
				wantFailed = "0" // parallelism 1: index 1 never started
			}
			eq(t, "failedIndexes", ptr.Deref(st.FailedIndexes, "<nil>"), wantFailed)
			eq(t, "completedIndexes", st.CompletedIndexes, "")
		})
	}
}
