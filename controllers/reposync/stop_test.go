package reposync

import "testing"

// Stop's handshake: an apply under way holds the Finalizer off; once
// stopped, no apply begins or goes on.
func TestStopHoldsTheFinalizerOffWhileAnApplyIsUnderWay(t *testing.T) {
	s := &Stop{}
	if !s.begin() {
		t.Fatal("a fresh Stop refuses an apply")
	}
	if s.stop() {
		t.Fatal("stop reports the Syncer stopped while its apply is under way")
	}
	if s.applying() {
		t.Fatal("the apply goes on after the stop")
	}
	s.end()
	if !s.stop() || s.begin() {
		t.Fatal("after the apply ended: want stopped, and no apply to begin")
	}
}
