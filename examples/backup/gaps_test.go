package backup_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/backup"
	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestTheOperatorKeepsEveryJobAndHasNoFinalizer(t *testing.T) {
	r := faultfree.Replay(t, options(false))
	faultfree.NoWrite(t, r, "backup", "Event ")
	var b backup.Backup
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: "db"}, &b); err != nil {
		t.Fatal(err)
	}
	var jobs batchv1.JobList
	if err := r.Final.List(&jobs, client.InNamespace("shop")); err != nil {
		t.Fatal(err)
	}
	if len(b.Finalizers) != 0 || b.Status.LastSlot < 2 || int64(len(jobs.Items)) != b.Status.LastSlot {
		t.Errorf("finalizers %v, last slot %d, %d Jobs: want none, two slots at least, and one Job kept for each", b.Finalizers, b.Status.LastSlot, len(jobs.Items))
	}
}
