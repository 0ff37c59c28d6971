package rootcause_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/rootcause"
)

// Two bugs that first go wrong in one reconcile's write of the same fields
// are one root cause, whichever object they wrote: the rule compares where
// a reconcile departs, not why.
func TestTwoDeparturesInTheSameFieldsOfOneReconcileAreOneRootCause(t *testing.T) {
	a := &rootcause.Write{Process: "op", Reconcile: "cluster db/main", Object: "ConfigMap db/main-config", Fields: []string{"status.primary"}}
	b := &rootcause.Write{Process: "op", Reconcile: "cluster db/main", Object: "Secret db/main-auth", Fields: []string{"status.primary"}}
	if !a.Same(b) {
		t.Errorf("two departures of one reconcile in the same fields are two root causes: the gap is closed")
	}
	c := *b
	c.Fields = []string{"data.password"}
	if a.Same(&c) {
		t.Errorf("two departures of one reconcile in other fields are one root cause")
	}
}
