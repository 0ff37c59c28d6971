package orphanchild_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"reflect"
	"testing"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/examples/orphanchild"
)

func TestTheOperatorWritesNoStatusAndNoEvent(t *testing.T) {
	if _, ok := reflect.TypeOf(orphanchild.Site{}).FieldByName("Status"); ok {
		t.Fatal("a Site has a Status")
	}
	r := faultfree.Replay(t, options(false))
	faultfree.NoWrite(t, r, "op", "Event ", "/status")
}
