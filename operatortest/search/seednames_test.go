package search_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// neverDeleted is violated by any plan that deletes the seed ConfigMap
// team/app: a property every failing plan names a seed object for.
var neverDeleted = world.Property{Name: "app-never-deleted", Check: func(h *world.History) error {
	for _, ev := range h.Run().Log {
		if ev.Type == watch.Deleted && ev.GVK.Kind == "ConfigMap" && ev.Object.GetNamespace() == "team" && ev.Object.GetName() == "app" {
			return fmt.Errorf("ConfigMap team/app deleted at resourceVersion %d", ev.ResourceVersion)
		}
	}
	return nil
}}

func namedOptions() world.Options {
	return world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).
				Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
		}}},
		Objects: []client.Object{
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "token"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}},
		},
		Properties: []world.Property{neverDeleted},
		Expect:     neverDeleted.Name,
		Checks:     60,
		Workers:    1,
	}
}

// A failure prints and saves its plan with the seed objects by name
// (object=ConfigMap/team/app, not object=1), and the saved plan replays by
// the command the failure printed to the same trace hash as the run found.
func TestASavedPlanNamesItsSeedObjectsAndReplays(t *testing.T) {
	t.Chdir(t.TempDir()) // Run saves under testdata/ctrlsim here
	t.Setenv("CTRLSIM_ARTIFACTS", t.TempDir())
	o := namedOptions()
	found, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !found.Caught {
		t.Fatalf("no plan of %d deleted the seed ConfigMap: nothing saved", o.Checks)
	}
	if !strings.Contains(found.Minimal.String(), "object=1") {
		t.Fatalf("the minimal plan does not step on seed object 1 by its index (the form a world runs):\n%s", found.Minimal)
	}
	// The user's deletion alone violates the property: a finding with no
	// fault at all (plan 0), saved under its own name.
	if !found.Findings[0].NoFault || found.FirstFailure != 0 {
		t.Errorf("the deletion is found at plan %d (no fault: %v), want plan 0, with no fault at all", found.FirstFailure, found.Findings[0].NoFault)
	}
	search.Run(t, o) // expected: it saves the minimal plan and replays it
	paths, _ := filepath.Glob("testdata/ctrlsim/" + failure.FileName(t.Name()) + ".*.no-fault.plan")
	if len(paths) != 1 {
		t.Fatalf("saved plans with no fault: %q, want one", paths)
	}
	path := paths[0]
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	saved := string(b)
	if !strings.Contains(saved, "object=ConfigMap/team/app") || regexp.MustCompile(`object=\d`).MatchString(saved) {
		t.Errorf("the saved plan does not name its seed object ConfigMap/team/app:\n%s", saved)
	}
	// The failure's own text prints the plan the same way.
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if names := failure.SeedNames(w); strings.Join(names, " ") != "Secret/team/token ConfigMap/team/app" {
		t.Errorf("seed names %q", names)
	}
	f, err := failure.OfPlan(w, t, found.Minimal, path)
	if err != nil || f == nil {
		t.Fatalf("the minimal plan does not fail when run again: %v", err)
	}
	plan := f.Text[strings.Index(f.Text, "\nthe plan:\n"):]
	plan = plan[:strings.Index(plan, "\nreplay: ")]
	if !strings.Contains(plan, "object=ConfigMap/team/app") || strings.Contains(plan, "object=1") {
		t.Errorf("the failure prints the plan without the seed object's name:%s", plan)
	}
	// Replay by the printed command: its -ctrlsim.plan.
	m := regexp.MustCompile(`# replay: go test (?:\S+ )?-run '[^']+' -ctrlsim\.plan=(\S+) -v`).FindStringSubmatch(saved)
	if m == nil {
		t.Fatalf("the saved plan has no replay line:\n%s", saved)
	}
	flagPlan := *world.FlagPlan
	*world.FlagPlan = m[1]
	defer func() { *world.FlagPlan = flagPlan }()
	replayed, err := search.Explore(t, o)
	if err != nil {
		t.Fatalf("the saved plan does not replay: %v", err)
	}
	if replayed.Hash != found.Hash || !replayed.Caught {
		t.Errorf("the saved plan replays to trace hash %s (caught %v), the exploration's run was %s", replayed.Hash, replayed.Caught, found.Hash)
	}
}
