package reference_test

import (
	"context"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The reference run's writes are the stale restarts' targets: every change
// the apiserver committed in the fault phase to a kind the world collects,
// with its resourceVersion and kind, in commit order, deletions included.
func TestTheReferenceRunsCommittedChangesAreStaleTargets(t *testing.T) {
	createThenDelete := func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		if err := optest.Child()(ctx, c, app); err != nil {
			return err
		}
		return client.IgnoreNotFound(c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}))
	}
	w, err := search.NewWorld(optest.AppOptions(createThenDelete).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	_, res, err := reference.RunOnce(w, t, &plan.Plan{Seed: 1}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	tg := reference.TargetsOf(w, res)
	var secrets []plan.Write
	for _, x := range tg.Writes {
		if x.Kind == "/v1/Secret" {
			secrets = append(secrets, x)
		}
	}
	if len(secrets) < 2 {
		t.Fatalf("the Secret's create and delete are not both targets: %+v", tg.Writes)
	}
	// Each is a change of the watch log, at its resourceVersion.
	for _, x := range secrets {
		found := false
		for _, ev := range res.Log {
			found = found || (ev.ResourceVersion == x.RV && ev.GVK.Kind == "Secret" && ev.At.Sub(res.Start) == x.At)
		}
		if !found {
			t.Errorf("target %+v is no change of the watch log", x)
		}
	}
	for i := 1; i < len(tg.Writes); i++ {
		if tg.Writes[i].RV <= tg.Writes[i-1].RV {
			t.Errorf("the writes are not in commit order: %+v then %+v", tg.Writes[i-1], tg.Writes[i])
		}
	}
}
