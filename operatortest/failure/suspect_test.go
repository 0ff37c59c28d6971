package failure_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// racyOptions: two workers race to create Secret team/winner, each naming
// the app it reconciled; which wins is the schedule's (a race with no
// fault, interleavings-agree's to catch).
func racyOptions() world.Options {
	o := optest.AppOptions(nil)
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, optest.Apps).
			WithOptions(controller.Options{MaxConcurrentReconciles: 2}).
			Complete(&optest.AppReconciler{Client: mgr.GetClient(), Do: func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
				s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: "winner"}, StringData: map[string]string{"app": app.Name}}
				if err := c.Create(ctx, s); err != nil && !apierrors.IsAlreadyExists(err) {
					return err
				}
				return nil
			}})
	}
	o.Objects = append(o.Objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "other"}})
	return o
}

// When interleavings-agree blames the fault-free run of the other schedule
// (the suspect), the story draws the suspect's run, not the innocent one the
// failing plan ran, and the failure prints the suspect's plan (the same
// workload under its seed, no fault), saved beside the story, and a replay
// line for it; replayed, that plan gives the trace hash the failure names.
func TestInterleavingsAgreeDrawsAndReplaysTheSuspect(t *testing.T) {
	dir := t.TempDir()
	old := *failure.FlagArtifacts
	*failure.FlagArtifacts = dir
	t.Cleanup(func() { *failure.FlagArtifacts = old })
	w, err := search.NewWorld(racyOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 1\n")
	if err != nil {
		t.Fatal(err)
	}
	f, err := failure.OfPlan(w, t, p, filepath.Join(dir, "TestX.plan"))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || !strings.Contains(f.Text, "the suspect is the fault-free run with seed 2049") {
		t.Fatalf("seed 1 no longer blames the fault-free run with seed 2049:\n%v", f)
	}
	saved := strings.TrimSuffix(f.Files.SVG, ".svg") + ".suspect.plan"
	for _, want := range []string{"the violation, step by step, in the suspect's run (the fault-free run with seed 2049; numbered as the picture numbers them):\n  ① ",
		"\nthe suspect, the fault-free run with seed 2049, is the run the story draws (trace hash ",
		"its plan, saved as " + saved + ":\n  seed 2049\n", "replay the suspect: " + failure.ReplayCommand(t.Name(), saved)} {
		if !strings.Contains(f.Text, want) {
			t.Errorf("the failure does not say %q:\n%s", want, f.Text)
		}
	}
	svg, err := os.ReadFile(f.Files.SVG)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "(the suspect: the fault-free run with seed 2049)") {
		t.Error("the picture is not the suspect's")
	}
	md, err := os.ReadFile(f.Files.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	if want := "## The suspect\n\nThe story below draws the run interleavings-agree blames, the fault-free run with seed 2049"; !strings.Contains(string(md), want) ||
		!strings.Contains(string(md), failure.ReplayCommand(t.Name(), "TestX.suspect.plan")) {
		t.Errorf("the markdown report does not name the suspect and its replay:\n%s", md)
	}
	text, err := os.ReadFile(saved)
	if err != nil {
		t.Fatal(err)
	}
	sp, err := plan.Parse(string(text))
	if err != nil {
		t.Fatal(err)
	}
	w2, err := search.NewWorld(racyOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w2, t, sp)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(f.Text, "(trace hash "+r.Hash+")") {
		t.Errorf("the suspect's plan replays to trace hash %s, which the failure does not name:\n%s", r.Hash, f.Text)
	}
}

// A run that violates more than interleavings-agree keeps its own story:
// its other violations are its own, drawn on its run; the suspect is
// drawn only when interleavings-agree is all there is.
func TestTheSuspectIsDrawnOnlyWhenInterleavingsAgreeIsAllThatIsViolated(t *testing.T) {
	p, err := plan.Parse("seed 1\ncrash process=op write=1\n")
	if err != nil {
		t.Fatal(err)
	}
	agree := check.Verdict{Property: world.InterleavingsAgree, Detail: "the suspect is the fault-free run with seed 2049"}
	rep := &failure.Report{Test: "TestX", P: p, R: &world.RunResult{}, Violated: []check.Verdict{{Property: world.Converges}, agree},
		Suspect: &failure.Suspect{Name: "the fault-free run with seed 2049", P: &plan.Plan{Seed: 2049}, R: &world.RunResult{}, Verdicts: []check.Verdict{agree}}}
	if title := rep.Story().Title; title != "TestX" {
		t.Errorf("with converges violated too, the story is %q, want this run's", title)
	}
	rep.Violated = rep.Violated[1:]
	if title := rep.Story().Title; title != "TestX (the suspect: the fault-free run with seed 2049)" {
		t.Errorf("with interleavings-agree alone, the story is %q, want the suspect's", title)
	}
}

// winnerNamed is an author's property that the Secret team/winner names
// app *want: of the two schedules of racyOptions, one holds it and the
// other, the run interleavings-agree blames, breaks it.
func winnerNamed(want *string) world.Property {
	return world.Property{Name: "winner-named", Check: func(h *world.History) error {
		var s corev1.Secret
		if err := h.Get(client.ObjectKey{Namespace: "team", Name: "winner"}, &s); err != nil {
			return err
		}
		if got := string(s.Data["app"]) + s.StringData["app"]; got != *want {
			return fmt.Errorf("Secret team/winner names app %q, want %q", got, *want)
		}
		return nil
	}}
}

// suspectBreaks are racyOptions with winnerNamed, its want the app the
// fault-free run of seed 1 names: seed 1 holds it, and the suspect (seed
// 2049) breaks it.
func suspectBreaks(t *testing.T) world.Options {
	t.Helper()
	want := "app"
	o := racyOptions()
	o.Properties = []world.Property{winnerNamed(&want)}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w, t, &plan.Plan{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range r.Violated() {
		if v.Property == "winner-named" {
			want = "other"
		}
	}
	return o
}

// The suspect's own verdicts (an absolute property the run
// interleavings-agree blames breaks) are printed with the failure, not
// hidden under interleavings-agree; the failing plan's run holds that
// property.
func TestTheSuspectsOwnVerdictsArePrinted(t *testing.T) {
	t.Setenv("CTRLSIM_ARTIFACTS", t.TempDir())
	o := suspectBreaks(t)
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	f, err := failure.OfPlan(w, t, &plan.Plan{Seed: 1}, filepath.Join(t.TempDir(), "TestX.plan"))
	if err != nil {
		t.Fatal(err)
	}
	if f == nil || f.Suspect == nil {
		t.Fatalf("seed 1 names no suspect:\n%v", f)
	}
	sv := f.Suspect.Violated()
	if len(sv) != 1 || sv[0].Property != "winner-named" {
		t.Fatalf("the suspect's own violations are %v, want winner-named alone", sv)
	}
	want := "and in the run interleavings-agree blames (the suspect, the fault-free run with seed 2049; its plan is below), its own verdicts:\n  winner-named at "
	if !strings.Contains(f.Text, want) || strings.Contains(f.Text, "violates winner-named") {
		t.Errorf("the failure does not print the suspect's own verdict (or names it as the plan's own):\n%s", f.Text)
	}
	md, err := os.ReadFile(f.Files.Markdown)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "Its own verdicts, besides interleavings-agree:\n\n```\n  winner-named at ") {
		t.Errorf("the markdown report does not print the suspect's own verdict:\n%s", md)
	}
}

// Options.Expect naming the suspect's own violation expects the failing
// plan: the search's plan 0 shows the known bug through the run its
// interleavings-agree blames, and the test passes (it failed with "this
// violation is another one" when only the plan's own run counted).
func TestExpectCountsTheSuspectsOwnViolations(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("CTRLSIM_ARTIFACTS", t.TempDir())
	o := suspectBreaks(t)
	o.Expect, o.Checks, o.Workers = "winner-named", 3, 1
	search.Run(t, o)
}
