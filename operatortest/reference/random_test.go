package reference_test

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// passwordReconciler is a correct operator that generates a password: for
// each ConfigMap it owns a Secret holding a password drawn with crypto/rand,
// made once and kept.
type passwordReconciler struct{ client.Client }

func (r *passwordReconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var app corev1.ConfigMap
	if err := r.Get(ctx, req.NamespacedName, &app); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-password"}}
	if err := r.Get(ctx, client.ObjectKeyFromObject(s), s); !apierrors.IsNotFound(err) {
		return reconcile.Result{}, err
	}
	s.StringData = map[string]string{"password": rand.Text()}
	if err := controllerutil.SetControllerReference(&app, s, r.Scheme()); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, client.IgnoreAlreadyExists(r.Create(ctx, s))
}

func passwordOptions() world.Options {
	return world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, optest.Apps).Owns(&corev1.Secret{}).
				Complete(&passwordReconciler{Client: mgr.GetClient()})
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}}},
	}
}

// Randomness follows the plan's seed: an operator that generates its
// password with crypto/rand writes the same password in every run of a plan
// (one trace hash, which covers what it wrote), and converges and
// interleavings-agree, which compare it with its fault-free runs, hold.
func TestARandomPasswordFollowsThePlansSeed(t *testing.T) {
	w, err := search.NewWorld(passwordOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	for _, text := range []string{
		"seed 1\n",
		"seed 5\nat 2s delete object=0\nat 9s recreate object=0\n",
		"seed 9\ncrash process=op write=1\nlag process=op kind=* min=0s max=300ms\n",
		"seed 3000\nstale process=op at=2s age=1s\n",
		// The operator draws its password and is restarted before it writes
		// it: the new incarnation draws the same password again.
		"seed 0\nstale process=op at=1ms age=1ms\n",
		"seed 1\ncrash process=op at=1ms\n",
	} {
		p, err := plan.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		_, a, err := reference.RunOnce(w, t, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		_, b, err := reference.RunOnce(w, t, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		if a.Hash != b.Hash {
			t.Errorf("%stwo runs, two trace hashes: %s and %s", text, a.Hash, b.Hash)
		}
		if v := optest.Judge(t, passwordOptions(), text); len(v) != 0 {
			t.Errorf("%sviolated %v", text, v)
		}
	}
}

// The run with other draws changes the operator's random draws and nothing
// else: the password operator's Secret holds another password, and that is
// the only field of the end state that differs from the plan's own
// fault-free run (the environment, generated names and the schedule stay
// the plan's).
func TestTheRunWithOtherDrawsDiffersInTheRandomValuesAlone(t *testing.T) {
	w := optest.TestWorld(t, passwordOptions())
	steps := []plan.Step{}
	own, err := reference.Reference(w, t, 1, steps)
	if err != nil {
		t.Fatal(err)
	}
	other, err := reference.DrawsReference(w, t, 1, steps)
	if err != nil {
		t.Fatal(err)
	}
	_, names := reference.FieldsDiffering(w, own.Snap, other.Snap)
	if len(names) != 1 || !strings.HasPrefix(names[0], "Secret team/app-password ") || !strings.Contains(names[0], "password") {
		t.Errorf("the run with other draws differs in %v, want the Secret's password alone", names)
	}
	if again, err := reference.DrawsReference(w, t, 1, steps); err != nil || again != other {
		t.Errorf("the run with other draws is not kept with the references (%v)", err)
	}
}

// A field that differs with the randomness alone is not a disagreement of
// two schedules, nor held against a faulted run: two fault-free schedules
// whose operator drew its password a different number of times before the
// Secret it kept (the password pattern's false alarm at plan 543) agree, and
// the verdict says why; a field that the other draws do not change still
// counts (a username the schedules disagree on is a race), and so does a
// password when the other draws leave it alone (it is then not random).
func TestAFieldThatDiffersWithTheRandomnessAloneIsNotADisagreement(t *testing.T) {
	// The operator's object (a ConfigMap, a kind every run judges) holds
	// the credentials.
	secret := func(user, pw string) *corev1.ConfigMap {
		return optest.App(map[string]string{"username": user, "password": pw})
	}
	p := &plan.Plan{Seed: 8, Steps: []plan.Step{{At: 3 * time.Millisecond, Action: world.ActionRecreate}}}
	judge := func(a, b, drawn, got *corev1.ConfigMap) (check.Verdict, check.Verdict) {
		w := optest.TestWorld(t, passwordOptions())
		refs := []*verdict.Reference{{Seed: 8, Snap: optest.Snap(t, w, a)}, {Seed: reference.OtherSeed(8), Snap: optest.Snap(t, w, b)}}
		// The run with other draws, and the run with the same draws again
		// (the same as the first: the operator is deterministic but for its
		// draws), as randomDerived keeps them.
		w.Refs = &reference.Cache{Runs: map[string]*verdict.Reference{
			"other draws\n" + (&plan.Plan{Seed: 8, Steps: p.Steps}).String():      {Seed: 8, Draws: true, Snap: optest.Snap(t, w, drawn)},
			"same draws again\n" + (&plan.Plan{Seed: 8, Steps: p.Steps}).String(): {Seed: 8, Snap: optest.Snap(t, w, a)},
		}}
		ia, err := reference.InterleavingsAgreeOrRandom(w, t, p, refs, optest.Snap(t, w, got))
		if err != nil {
			t.Fatal(err)
		}
		g := optest.Snap(t, w, got)
		_, cv, err := reference.ConvergesWithDraws(w, t, p, refs, g, verdict.Converges(w, refs, g, 0))
		if err != nil {
			t.Fatal(err)
		}
		return ia, cv
	}
	ia, cv := judge(secret("app", "AAAA"), secret("app", "BBBB"), secret("app", "CCCC"), secret("app", "DDDD"))
	if !ia.Holds || !strings.Contains(ia.Detail, "differs with the randomness alone") || !strings.Contains(ia.Detail, "ConfigMap team/app data.password") {
		t.Errorf("interleavings-agree on a password drawn at random: %+v", ia)
	}
	if !cv.Holds {
		t.Errorf("converges holds a password drawn at random against the faulted run: %+v", cv)
	}
	// The schedules differ in the password already: converges learns it
	// from them; interleavings-agree, comparing the two, from the draws.
	optest.Excused(t, ia, verdict.RandomDraws)
	optest.Excused(t, cv, verdict.LearnedField)
	if ia, _ := judge(secret("app", "AAAA"), secret("old", "AAAA"), secret("app", "CCCC"), secret("app", "AAAA")); ia.Holds || !strings.Contains(ia.Detail, "differs between") {
		t.Errorf("a username the schedules disagree on is not a disagreement: %+v", ia)
	}
	if ia, _ := judge(secret("app", "AAAA"), secret("app", "BBBB"), secret("app", "AAAA"), secret("app", "EEEE")); ia.Holds {
		t.Errorf("interleavings-agree masks a password the other draws leave alone: %+v", ia)
	}
	// converges, where both schedules drew alike and the faulted run drew
	// once more: the other draws show the password random.
	if _, cv := judge(secret("app", "AAAA"), secret("app", "AAAA"), secret("app", "CCCC"), secret("app", "DDDD")); !cv.Holds || !strings.Contains(cv.Detail, "differs with the randomness alone") {
		t.Errorf("converges holds a password drawn at random against the faulted run: %+v", cv)
	} else {
		optest.Excused(t, cv, verdict.RandomDraws)
	}
	if _, cv := judge(secret("app", "AAAA"), secret("app", "AAAA"), secret("app", "AAAA"), secret("app", "DDDD")); cv.Holds {
		t.Errorf("converges masks a password the other draws leave alone: %+v", cv)
	}
}
