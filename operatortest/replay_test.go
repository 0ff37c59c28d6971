package operatortest

import (
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Replay hands back the run's final state: what the operator made of the
// plan's steps can be read after the run, as a Property reads it, and only
// what the run made is there.
func TestReplayKeepsTheRunsFinalState(t *testing.T) {
	p, err := plan.Parse("seed 1\nat 2s publish name=x\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := Replay(t, optest.DomainOptions(), p)
	if err != nil {
		t.Fatal(err)
	}
	if r.Final == nil {
		t.Fatal("Replayed.Final is nil")
	}
	var s corev1.Secret
	if err := r.Final.Get(client.ObjectKey{Namespace: "team", Name: "x-copy"}, &s); err != nil {
		t.Fatalf("the published ConfigMap's copy is not in the final state: %v", err)
	}
	if err := r.Final.Get(client.ObjectKey{Namespace: "team", Name: "y-copy"}, &s); !apierrors.IsNotFound(err) {
		t.Fatalf("y was never published, yet reading its copy gives %v", err)
	}
	if r.Virtual > r.Final.End() {
		t.Errorf("the final state is read at %v, after the run's last step at %v", r.Final.End(), r.Virtual)
	}
}
