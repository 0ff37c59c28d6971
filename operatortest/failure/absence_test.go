package failure_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// tenants gives each tenant (a ConfigMap in namespace tenants) a Namespace
// tenant-<name> and, in it, a RoleBinding admin; it takes the Namespace for
// proof that both were made, so a crash between the two creates leaves the
// RoleBinding never made: an absence the failure must show.
type tenants struct{ client.Client }

func (r *tenants) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var t corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &t); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	ns := "tenant-" + t.Name
	if err := r.Get(ctx, client.ObjectKey{Name: ns}, &corev1.Namespace{}); err == nil {
		return reconcile.Result{}, nil // the bug: the Namespace stands for its RoleBinding too
	}
	if err := r.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
		return reconcile.Result{}, err
	}
	rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "admin"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "admin"},
		Subjects: []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: t.Name + "-admin"}}}
	if err := r.Create(ctx, rb); err != nil && !apierrors.IsAlreadyExists(err) {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, nil
}

func tenantOptions() world.Options {
	return world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, optest.Apps).Complete(&tenants{Client: mgr.GetClient()})
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "tenants", Name: "team-a"}}},
	}
}

// A crash between two creates is told by what did not happen: the fault-free
// run created the RoleBinding, and this run's last reconcile of the tenant,
// after the restart, read the Namespace and wrote nothing. The failure says
// so in words (which write, when and in which reconcile; the last reconcile
// that could have made it and what it did instead), and the picture draws a
// lane for the RoleBinding this run never had.
func TestACrashBetweenTwoCreatesNamesTheWriteThatNeverHappened(t *testing.T) {
	dir := t.TempDir()
	old := *failure.FlagArtifacts
	*failure.FlagArtifacts = dir
	t.Cleanup(func() { *failure.FlagArtifacts = old })
	w, err := search.NewWorld(tenantOptions().WithDefaults())
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
		t.Fatal("the crash between the two creates violates nothing")
	}
	_, said, ok := strings.Cut(f.Text, "\nwhat this run never did:\n")
	said, _, _ = strings.Cut(said, "\n\n")
	for _, want := range []string{
		"RoleBinding tenant-team-a/admin: the fault-free run of the same workload created it at ",
		"(op/configmap r1, reconciling tenants/team-a); this run never did: its last reconcile of tenants/team-a (op/configmap r1 at ",
		", after the restart at ", ") read ConfigMap tenants/team-a and Namespace tenant-team-a, wrote nothing, and returned ok",
	} {
		if !ok || !strings.Contains(said, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.Text)
		}
	}
	svg, err := os.ReadFile(f.Files.SVG)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{">RoleBinding tenant-team-a/admin<", ">never created in this run<", "the fault-free run created it here", "never creates RoleBinding tenant-team-a/admin"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("the picture lacks %q", want)
		}
	}
	md, err := os.ReadFile(f.Files.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## What this run never did\n\n- RoleBinding tenant-team-a/admin: ") {
		t.Errorf("the markdown report does not say what never happened:\n%s", md)
	}
}

// The same crash in the fixture's operator (examples/twowrites' bug in
// small): the second Secret is named.
func TestTheMissingSecretIsNamed(t *testing.T) {
	f := optest.FailingRun(t, t.TempDir())
	if !strings.Contains(f.Text, "what this run never did:\n  Secret team/app-credentials: the fault-free run of the same workload created it at ") {
		t.Errorf("the failure does not name the missing Secret:\n%s", f.Text)
	}
}

// The picture labels a plan step as the printed plan says it, the seed
// object by kind and name (object=ConfigMap/team/app), not by its index.
func TestThePictureNamesAPlanStepsObjectAsThePlanDoes(t *testing.T) {
	p, err := plan.Parse("seed 1\nat 1s delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	rep := &failure.Report{Test: "TestX", P: p, Names: []string{"ConfigMap/team/app"}, R: &world.RunResult{Steps: []trace.Step{
		{Process: "op", Op: "start", Result: "incarnation 1"},
		{At: time.Second, Op: "action", Object: "delete", Result: "ok"},
	}}}
	var labels []string
	for _, l := range rep.Story().Lanes {
		for _, m := range l.Marks {
			labels = append(labels, m.Label)
		}
	}
	if !slices.Contains(labels, "delete object=ConfigMap/team/app") {
		t.Errorf("the plan step is labelled %q, want %q", labels, "delete object=ConfigMap/team/app")
	}
}
