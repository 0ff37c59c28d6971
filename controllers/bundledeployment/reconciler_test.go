package bundledeployment

import (
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/helm"
)

func ns(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "1"}}
}

// DependentPredicateFuncs (rukpak internal/helm-operator-plugins/predicate):
// creates and generic events are dropped, deletes pass, updates pass unless
// only status and resourceVersion changed.
func TestDependentPredicateFollowsHelmOperatorPlugins(t *testing.T) {
	p := DependentPredicate()
	old := ns("a")
	statusOnly := old.DeepCopy()
	statusOnly.ResourceVersion, statusOnly.Status.Phase = "2", corev1.NamespaceTerminating
	deleting := statusOnly.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: time.Unix(100, 0)}
	cases := []struct {
		name string
		got  bool
		want bool
	}{
		{"create is ignored", p.Create(event.CreateEvent{Object: old}), false},
		{"generic is ignored", p.Generic(event.GenericEvent{Object: old}), false},
		{"delete passes", p.Delete(event.DeleteEvent{Object: old}), true},
		{"status and resourceVersion only: ignored", p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: statusOnly}), false},
		{"a new deletionTimestamp passes", p.Update(event.UpdateEvent{ObjectOld: old, ObjectNew: deleting}), true},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("%s: got %v, want %v", c.name, c.got, c.want)
		}
	}
}

// BundleDeploymentProvisionerFilter matches the class name only.
func TestProvisionerFilterMatchesClassName(t *testing.T) {
	f := ProvisionerFilter(PlainProvisionerID)
	plain := &BundleDeployment{Spec: BundleDeploymentSpec{ProvisionerClassName: PlainProvisionerID}}
	other := &BundleDeployment{Spec: BundleDeploymentSpec{ProvisionerClassName: "core-rukpak-io-helm"}}
	if !f.Generic(event.GenericEvent{Object: plain}) || f.Generic(event.GenericEvent{Object: other}) {
		t.Fatal("filter must pass the plain class and only it")
	}
	statusWrite := plain.DeepCopy()
	statusWrite.Status.ObservedGeneration = 1
	if !f.Update(event.UpdateEvent{ObjectOld: plain, ObjectNew: statusWrite}) {
		t.Fatal("a status write must pass the filter (no generation predicate upstream)")
	}
}

// The variant switch: workers, predicates, rate limiter and the action
// client's failure cleanup options, as SEEDS.md Seed 1 (b) and (d) give them.
func TestVariantsWireTheUpstreamKnobs(t *testing.T) {
	for _, tc := range []struct {
		v          variant.Variant
		workers    int
		generation bool
		limiter    bool
		rollbacks  bool
		wait       bool
	}{
		{variant.Buggy, 1, false, false, true, false},
		{variant.Fixed, FixedWorkers, false, false, true, true},
		{variant.Robust, FixedWorkers, true, true, false, false},
	} {
		r := &Reconciler{Variant: tc.v, Clock: clocktesting.NewFakeClock(time.Unix(0, 0))}
		if got := r.Workers(); got != tc.workers {
			t.Errorf("%s: %d workers, want %d", tc.v, got, tc.workers)
		}
		hasGen := false
		for _, p := range r.ForPredicates() {
			if _, ok := p.(predicate.GenerationChangedPredicate); ok {
				hasGen = true
			}
		}
		if hasGen != tc.generation {
			t.Errorf("%s: GenerationChangedPredicate %v, want %v", tc.v, hasGen, tc.generation)
		}
		if (r.RateLimiter() != nil) != tc.limiter {
			t.Errorf("%s: own rate limiter %v, want %v", tc.v, r.RateLimiter() != nil, tc.limiter)
		}
		ac := r.actionClient()
		if ac.FailureRollbacks != tc.rollbacks {
			t.Errorf("%s: FailureRollbacks %v, want %v", tc.v, ac.FailureRollbacks, tc.rollbacks)
		}
		if ac.InstallFailureUninstall.Wait != tc.wait || ac.UpgradeFailureRollback.Wait != tc.wait {
			t.Errorf("%s: cleanup waits %v/%v, want %v", tc.v, ac.InstallFailureUninstall.Wait, ac.UpgradeFailureRollback.Wait, tc.wait)
		}
		if tc.wait && (ac.InstallFailureUninstall.Timeout != 30*time.Second || ac.UpgradeFailureRollback.Timeout != 30*time.Second) {
			t.Errorf("%s: cleanup timeouts %s/%s, want 30s", tc.v, ac.InstallFailureUninstall.Timeout, ac.UpgradeFailureRollback.Timeout)
		}
	}
	if got := (&Reconciler{}).ControllerName(); got != "controller.bundledeployment.core-rukpak-io-plain" {
		t.Errorf("controller name %q", got)
	}
}

// Robust's classification: side effects of a cleanup or a race are transient,
// the API server's refusal of the bundle's content is not.
func TestTransientErrors(t *testing.T) {
	cm := schema.GroupResource{Resource: "configmaps"}
	terminating := apierrors.NewForbidden(cm, "config", errors.New("unable to create new content in namespace x because it is being terminated"))
	terminating.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: corev1.NamespaceTerminatingCause, Message: "namespace x is being terminated", Field: "metadata.namespace"}}
	invalid := apierrors.NewInvalid(schema.GroupKind{Group: "apps", Kind: "Deployment"}, "operator", nil)
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("failed to create resource: %w", terminating), true},
		{apierrors.NewAlreadyExists(schema.GroupResource{Resource: "namespaces"}, "object is being deleted: x"), true},
		{fmt.Errorf("uninstallation completed with 1 error(s): %w", helm.ErrWaitTimeout), true},
		{apierrors.NewConflict(cm, "config", errors.New("modified")), true},
		{&LeftoverError{Object: `Namespace "x"`}, true},
		{invalid, false},
		{fmt.Errorf("failed to create resource: %w", invalid), false},
		{apierrors.NewForbidden(cm, "config", errors.New("RBAC")), false},
	} {
		if got := isTransient(tc.err); got != tc.want {
			t.Errorf("isTransient(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// Robust keeps a root cause already shown when a transient error follows; the
// other variants write every error.
func TestRobustKeepsTheRootCause(t *testing.T) {
	transient := &LeftoverError{Object: `Namespace "x"`}
	for _, v := range variant.All {
		r := &Reconciler{Variant: v, Clock: clocktesting.NewFakeClock(time.Unix(0, 0))}
		bd := &BundleDeployment{}
		r.setInstalledFailed(bd, ReasonInstallFailed, errors.New("root cause"))
		r.setInstalledFailed(bd, ReasonInstallFailed, transient)
		got := apimeta.FindStatusCondition(bd.Status.Conditions, TypeInstalled).Message
		want := transient.Error()
		if v == variant.Robust {
			want = "root cause"
		}
		if got != want {
			t.Errorf("%s: message %q, want %q", v, got, want)
		}
	}
}

// Expectations: the deletions of a cleanup back to the target release are
// expected (their events ignored) until the delete event arrives; a successful
// release forgets the expectations of the objects it re-created.
func TestExpectationsFollowTheCleanup(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	manifest := func(names ...string) *helm.Release {
		rel := &helm.Release{}
		for i, n := range names {
			if i > 0 {
				rel.Manifest += "\n---\n"
			}
			rel.Manifest += fmt.Sprintf(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":%q}}`, n)
		}
		return rel
	}
	r := &Reconciler{Variant: variant.Robust, Client: fake.NewClientBuilder().WithScheme(scheme).Build()}
	r.expectDeletions(manifest("a", "extra"), manifest("a"))
	if r.ownDeletion(ns("a"), scheme, false) {
		t.Error("a is in the rollback target: not deleted by the cleanup")
	}
	if !r.ownDeletion(ns("extra"), scheme, false) || !r.ownDeletion(ns("extra"), scheme, true) {
		t.Error("extra's deletion is expected until its delete event")
	}
	if r.ownDeletion(ns("extra"), scheme, true) {
		t.Error("the delete event clears the expectation")
	}
	r.expectDeletions(manifest("b"), nil)
	r.settle(manifest("b"))
	if r.ownDeletion(ns("b"), scheme, false) {
		t.Error("a successful release forgets the expectation of what it re-created")
	}
}
