package search_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// ownedInASecondWrite creates the app's children (a Secret, a ConfigMap or
// both) unowned and adds each one's owner reference in a second write
// (examples/patterns' owned-children twin, in small): a crash after a
// create leaves that child unowned for good, a converges violation that
// names its kind. Its ConfigMap is labelled, and the controller (which
// reconciles every ConfigMap) leaves it alone.
func ownedInASecondWrite(secret, configMap bool) optest.Behaviour {
	return func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		if app.Labels["child"] != "" {
			return nil
		}
		var children []client.Object
		if secret {
			children = append(children, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}})
		}
		if configMap {
			children = append(children, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-page", Labels: map[string]string{"child": "yes"}}})
		}
		for _, child := range children {
			if err := c.Create(ctx, child); err != nil {
				if !apierrors.IsAlreadyExists(err) {
					return err
				}
				if err := earlierAppsChild(ctx, c, app, child); err != nil {
					return err
				}
				continue // made before: kept as it is, owned or not
			}
			if err := controllerutil.SetControllerReference(app, child, c.Scheme()); err != nil {
				return err
			}
			if err := c.Update(ctx, child); err != nil {
				return err
			}
		}
		return nil
	}
}

// earlierAppsChild is an error while the child the app's name gives is one
// an earlier app of that name owns (deleted and re-created, the app's
// children are collected after it): the reconcile is retried until the
// garbage collector has removed it, instead of taking it for the app's
// own. Without it these fixtures had a third bug, a race with no fault:
// a delete and re-create of an app whose first reconcile meets its old
// child left it with none in one schedule and not in another
// (interleavings-agree at plan 0, since random plans take turns with the
// sweep's), which is not what these tests are about.
func earlierAppsChild(ctx context.Context, c client.Client, app *corev1.ConfigMap, child client.Object) error {
	if err := c.Get(ctx, client.ObjectKeyFromObject(child), child); err != nil {
		return client.IgnoreNotFound(err)
	}
	if ref := metav1.GetControllerOf(child); ref != nil && ref.UID != app.UID {
		return fmt.Errorf("%s/%s is an earlier app's, not yet collected", child.GetNamespace(), child.GetName())
	}
	return nil
}

// trustsItsMark is optest.TrustsItsMark that marks the app only once an
// earlier app's Secret is collected (earlierAppsChild): its one bug is the
// mark trusted after a crash.
func trustsItsMark(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
	if app.Annotations["started"] == "" {
		if err := earlierAppsChild(ctx, c, app, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: app.Namespace, Name: app.Name + "-child"}}); err != nil {
			return err
		}
	}
	return optest.TrustsItsMark(ctx, c, app)
}

// exploreKeepingOn explores o with KeepGoing and returns each finding as
// "<signature> (also: ...)".
func exploreKeepingOn(t *testing.T, o world.Options) []string {
	t.Helper()
	// 60: the sweep's targeted plans take turns with random ones, 30 each
	// (the crash after the web's mark is met at plan 31).
	o.KeepGoing, o.Checks, o.Workers = true, 60, 1
	res, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range res.Findings {
		out = append(out, f.Signature+" (also: "+strings.Join(f.Also, "; ")+")")
	}
	return out
}

// One bug whose crashes show two signatures (the unowned Secret's
// converges under one crash, the unowned ConfigMap's under another) is one
// finding: both runs first depart from their fault-free runs in the same
// reconcile (the app's), so the second signature is listed under the
// first, not reported as a finding of its own.
func TestTwoSignaturesOfOneRootCauseAreOneFinding(t *testing.T) {
	got := exploreKeepingOn(t, optest.AppOptions(ownedInASecondWrite(true, true)))
	t.Logf("findings: %q", got)
	if len(got) != 1 || !strings.Contains(got[0], "(also: converges ") {
		t.Errorf("findings %q, want one: the Secret's and the ConfigMap's converges, one listed under the other", got)
	}
}

// A signature listed under a finding keeps its minimal plan, saved beside
// the finding's (every plan that showed a signature is kept and can be
// replayed), and on a later run, which replays the saved plans first (their
// signatures known, and they the root causes found before), nothing new is
// found or saved.
func TestASignatureListedUnderAFindingKeepsItsPlan(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("CTRLSIM_ARTIFACTS", t.TempDir())
	o := optest.AppOptions(ownedInASecondWrite(true, true))
	o.KeepGoing, o.Checks, o.Workers, o.Expect = true, 30, 1, world.AnyProperty
	var plans [2][]string
	for i := range plans {
		search.Run(t, o)
		plans[i], _ = filepath.Glob(filepath.Join("testdata", "ctrlsim", "*.plan"))
	}
	if len(plans[0]) < 2 || !slices.Equal(plans[1], plans[0]) {
		t.Errorf("saved plans %q after the first run, %q after the second: want the finding's and those of the signatures listed under it, and no other", plans[0], plans[1])
	}
}

// Two bugs stay two findings: the app's ConfigMap owned in a second write,
// and another object's mark trusted (a crash between the mark and its
// Secret leaves the Secret never made). Their runs first depart from their
// fault-free runs in two reconciles, the app's and the other object's.
func TestTwoRootCausesAreTwoFindings(t *testing.T) {
	o := optest.AppOptions(func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		if app.Name == "web" {
			return trustsItsMark(ctx, c, app)
		}
		return ownedInASecondWrite(false, true)(ctx, c, app)
	})
	o.Objects = append(o.Objects, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"}})
	got := exploreKeepingOn(t, o)
	t.Logf("findings: %q", got)
	if len(got) != 2 || !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "converges Secret ") }) {
		t.Errorf("findings %q, want two: the unowned ConfigMap's, and the web's Secret never made", got)
	}
}

// Two bugs of one reconcile of one object (the app's ConfigMap owned in a
// second write, and its mark trusted: a crash between the mark and its
// Secret leaves the Secret never made) are two findings: their runs first
// go wrong in the one reconcile, but in other writes (the ConfigMap's
// owner, a Secret never made). When a root cause was a reconcile they were
// one finding, the second listed under the first.
func TestTwoBugsOfOneReconcileAreTwoFindings(t *testing.T) {
	got := exploreKeepingOn(t, optest.AppOptions(func(ctx context.Context, c client.Client, app *corev1.ConfigMap) error {
		if app.Labels["child"] != "" {
			return nil
		}
		if err := ownedInASecondWrite(false, true)(ctx, c, app); err != nil {
			return err
		}
		return trustsItsMark(ctx, c, app)
	}))
	t.Logf("findings: %q", got)
	if len(got) != 2 || !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "converges Secret ") }) ||
		!slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "converges ConfigMap ") }) {
		t.Errorf("findings %q, want two: the unowned ConfigMap's and the Secret never made", got)
	}
}
