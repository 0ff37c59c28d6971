package ledger_test

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/examples/ledger"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

func TestADeletedItemsEntryStaysInTheLedger(t *testing.T) {
	o := options(false)
	o.Workload.Script = []operatortest.Step{operatortest.Delete(40*time.Second, item("apples", "3"))}
	r := faultfree.Replay(t, o)
	var l corev1.ConfigMap
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: ledger.LedgerName}, &l); err != nil {
		t.Fatal(err)
	}
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: "apples"}, &corev1.ConfigMap{}); err == nil {
		t.Fatal("the item apples was not deleted")
	}
	if l.Data["apples"] != "3" || len(l.Finalizers) != 0 {
		t.Errorf("the ledger %v, finalizers %v: want the deleted item's entry kept, no finalizer", l.Data, l.Finalizers)
	}
	faultfree.NoWrite(t, r, "ledger", "delete")
}

// retry.DefaultRetry, the back-off of the ledger's retried writes, jitters
// each step with the global math/rand, which no plan seeds: three copies of
// it, stepped once, do not all wait the same time.
func TestTheRetrysBackOffIsJitteredOutsideThePlan(t *testing.T) {
	var waits []time.Duration
	for range 3 {
		b := retry.DefaultRetry
		waits = append(waits, b.Step())
	}
	if retry.DefaultRetry.Jitter == 0 || waits[0] == waits[1] && waits[1] == waits[2] {
		t.Errorf("retry.DefaultRetry (jitter %v) waited %v: no longer drawn", retry.DefaultRetry.Jitter, waits)
	}
}
