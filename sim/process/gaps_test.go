package process_test

// The tests of this file show the Known gaps of doc.go (and of sim/clock's
// that only a process shows), each as it is today: a change that closes a gap
// breaks its test, and the item goes with it.

import (
	"strings"
	"testing"
	"time"

	kclock "k8s.io/utils/clock"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

func TestEveryProcessReadsTheSameNow(t *testing.T) {
	clocks := map[string]kclock.WithTicker{}
	spec := func(name string) process.Spec {
		return process.Spec{Name: name, Setup: func(p *process.Process) error {
			clocks[name] = p.Clock()
			return nil
		}}
	}
	c, err := cluster.New(&plan.Plan{}, cluster.Options{Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{spec("a"), spec("b")}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Minute)
	a, b := clocks["a"], clocks["b"]
	if a == nil || b == nil || a != b || !a.Now().Equal(b.Now()) {
		t.Fatalf("processes a and b read clocks %p and %p, want one clock", a, b)
	}
}

func TestTheKubeconfigTransportServesNoCallerOutsideAProcess(t *testing.T) {
	_, err := process.KubeconfigTransport()
	if err == nil || !strings.Contains(err.Error(), "was called outside every process of the simulated cluster") {
		t.Fatalf("KubeconfigTransport from the test: %v, want it refused", err)
	}
}
