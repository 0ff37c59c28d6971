package ledger_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/ledger"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

func item(name, amount string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, Labels: map[string]string{ledger.ItemLabel: "yes"}},
		Data:       map[string]string{"amount": amount},
	}
}

func items() []client.Object {
	return []client.Object{item("apples", "3"), item("pears", "5"), item("plums", "7")}
}

// everyItemRecorded: at rest, the ledger records every item with its amount
// (every item the user has not deleted: the ledger may or may not have
// recorded one deleted before the operator saw it).
var everyItemRecorded = operatortest.Property{Name: "every-item-recorded", Check: func(h *operatortest.History) error {
	var l corev1.ConfigMap
	if err := h.Get(client.ObjectKey{Namespace: "shop", Name: ledger.LedgerName}, &l); err != nil {
		return fmt.Errorf("the ledger: %w", err)
	}
	for _, o := range items() {
		it := o.(*corev1.ConfigMap)
		if err := h.Get(client.ObjectKeyFromObject(it), &corev1.ConfigMap{}); apierrors.IsNotFound(err) {
			continue
		}
		if got := l.Data[it.Name]; got != it.Data["amount"] {
			return fmt.Errorf("the ledger records %s as %q, want %q", it.Name, got, it.Data["amount"])
		}
	}
	return nil
}}

func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []operatortest.Manager{{Name: "ledger", Setup: func(mgr manager.Manager) error {
			r := &ledger.Reconciler{Client: mgr.GetClient(), Log: ctrl.Log.WithName("controllers").WithName("ledger"), Buggy: buggy}
			return r.SetupWithManager(mgr, "shop")
		}}},
		Objects:    items(),
		Properties: []operatortest.Property{everyItemRecorded},
		Checks:     30,
	}
}

// The operator holds: its bootstrap Runnable sleeps 5 s and makes the
// ledger, each reconcile polls for it (a second apart, in virtual time) and
// records its item with retry.RetryOnConflict, whose back-off after the
// other worker's conflicting update also takes virtual time.
func TestTheLedgerRecordsEveryItem(t *testing.T) {
	operatortest.Run(t, options(false))
}

// Retrying with the object read before the retries sends the same stale
// ledger every time: the conflict with the other worker's update comes back
// each try, the item is dropped after the last, and the property fails.
func TestRetryingAStaleObjectIsCaught(t *testing.T) {
	o := options(true)
	o.Checks, o.Seed = 100, 1
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught {
		t.Fatalf("nothing found in %d plans", res.Checks)
	}
	t.Logf("found at plan %d: %v\n%s", res.Checks, res.Violations, res.Minimal)
	caught := false
	for _, v := range res.Violations {
		caught = caught || v.Property == "every-item-recorded"
	}
	if !caught {
		t.Errorf("violations %v, want every-item-recorded among them", res.Violations)
	}
}
