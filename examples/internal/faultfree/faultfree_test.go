package faultfree_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestAFinalizerIsAnUpdateLikeAnyOther(t *testing.T) {
	for op, want := range map[string]bool{"create": true, "update": true, "update/status": true, "patch/status": true,
		"delete": true, "cached-get": false, "list": false, "reconcile": false} {
		if got := faultfree.IsWrite(op); got != want {
			t.Errorf("IsWrite(%q) = %v, want %v", op, got, want)
		}
	}
	// A finalizer's write is an update of the object, as every other field's:
	// NoWrite's markers see the operation and the object only.
	if !faultfree.IsWrite("update") {
		t.Fatal("an update is no write")
	}
}
