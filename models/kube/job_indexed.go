package kube

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Indexed Jobs (k8s.io/kubernetes@v1.37.2 pkg/controller/job/indexed_job_utils.go).

const (
	// completionIndexEnvName is the variable every container of an Indexed
	// Job's pod gets, from the completion index label.
	completionIndexEnvName = "JOB_COMPLETION_INDEX"
	unknownCompletionIndex = -1
	// maxGeneratedNameLength is names.MaxGeneratedNameLength (k8s.io/apiserver).
	maxGeneratedNameLength = 63 - 5
)

func isIndexedJob(j *batchv1.Job) bool {
	return j.Spec.CompletionMode != nil && *j.Spec.CompletionMode == batchv1.IndexedCompletion
}

// interval is a closed range of completion indexes.
type interval struct{ first, last int }

// orderedIntervals are disjoint intervals in increasing order, the form of
// status.completedIndexes ("1,3-5,7").
type orderedIntervals []interval

// withOrderedIndexes merges sorted indexes in.
func (oi orderedIntervals) withOrderedIndexes(ixs []int) orderedIntervals {
	n := make(orderedIntervals, len(ixs))
	for i, x := range ixs {
		n[i] = interval{x, x}
	}
	return oi.merge(n)
}

func (oi orderedIntervals) merge(other orderedIntervals) orderedIntervals {
	var out orderedIntervals
	var last *interval
	add := func(iv interval) {
		if last == nil || iv.first > last.last+1 {
			out = append(out, iv)
			last = &out[len(out)-1]
		} else if last.last < iv.last {
			last.last = iv.last
		}
	}
	i, j := 0, 0
	for i < len(oi) && j < len(other) {
		if oi[i].first < other[j].first {
			add(oi[i])
			i++
		} else {
			add(other[j])
			j++
		}
	}
	for ; i < len(oi); i++ {
		add(oi[i])
	}
	for ; j < len(other); j++ {
		add(other[j])
	}
	return out
}

func (oi orderedIntervals) total() int {
	n := 0
	for _, iv := range oi {
		n += iv.last - iv.first + 1
	}
	return n
}

// String is the status form: two adjacent indexes are listed, three or more
// are a range.
func (oi orderedIntervals) String() string {
	var b strings.Builder
	for _, v := range oi {
		if b.Len() > 0 {
			b.WriteRune(',')
		}
		b.WriteString(strconv.Itoa(v.first))
		if v.last > v.first {
			if v.last == v.first+1 {
				b.WriteRune(',')
			} else {
				b.WriteRune('-')
			}
			b.WriteString(strconv.Itoa(v.last))
		}
	}
	return b.String()
}

func (oi orderedIntervals) has(ix int) bool {
	lo, hi := 0, len(oi)
	for hi > lo {
		mid := lo + (hi-lo)/2
		if oi[mid].last >= ix {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return hi < len(oi) && oi[hi].first <= ix
}

// parseIndexes is parseIndexesFromString: corrupt intervals are skipped,
// indexes from completions on dropped.
func parseIndexes(s string, completions int) orderedIntervals {
	if s == "" {
		return nil
	}
	var out orderedIntervals
	var last *interval
	for _, part := range strings.Split(s, ",") {
		limits := strings.Split(part, "-")
		var iv interval
		var err error
		if iv.first, err = strconv.Atoi(limits[0]); err != nil {
			continue
		}
		if iv.first >= completions {
			break
		}
		if len(limits) > 1 {
			if iv.last, err = strconv.Atoi(limits[1]); err != nil {
				continue
			}
			if iv.last >= completions {
				iv.last = completions - 1
			}
		} else {
			iv.last = iv.first
		}
		if last != nil && last.last == iv.first-1 {
			last.last = iv.last
		} else {
			out = append(out, iv)
			last = &out[len(out)-1]
		}
	}
	return out
}

// completionIndex is getCompletionIndex: the pod's completion index
// annotation, or unknownCompletionIndex.
func completionIndex(annotations map[string]string) int {
	v, ok := annotations[batchv1.JobCompletionIndexAnnotation]
	if !ok {
		return unknownCompletionIndex
	}
	i, err := strconv.Atoi(v)
	if err != nil || i < 0 {
		return unknownCompletionIndex
	}
	return i
}

// succeededIndexes is calculateSucceededIndexes: the indexes of the status,
// and those with the indexes of succeeded pods that still have the tracking
// finalizer.
func succeededIndexes(job *batchv1.Job, pods []*corev1.Pod) (prev, all orderedIntervals) {
	completions := int(*job.Spec.Completions)
	prev = parseIndexes(job.Status.CompletedIndexes, completions)
	seen := map[int]bool{}
	var add []int
	for _, p := range pods {
		ix := completionIndex(p.Annotations)
		if p.Status.Phase == corev1.PodSucceeded && ix != unknownCompletionIndex && ix < completions && hasTrackingFinalizer(p) && !seen[ix] {
			seen[ix] = true
			add = append(add, ix)
		}
	}
	sort.Ints(add)
	return prev, prev.withOrderedIndexes(add)
}

func indexesOf(pods []*corev1.Pod) map[int]bool {
	out := map[int]bool{}
	for _, p := range pods {
		if ix := completionIndex(p.Annotations); ix != unknownCompletionIndex {
			out[ix] = true
		}
	}
	return out
}

func sortedIndexes(set map[int]bool) []int {
	out := make([]int, 0, len(set))
	for ix := range set { // lint:order-independent sorted below
		out = append(out, ix)
	}
	sort.Ints(out)
	return out
}

// firstPendingIndexes is upstream's: the count lowest indexes below
// completions that are neither succeeded nor active (nor terminating, under
// podReplacementPolicy Failed).
func firstPendingIndexes(s *jobSync, count, completions int) []int {
	if count == 0 {
		return nil
	}
	nonPending := s.succeededIndexes.withOrderedIndexes(sortedIndexes(indexesOf(s.activePods)))
	if s.job.Spec.PodReplacementPolicy != nil && *s.job.Spec.PodReplacementPolicy == batchv1.Failed {
		var terminating []*corev1.Pod
		for _, p := range s.pods {
			if isPodTerminating(p) {
				terminating = append(terminating, p)
			}
		}
		nonPending = nonPending.withOrderedIndexes(sortedIndexes(indexesOf(terminating)))
	}
	if s.failedIndexes != nil {
		nonPending = nonPending.merge(*s.failedIndexes)
	}
	var out []int
	candidate := 0
	for _, iv := range nonPending {
		for ; candidate < completions && len(out) < count && candidate < iv.first; candidate++ {
			out = append(out, candidate)
		}
		if candidate < iv.last+1 {
			candidate = iv.last + 1
		}
	}
	for ; candidate < completions && len(out) < count; candidate++ {
		out = append(out, candidate)
	}
	return out
}

// sortByCompletionIndex is sort.Sort(byCompletionIndex(pods)), stable.
func sortByCompletionIndex(pods []*corev1.Pod) {
	sort.SliceStable(pods, func(i, j int) bool {
		return completionIndex(pods[i].Annotations) < completionIndex(pods[j].Annotations)
	})
}

// activePodsForRemoval is upstream's: for an Indexed Job, the pods without a
// valid index, with an index from completions on, and all but the most
// advanced of the pods sharing an index (appendDuplicatedIndexPodsForRemoval);
// then, if fewer than rmAtLeast, the least advanced of the others.
func activePodsForRemoval(job *batchv1.Job, pods []*corev1.Pod, rmAtLeast int) []*corev1.Pod {
	var rm, left []*corev1.Pod
	if isIndexedJob(job) {
		sorted := append([]*corev1.Pod(nil), pods...)
		sortByCompletionIndex(sorted)
		completions := int(*job.Spec.Completions)
		for i := 0; i < len(sorted); {
			ix := completionIndex(sorted[i].Annotations)
			if ix >= completions {
				rm = append(rm, sorted[i:]...)
				break
			}
			j := i
			for j < len(sorted) && completionIndex(sorted[j].Annotations) == ix {
				j++
			}
			same := sorted[i:j]
			switch {
			case ix == unknownCompletionIndex:
				rm = append(rm, same...)
			case len(same) == 1:
				left = append(left, same[0])
			default:
				same = append([]*corev1.Pod(nil), same...)
				sortActivePods(same)
				rm = append(rm, same[:len(same)-1]...)
				left = append(left, same[len(same)-1])
			}
			i = j
		}
	} else {
		left = append(left, pods...)
	}
	if len(rm) < rmAtLeast {
		sortActivePods(left)
		rm = append(rm, left[:rmAtLeast-len(rm)]...)
	}
	return rm
}

// indexedPodTemplate is the template of the pod of index ix: the
// JOB_COMPLETION_INDEX variable in every container (addCompletionIndexEnvVariables),
// the completion index annotation and label, the hostname <job>-<ix>; and its
// generateName (podGenerateNameWithIndex).
func indexedPodTemplate(template *corev1.PodTemplateSpec, job *batchv1.Job, ix int) (*corev1.PodTemplateSpec, string) {
	t := template.DeepCopy()
	addEnv := func(c *corev1.Container) {
		for _, v := range c.Env {
			if v.Name == completionIndexEnvName {
				return
			}
		}
		c.Env = append(c.Env, corev1.EnvVar{Name: completionIndexEnvName, ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: fmt.Sprintf("metadata.labels['%s']", batchv1.JobCompletionIndexAnnotation)}}})
	}
	for i := range t.Spec.InitContainers {
		addEnv(&t.Spec.InitContainers[i])
	}
	for i := range t.Spec.Containers {
		addEnv(&t.Spec.Containers[i])
	}
	if t.Annotations == nil {
		t.Annotations = map[string]string{}
	}
	t.Annotations[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(ix)
	if t.Labels == nil {
		t.Labels = map[string]string{}
	}
	t.Labels[batchv1.JobCompletionIndexAnnotation] = strconv.Itoa(ix)
	t.Spec.Hostname = fmt.Sprintf("%s-%d", job.Name, ix)
	suffix := "-" + strconv.Itoa(ix) + "-"
	name := job.Name + suffix
	if len(name) > maxGeneratedNameLength {
		name = name[:maxGeneratedNameLength-len(suffix)] + suffix
	}
	return t, name
}

func hasBackoffLimitPerIndex(j *batchv1.Job) bool { return j.Spec.BackoffLimitPerIndex != nil }

// indexFailureCount is getIndexFailureCount: the pod's
// batch.kubernetes.io/job-index-failure-count annotation (0 if missing or
// invalid).
func indexFailureCount(p *corev1.Pod) int32 {
	return annotationCount(p, batchv1.JobIndexFailureCountAnnotation)
}

// indexAbsoluteFailureCount is getIndexAbsoluteFailureCount: with the failures
// a pod failure policy ignored.
func indexAbsoluteFailureCount(p *corev1.Pod) int32 {
	return indexFailureCount(p) + annotationCount(p, batchv1.JobIndexIgnoredFailureCountAnnotation)
}

func annotationCount(p *corev1.Pod, key string) int32 {
	v, err := strconv.Atoi(p.Annotations[key])
	if err != nil || v < 0 || v > math.MaxInt32 {
		return 0
	}
	return int32(v)
}

// failedIndexes is calculateFailedIndexes: the status's, and the indexes of
// failed pods (with the tracking finalizer) whose failure count has reached
// backoffLimitPerIndex (isIndexFailed, without a pod failure policy).
func failedIndexes(job *batchv1.Job, pods []*corev1.Pod) *orderedIntervals {
	completions := int(*job.Spec.Completions)
	var prev orderedIntervals
	if job.Status.FailedIndexes != nil {
		prev = parseIndexes(*job.Status.FailedIndexes, completions)
	}
	set := map[int]bool{}
	for _, p := range pods {
		ix := completionIndex(p.Annotations)
		if ix != unknownCompletionIndex && ix < completions && hasTrackingFinalizer(p) && isPodFailed(p, job) &&
			indexFailureCount(p) >= *job.Spec.BackoffLimitPerIndex {
			set[ix] = true
		}
	}
	out := prev.withOrderedIndexes(sortedIndexes(set))
	return &out
}

// podsWithDelayedDeletionPerIndex is getPodsWithDelayedDeletionPerIndex: for
// each index neither succeeded, failed nor active, its last failed pod (most
// failures, then latest finish) among the pods that keep the tracking
// finalizer.
func podsWithDelayedDeletionPerIndex(s *jobSync) map[int]*corev1.Pod {
	active := indexesOf(s.activePods)
	completions := int(*s.job.Spec.Completions)
	out := map[int]*corev1.Pod{}
	for _, p := range s.pods {
		ix := completionIndex(p.Annotations)
		if !hasTrackingFinalizer(p) || ix == unknownCompletionIndex || ix >= completions || !isPodFailed(p, s.job) {
			continue
		}
		if s.succeededIndexes.has(ix) || s.failedIndexes.has(ix) || active[ix] {
			continue
		}
		if last, ok := out[ix]; !ok || (indexAbsoluteFailureCount(last) <= indexAbsoluteFailureCount(p) && !finishedTime(p).Before(finishedTime(last))) {
			out[ix] = p
		}
	}
	return out
}

// indexesToCreateNow is getPodCreationInfoForIndependentIndexes: the indexes
// whose back-off (getRemainingTimePerIndex: 10s doubling per failure of the
// index, from its last failed pod's finish) is over; if none, the shortest
// wait.
func (jc *JobController) indexesToCreateNow(indexes []int, delayed map[int]*corev1.Pod) ([]int, time.Duration) {
	var now []int
	var wait time.Duration
	for _, ix := range indexes {
		d := time.Duration(0)
		if p := delayed[ix]; p != nil {
			t := finishedTime(p)
			d = jc.remainingBackoff(backoffRecord{failuresAfterLastSuccess: indexAbsoluteFailureCount(p) + 1, lastFailureTime: &t})
		}
		if d == 0 {
			now = append(now, ix)
		} else if wait == 0 || d < wait {
			wait = d
		}
	}
	if len(now) > 0 {
		return now, 0
	}
	return nil, wait
}
