package kube

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The deletion conditions follow status_condition_utils.go: all five types are
// always written, a failure replaces the "ok" reason and message, and the
// transition time moves only when the status flips.
func TestConditionUpdater(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(8 * time.Second))
	ns := &corev1.Namespace{}

	u := conditionUpdater{now: t0}
	u.processDeleteContentErr(errors.New("b failed"))
	u.processDeleteContentErr(errors.New("a failed"))
	u.processContentTotals(contentTotals{
		remaining:  map[schema.GroupVersionResource]int{{Version: "v1", Resource: "configmaps"}: 2},
		finalizers: map[string]int{"example.com/hold": 2},
	})
	if !u.update(ns) {
		t.Fatal("the first update must change the status")
	}
	if len(ns.Status.Conditions) != 5 {
		t.Fatalf("want the five deletion conditions, got %+v", ns.Status.Conditions)
	}
	want := map[corev1.NamespaceConditionType]string{
		corev1.NamespaceDeletionDiscoveryFailure: "All resources successfully discovered",
		corev1.NamespaceDeletionGVParsingFailure: "All legacy kube types successfully parsed",
		corev1.NamespaceDeletionContentFailure:   "Failed to delete all resource types, 2 remaining: a failed, b failed",
		corev1.NamespaceContentRemaining:         "Some resources are remaining: configmaps. has 2 resource instances",
		corev1.NamespaceFinalizersRemaining:      "Some content in the namespace has finalizers remaining: example.com/hold in 2 resource instances",
	}
	for _, c := range ns.Status.Conditions {
		if c.Message != want[c.Type] {
			t.Errorf("%s: message %q, want %q", c.Type, c.Message, want[c.Type])
		}
	}

	// Same failures later: no change.
	again := conditionUpdater{now: t1}
	again.processDeleteContentErr(errors.New("a failed"))
	again.processDeleteContentErr(errors.New("b failed"))
	again.processContentTotals(contentTotals{
		remaining:  map[schema.GroupVersionResource]int{{Version: "v1", Resource: "configmaps"}: 2},
		finalizers: map[string]int{"example.com/hold": 2},
	})
	if again.update(ns) {
		t.Error("identical conditions must not count as a change")
	}

	// All clear: the failures flip to False with a new transition time.
	clear := conditionUpdater{now: t1}
	if !clear.update(ns) {
		t.Fatal("clearing the failures must change the status")
	}
	for _, c := range ns.Status.Conditions {
		if c.Status != corev1.ConditionFalse || c.Reason != okReasons[c.Type] {
			t.Errorf("%s: %s/%s, want False/%s", c.Type, c.Status, c.Reason, okReasons[c.Type])
		}
		flipped := c.Type != corev1.NamespaceDeletionDiscoveryFailure && c.Type != corev1.NamespaceDeletionGVParsingFailure
		if flipped && !c.LastTransitionTime.Equal(&t1) || !flipped && !c.LastTransitionTime.Equal(&t0) {
			t.Errorf("%s: lastTransitionTime %v (flipped=%v)", c.Type, c.LastTransitionTime, flipped)
		}
	}
}
