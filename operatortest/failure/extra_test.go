package failure_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// secondThoughts makes its app's child Secret at its process's first
// reconcile of the app and, the bug, deletes it at the second: the
// fault-free run (the child's own creation wakes a second reconcile) ends
// without the child its app calls for. A crash right after the create
// brings up an incarnation that reconciles the app once and keeps it: the
// faulted run is the one that ends right, and the fault-free run made the
// delete it did not.
func secondThoughts() func(mgr manager.Manager) error {
	return func(mgr manager.Manager) error {
		seen := map[string]int{} // the process's memory: lost in a crash
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, optest.Apps).Owns(&corev1.Secret{}).
			Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
				seen[app.Name]++
				if seen[app.Name] == 2 {
					return client.IgnoreNotFound(c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}))
				}
				if seen[app.Name] > 2 {
					return nil
				}
				return optest.Child()(ctx, c, app)
			}})
	}
}

// When the extra write is the fault-free run's, the failure says so: the
// verdict names the fault-free run as the one that made the delete this
// run did not, the heading of the steps from the fault says that the write
// that differs is not among them, and what the fault-free run did (its
// delete, in which reconcile) is told under what this run never did.
func TestTheFailureNamesTheFaultFreeRunWhenItMadeTheExtraWrite(t *testing.T) {
	dir := t.TempDir()
	old := *failure.FlagArtifacts
	*failure.FlagArtifacts = dir
	t.Cleanup(func() { *failure.FlagArtifacts = old })
	o := optest.AppOptions(nil)
	o.Managers[0].Setup = secondThoughts()
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 1\ncrash process=op write=1\n")
	if err != nil {
		t.Fatal(err)
	}
	f, err := failure.OfPlan(w, t, p, filepath.Join(dir, "TestX.plan"))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil {
		t.Fatal("the run that kept the child violates nothing")
	}
	for _, want := range []string{
		"Secret team/app-child exists after this run, not after the fault-free run of the same workload (created 1 time, deleted 1 time there, created 1 time, deleted 0 times here: the extra delete is in the fault-free run of the same workload)",
		"\nfrom the fault to the violation (the write that differs is the fault-free run's: what it did is under what this run never did):\n",
		"what this run never did:\n  Secret team/app-child: the fault-free run of the same workload deleted it at ",
	} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.Text)
		}
	}
}

// The other way round, the extra writes are this run's: an operator that
// "starts clean" deletes its child at each start and makes it again, so a
// crash makes it delete and create once more than the fault-free run. The
// verdict names this run, and the steps are told from the fault to the
// violation.
func TestTheFailureTellsTheFaultWhenThisRunMadeTheExtraWrites(t *testing.T) {
	dir := t.TempDir()
	old := *failure.FlagArtifacts
	*failure.FlagArtifacts = dir
	t.Cleanup(func() { *failure.FlagArtifacts = old })
	o := optest.AppOptions(nil)
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		fresh := map[string]bool{} // the process's memory: lost in a crash
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, optest.Apps).Owns(&corev1.Secret{}).
			Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
				if !fresh[app.Name] {
					fresh[app.Name] = true // the bug: "start clean" on every process start
					if err := c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}); client.IgnoreNotFound(err) != nil {
						return err
					}
				}
				return optest.Child()(ctx, c, app)
			}})
	}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 1\ncrash process=op at=5s\n")
	if err != nil {
		t.Fatal(err)
	}
	f, err := failure.OfPlan(w, t, p, filepath.Join(dir, "TestX.plan"))
	if err != nil || f == nil {
		t.Fatalf("the restart that started clean: failure %v, error %v", f, err)
	}
	for _, want := range []string{"the extra writes (1 create, 1 delete) are in this run", "\nfrom the fault to the violation:\n"} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.Text)
		}
	}
}
