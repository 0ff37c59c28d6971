package execop_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"reflect"
	"testing"

	"github.com/ctrlsim/ctrlsim/examples/execop"
	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestOneReplicaNoEventAndNoCondition(t *testing.T) {
	if _, ok := reflect.TypeOf(execop.AppStatus{}).FieldByName("Conditions"); ok {
		t.Fatal("an App's status has conditions")
	}
	o := options(false)
	if o.Managers[0].Replicas > 1 {
		t.Fatalf("the operator runs %d replicas", o.Managers[0].Replicas)
	}
	r := faultfree.Replay(t, o)
	faultfree.NoWrite(t, r, "execop", "Event ")
}
