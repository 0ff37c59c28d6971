package reference_test

import (
	"context"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// records writes each item (every ConfigMap but the ledger) into the ledger
// ConfigMap team/ledger; an item deleted before it looked is never recorded,
// and a recorded one stays.
func records(ctx context.Context, c client.Client, item *corev1.ConfigMap) error {
	if item.Name == "ledger" {
		return nil
	}
	var ledger corev1.ConfigMap
	if err := c.Get(ctx, client.ObjectKey{Namespace: item.Namespace, Name: "ledger"}, &ledger); err != nil {
		return err
	}
	if ledger.Data[item.Name] == item.Data["amount"] {
		return nil
	}
	if ledger.Data == nil {
		ledger.Data = map[string]string{}
	}
	ledger.Data[item.Name] = item.Data["amount"]
	return c.Update(ctx, &ledger)
}

// An operator a fault delays past some of the workload's steps, not all,
// ends as the fault-free run whose operator starts after those steps: the
// item the user deleted at 2 s, while the operator was down (crashed at
// 1 ms, restarted 10 s later), is not in its ledger; the one deleted at
// 30 s, after, is. Neither the fault-free
// run (both recorded) nor the one whose operator starts after the last step
// (neither) ends so; the one starting after the step at 2 s does.
func TestAnOperatorDelayedPastSomeOfTheWorkloadEndsAsTheRunStartingAfterThem(t *testing.T) {
	o := optest.AppOptions(records)
	item := func(name, amount string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: name}, Data: map[string]string{"amount": amount}}
	}
	o.Objects = []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "ledger"}}, item("apples", "3"), item("pears", "5"), item("plums", "7")}
	all := optest.JudgeAll(t, o, "seed 1\nat 2s delete object=1\nat 30s delete object=2\ncrash process=op at=1ms\n")
	v := all[world.Converges]
	if !v.Holds {
		t.Fatalf("converges: %s", v.Detail)
	}
	optest.Excused(t, v, verdict.LateStart)
	for name, v := range all {
		if !v.Holds {
			t.Errorf("%s violated: %s", name, v.Detail)
		}
	}
}
