package story_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/story"
)

// A deletion completes: of two runs that end apart on an object (one with no
// owner), the run that ends with it still being deleted shows the bug, not
// the run that deleted it, whichever side it is on; a run that never deleted
// it is not told apart by this rule.
func TestTheRunWhoseDeletionNeverCompletedShowsTheBug(t *testing.T) {
	ms := time.Millisecond
	made := obj(watch.Added, cmKind, "x", 5, 0, "c1", "")
	deleting := obj(watch.Modified, cmKind, "x", 6, ms, "c1", "")
	now := metav1.NewTime(deleting.At)
	deleting.Object.SetDeletionTimestamp(&now)
	deleting.Object.SetFinalizers([]string{"example.com/cleanup"})
	gone := obj(watch.Deleted, cmKind, "x", 7, 2*ms, "c1", "")
	stuck := []apiserver.Event{made, deleting}
	done := []apiserver.Event{made, deleting, gone}
	for _, c := range []struct {
		runs [2]story.RunEnd
		want int
	}{
		{[2]story.RunEnd{{Name: "the fault-free run with seed 0", Log: stuck}, {Name: "the fault-free run with seed 2048", Log: done}}, 0},
		{[2]story.RunEnd{{Name: "the fault-free run with seed 2048", Log: done}, {Name: "the fault-free run with seed 0", Log: stuck}}, 1},
	} {
		got, why := story.ShowsTheBug("ConfigMap default/x", c.runs)
		if got != c.want || !strings.Contains(why, "the fault-free run with seed 0 ends with ConfigMap default/x still being deleted, which the fault-free run with seed 2048 deleted") {
			t.Errorf("a deletion that never completed: run %d (%s), want %d", got, why, c.want)
		}
	}
	if got, why := story.ShowsTheBug("ConfigMap default/x", [2]story.RunEnd{{Name: "a", Log: []apiserver.Event{made}}, {Name: "b", Log: done}}); got != -1 {
		t.Errorf("a run that never deleted the object, against one that did: run %d (%s), want -1", got, why)
	}
}
