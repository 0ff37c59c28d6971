package verdict_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// recordingOptions: the app's operator keeps its child Secret and, at every
// start of its process, writes a record of the start (a Secret labelled
// record=start, numbered), as Helm writes a revision per operation: a crash
// makes one record more. With restartWipes, it also deletes its child at
// every start (the churn update-summaries catches).
func recordingOptions(restartWipes bool) world.Options {
	o := optest.AppOptions(nil)
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		started := false // the process's memory: lost in a crash
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, optest.Apps).Owns(&corev1.Secret{}).
			Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
				if !started {
					started = true
					var records corev1.SecretList
					if err := c.List(ctx, &records, client.InNamespace(app.Namespace), client.MatchingLabels{"record": "start"}); err != nil {
						return err
					}
					rec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-start-" + string(rune('a'+len(records.Items))),
						Labels: map[string]string{"record": "start"}}}
					if err := c.Create(ctx, rec); client.IgnoreAlreadyExists(err) != nil {
						return err
					}
					if restartWipes {
						if err := c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}); client.IgnoreNotFound(err) != nil {
							return err
						}
					}
				}
				return optest.Child()(ctx, c, app)
			}})
	}
	o.History = []world.HistoryObjects{{Kind: "Secret", Labels: map[string]string{"record": "start"}}}
	return o
}

// Objects declared History (a record per operation, as Helm's release
// revisions) are left out of the comparing oracles: a crash that makes one
// record more is not a different end state.
func TestHistoryObjectsAreLeftOutOfTheComparingOracles(t *testing.T) {
	const crash = "seed 1\ncrash process=op at=5s\n"
	if got := optest.Judge(t, recordingOptions(false), crash); len(got) != 0 {
		t.Fatalf("violated %v, want none: the records are history", got)
	}
	undeclared := recordingOptions(false)
	undeclared.History = nil
	if got := optest.Judge(t, undeclared, crash); !strings.Contains(got[world.Converges], "app-start-b") {
		t.Fatalf("without History: violated %v, want converges naming the second record", got)
	}
}

// ... and only they: the same operator wiping its child at every start is
// still caught by update-summaries.
func TestHistoryObjectsHideNoOtherChurn(t *testing.T) {
	got := optest.Judge(t, recordingOptions(true), "seed 1\ncrash process=op at=5s\n")
	if !strings.Contains(got[world.UpdateSummaries], "Secret team/app-child was created 1 time, deleted 0 times in the fault-free run of the same workload, created 2 times, deleted 1 time in this run") {
		t.Fatalf("violated %v, want update-summaries naming the child's churn", got)
	}
}

// A History kind the world does not know is refused with one line.
func TestHistoryOfAnUnknownKindIsRefused(t *testing.T) {
	o := recordingOptions(false)
	o.History = []world.HistoryObjects{{Kind: "Scret"}}
	if _, err := search.NewWorld(o.WithDefaults()); err == nil || !strings.Contains(err.Error(), `Options.History[0]: kind "Scret"`) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("error %v, want one line naming Options.History[0]", err)
	}
}
