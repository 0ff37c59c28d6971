package operatortest

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

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

// A plan that names a seed object by kind and name (as a failure saves it)
// replays as the plan that indexes it: the same run, the same trace hash;
// a name no seed object has is refused, naming the seed objects.
func TestReplayTakesSeedObjectsByNameOrIndex(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	run := func(text string) (*Replayed, error) {
		t.Helper()
		p, err := plan.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		return Replay(t, o, p)
	}
	byIndex, err := run("seed 1\nat 5ms delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	byName, err := run("seed 1\nat 5ms delete object=ConfigMap/team/app\n")
	if err != nil {
		t.Fatal(err)
	}
	if byName.Hash != byIndex.Hash {
		t.Errorf("by name the run's hash is %s, by index %s", byName.Hash, byIndex.Hash)
	}
	if _, err := run("seed 1\nat 5ms delete object=ConfigMap/team/nope\n"); err == nil || !strings.Contains(err.Error(), "ConfigMap/team/app") {
		t.Errorf("a name no seed object has: %v, want an error naming the seed objects", err)
	}
}
