package reposync

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
)

func scheme(t *testing.T) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestDeletingRepoSync follows upstream's TestSetupAndTeardown
// (reconciler_base_test.go at 9e28c844b): a RepoSync being deleted with both
// finalizers, in an Active, a Terminating and a missing namespace, per variant.
func TestDeletingRepoSync(t *testing.T) {
	const ns = "test-ns"
	now := metav1.NewTime(time.Date(2024, 4, 12, 0, 0, 0, 0, time.UTC))
	tests := []struct {
		name      string
		namespace *corev1.Namespace // nil: missing
		v         variant.Variant
		wantErr   string // substring; "" for none
		wantGone  bool   // both finalizers removed, so the RepoSync is gone
		wantRB    bool   // the shared RoleBinding exists afterwards
	}{
		{name: "buggy waits in an Active namespace", namespace: active(ns), v: variant.Buggy},
		{name: "buggy waits in a Terminating namespace", namespace: terminating(ns, now), v: variant.Buggy},
		{name: "buggy waits when the namespace is missing", v: variant.Buggy},
		{name: "fixed waits in an Active namespace", namespace: active(ns), v: variant.Fixed},
		{name: "fixed removes both finalizers in a Terminating namespace", namespace: terminating(ns, now), v: variant.Fixed, wantGone: true},
		{name: "fixed fails when the namespace is missing", v: variant.Fixed, wantErr: `namespaces "test-ns" not found`},
		{name: "robust keeps the ns-reconciler's RoleBinding in an Active namespace", namespace: active(ns), v: variant.Robust, wantRB: true},
		{name: "robust removes both finalizers in a Terminating namespace", namespace: terminating(ns, now), v: variant.Robust, wantGone: true},
		{name: "robust removes both finalizers when the namespace is missing", v: variant.Robust, wantGone: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs := &RepoSync{ObjectMeta: metav1.ObjectMeta{
				Namespace: ns, Name: RepoSyncName, DeletionTimestamp: &now,
				Finalizers: []string{ReconcilerManagerFinalizer, ReconcilerFinalizer},
			}}
			objs := []client.Object{rs}
			if tt.namespace != nil {
				objs = append(objs, tt.namespace)
			}
			c := fake.NewClientBuilder().WithScheme(scheme(t)).WithObjects(objs...).WithStatusSubresource(&RepoSync{}).Build()
			m := &Manager{Client: c, APIReader: c, Clock: clocktesting.NewFakeClock(now.Time), Variant: tt.v}
			key := types.NamespacedName{Namespace: ns, Name: RepoSyncName}
			_, err := m.Reconcile(context.Background(), reconcile.Request{NamespacedName: key})
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("Reconcile: %v", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("Reconcile error = %v, want one containing %q", err, tt.wantErr)
			}
			got := &RepoSync{}
			err = c.Get(context.Background(), key, got)
			if gone := apierrors.IsNotFound(err); gone != tt.wantGone {
				t.Fatalf("RepoSync gone = %v (err %v, finalizers %v), want %v", gone, err, got.Finalizers, tt.wantGone)
			}
			if !tt.wantGone && len(got.Finalizers) != 2 {
				t.Errorf("finalizers = %v, want both kept", got.Finalizers)
			}
			err = c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: RepoSyncBaseRoleBindingName}, &rbacv1.RoleBinding{})
			if has := err == nil; has != tt.wantRB {
				t.Errorf("shared RoleBinding exists = %v, want %v", has, tt.wantRB)
			}
		})
	}
}

func TestNsReconcilerName(t *testing.T) {
	for _, tt := range []struct{ ns, name, want string }{
		{"bookstore", "repo-sync", "ns-reconciler-bookstore"},
		{"bookstore", "shelf", "ns-reconciler-bookstore-shelf-5"},
	} {
		if got := NsReconcilerName(tt.ns, tt.name); got != tt.want {
			t.Errorf("NsReconcilerName(%q, %q) = %q, want %q", tt.ns, tt.name, got, tt.want)
		}
	}
}

func active(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}, Status: corev1.NamespaceStatus{Phase: corev1.NamespaceActive}}
}

func terminating(name string, at metav1.Time) *corev1.Namespace {
	return &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: name, DeletionTimestamp: &at, Finalizers: []string{"example.com/keep"}},
		Spec:       corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
	}
}
