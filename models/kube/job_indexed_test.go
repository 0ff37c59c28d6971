package kube

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// The completed indexes' text form and its parsing, as indexed_job_utils.go's
// orderedIntervals (cases from its indexed_job_utils_test.go).
func TestCompletedIndexes(t *testing.T) {
	for _, tc := range []struct {
		prev        string
		completions int
		add         []int
		want        string
	}{
		{"", 5, nil, ""},
		{"", 5, []int{0, 1}, "0,1"},
		{"", 5, []int{0, 1, 2}, "0-2"},
		{"1,3-5,7", 10, nil, "1,3-5,7"},
		{"1,3-5,7", 6, nil, "1,3-5"},     // indexes from completions on are dropped
		{"0-2,x,4", 10, []int{3}, "0-4"}, // a corrupt interval is skipped
		{"1,3-5,7", 10, []int{0, 2, 6, 8}, "0-8"},
		{"5-7", 10, []int{1, 9}, "1,5-7,9"},
	} {
		got := parseIndexes(tc.prev, tc.completions).withOrderedIndexes(tc.add)
		if got.String() != tc.want {
			t.Errorf("%q (completions %d) with %v = %q, want %q", tc.prev, tc.completions, tc.add, got.String(), tc.want)
		}
	}
	oi := parseIndexes("1,3-5,7", 10)
	for ix, want := range map[int]bool{0: false, 1: true, 2: false, 3: true, 5: true, 6: false, 7: true, 8: false} {
		if oi.has(ix) != want {
			t.Errorf("has(%d) = %v, want %v", ix, !want, want)
		}
	}
	if oi.total() != 5 {
		t.Errorf("total = %d, want 5", oi.total())
	}
}

// activePodsForRemoval of an Indexed Job removes pods without an index, with
// an index from completions on, and all but the most advanced pod of an index.
func TestIndexedActivePodsForRemoval(t *testing.T) {
	job := &batchv1.Job{Spec: batchv1.JobSpec{Completions: ptr.To[int32](3), CompletionMode: ptr.To(batchv1.IndexedCompletion)}}
	pod := func(name, ix string, phase corev1.PodPhase) *corev1.Pod {
		p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.PodStatus{Phase: phase}}
		if ix != "" {
			p.Annotations = map[string]string{batchv1.JobCompletionIndexAnnotation: ix}
		}
		return p
	}
	pods := []*corev1.Pod{
		pod("a", "0", corev1.PodRunning), pod("b", "0", corev1.PodPending), pod("c", "1", corev1.PodRunning),
		pod("d", "", corev1.PodRunning), pod("e", "3", corev1.PodRunning), pod("f", "x", corev1.PodRunning),
	}
	var got []string
	for _, p := range activePodsForRemoval(job, pods, 0) {
		got = append(got, p.Name)
	}
	want := map[string]bool{"b": true, "d": true, "e": true, "f": true}
	if len(got) != len(want) {
		t.Fatalf("removed %v, want %v", got, want)
	}
	for _, n := range got {
		if !want[n] {
			t.Errorf("removed %v, want %v", got, want)
		}
	}
}
