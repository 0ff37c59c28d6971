package ryw_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestNoEventNoStatusAndNoSecretIsDeleted(t *testing.T) {
	r := faultfree.Replay(t, options(true))
	faultfree.NoWrite(t, r, "ryw", "Event ", "/status", "delete")
}
