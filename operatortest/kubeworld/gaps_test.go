package kubeworld_test

// The tests of this file, with gaps_internal_test.go's, show the Known gaps
// of doc.go, each as it is today: a change that closes a gap breaks its
// test, and the item goes with it.

import (
	"slices"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
)

// A world that runs the kubelet does not offer it to the generator: no
// crash, latency or lag falls on it.
func TestTheKubeletIsNoProcessAPlanCrashes(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if w.Opts.NoWorkloadModels {
		t.Fatal("the world runs no kubelet: the test shows nothing")
	}
	if slices.Contains(w.Space.Processes, kubeworld.KubeletProcess) {
		t.Errorf("the plan space's processes %v name the kubelet", w.Space.Processes)
	}
}
