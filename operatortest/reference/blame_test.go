package reference_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The two shapes of a fault-free schedule that itself shows the bug:
// interleavings-agree names the run that shows it by the rule a
// child follows its owner, whichever run the faulted one ends as.

// stale is an operator that keeps one Secret with a generated name for the
// ConfigMap team/app, found by a cached list; after making one it looks
// again a millisecond later, and a cache that has not yet seen its Secret
// makes it make a second.
type stale struct{ c client.Client }

func (r *stale) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	app := &corev1.ConfigMap{}
	if err := r.c.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var secrets corev1.SecretList
	if err := r.c.List(ctx, &secrets, client.InNamespace(app.Namespace)); err != nil {
		return ctrl.Result{}, err
	}
	for _, s := range secrets.Items {
		if metav1.IsControlledBy(&s, app) {
			return ctrl.Result{}, nil
		}
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, GenerateName: app.Name + "-"}}
	if err := controllerutil.SetControllerReference(app, s, r.c.Scheme()); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.c.Create(ctx, s); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: time.Millisecond}, nil
}

// forgetful is an operator that makes the Secret team/app-child for the
// ConfigMap team/app when its cache has none, whoever owns the one it has:
// an owner re-created while its cache still holds the old owner's child
// (which the garbage collector then deletes) is left without one.
type forgetful struct{ c client.Client }

func (r *forgetful) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	app := &corev1.ConfigMap{}
	if err := r.c.Get(ctx, req.NamespacedName, app); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	s := &corev1.Secret{}
	err := r.c.Get(ctx, client.ObjectKey{Namespace: app.Namespace, Name: app.Name + "-child"}, s)
	if err == nil || !apierrors.IsNotFound(err) {
		return ctrl.Result{}, err
	}
	s = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}
	if err := controllerutil.SetControllerReference(app, s, r.c.Scheme()); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, client.IgnoreAlreadyExists(r.c.Create(ctx, s))
}

func blameWorld(t *testing.T, owns bool, rec func(client.Client) reconcile.Reconciler) *world.World {
	t.Helper()
	o := world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			b := ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}, optest.Apps)
			if owns {
				b = b.Owns(&corev1.Secret{})
			}
			return b.Complete(rec(mgr.GetClient()))
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}}},
	}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// secretsAtEnd are the Secrets of team at the end of a reference run.
func secretsAtEnd(r *verdict.Reference) []string {
	var out []string
	for gvk, objs := range r.Snap.Raw { // lint:order-independent one kind picked
		if gvk.Kind != "Secret" {
			continue
		}
		for _, o := range objs {
			if o.GetNamespace() == "team" {
				out = append(out, o.GetName())
			}
		}
	}
	return out
}

// blamed finds a seed whose fault-free run shows the bug (shows) while the
// run of its other schedule does not, judges the fault-free plan of that
// seed and steps (the faulted run then ends as the buggy run does, so the
// rule "the schedule the faulted run does not share is suspect" would blame
// the correct one), and returns the seed and the failure text.
func blamed(t *testing.T, w *world.World, steps []plan.Step, shows func(*verdict.Reference) bool) (uint64, string) {
	t.Helper()
	t.Setenv("CTRLSIM_ARTIFACTS", t.TempDir())
	for seed := uint64(0); seed < 200; seed++ {
		refs, err := reference.References(w, t, &plan.Plan{Seed: seed, Steps: steps})
		if err != nil {
			t.Fatal(err)
		}
		if !shows(refs[0]) || shows(refs[1]) {
			continue
		}
		p := &plan.Plan{Seed: seed, Steps: steps}
		r, err := reference.Run(w, t, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range r.Verdicts {
			if v.Property == world.InterleavingsAgree && v.Holds {
				t.Fatalf("seed %d: the fault-free runs of seeds %d and %d end apart and interleavings-agree holds", seed, refs[0].Seed, refs[1].Seed)
			}
		}
		text := failure.Of(w, t, p, "testdata/ctrlsim/"+failure.FileName(t.Name())+".plan", r).Text
		t.Logf("seed %d:\n%s", seed, text)
		return seed, text
	}
	t.Fatal("no seed of 200 whose fault-free run shows the bug while its other schedule's does not: nothing to blame")
	return 0, ""
}

// A stale read makes a second Secret in one fault-free schedule: the report
// blames the run that made it twice, not the one that made it once.
func TestTheRunThatMadeAChildTwiceIsBlamed(t *testing.T) {
	w := blameWorld(t, true, func(c client.Client) reconcile.Reconciler { return &stale{c} })
	seed, text := blamed(t, w, nil, func(r *verdict.Reference) bool { return len(secretsAtEnd(r)) > 1 })
	want := fmt.Sprintf("the suspect is the fault-free run with seed %d: the fault-free run with seed %d made 2 Secrets for one incarnation of ConfigMap team/app", seed, seed)
	if !strings.Contains(text, want) {
		t.Errorf("the failure does not blame the run that made two Secrets (want %q):\n%s", want, text)
	}
	if other := fmt.Sprintf("the suspect is the fault-free run with seed %d", reference.OtherSeed(seed)); strings.Contains(text, other) {
		t.Errorf("the failure blames the run that made one Secret (%q):\n%s", other, text)
	}
}

// A re-created owner: the run that made its child again for the new
// incarnation (twice in all) is not blamed; the run that left the new owner
// without one is.
func TestTheRunThatDidNotRemakeAChildForARecreatedOwnerIsBlamed(t *testing.T) {
	w := blameWorld(t, false, func(c client.Client) reconcile.Reconciler { return &forgetful{c} })
	hasChild := func(r *verdict.Reference) bool {
		for _, n := range secretsAtEnd(r) {
			if n == "app-child" {
				return true
			}
		}
		return false
	}
	var tried []string
	for _, gap := range []time.Duration{time.Millisecond, 2 * time.Millisecond, 5 * time.Millisecond, 10 * time.Millisecond, 20 * time.Millisecond, 50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond} {
		steps := []plan.Step{
			{At: 10 * time.Millisecond, Action: world.ActionDelete, Args: plan.Args{{Key: plan.ObjectArg, Value: "0"}}},
			{At: 10*time.Millisecond + gap, Action: world.ActionRecreate, Args: plan.Args{{Key: plan.ObjectArg, Value: "0"}}},
		}
		found := false
		for seed := uint64(0); seed < 40 && !found; seed++ {
			refs, err := reference.References(w, t, &plan.Plan{Seed: seed, Steps: steps})
			if err != nil {
				t.Fatal(err)
			}
			found = hasChild(refs[0]) != hasChild(refs[1])
		}
		if !found {
			tried = append(tried, gap.String())
			continue
		}
		seed, text := blamed(t, w, steps, func(r *verdict.Reference) bool { return !hasChild(r) })
		want := fmt.Sprintf("the suspect is the fault-free run with seed %d: the fault-free run with seed %d ends with ConfigMap team/app there and Secret team/app-child missing", seed, seed)
		if !strings.Contains(text, want) {
			t.Errorf("the failure does not blame the run that left the re-created owner without its child (want %q):\n%s", want, text)
		}
		return
	}
	t.Fatalf("no delete and re-create (%s apart) whose two schedules disagree on the child: nothing to blame", strings.Join(tried, ", "))
}
