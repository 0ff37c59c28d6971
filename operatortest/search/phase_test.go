package search

import (
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A saved plan's crash or stale restart that its run never made (its k-th
// write came after the fault phase it is replayed under) is named: its
// replay does not hold silently. One that happened is not.
func TestAFaultThatNeverHappenedIsNamed(t *testing.T) {
	p := &plan.Plan{Seed: 1, Faults: []plan.Fault{{Kind: plan.Crash, Process: "op", Write: 3}, {Kind: plan.Hold, Process: "op", Resource: "v1/ConfigMap", Until: time.Second}}}
	writes := []trace.Step{{At: time.Second, Process: "op", Op: "create", Object: "Job shop/db-1", Result: "ok"}}
	if got := unmetFaults(p, writes); got != p.Faults[0].String() {
		t.Errorf("unmetFaults = %q, want the crash named (%q)", got, p.Faults[0].String())
	}
	crashed := append(writes, trace.Step{At: 2 * time.Second, Process: "op", Op: "crash", Result: "crash after write 3"})
	if got := unmetFaults(p, crashed); got != "" {
		t.Errorf("unmetFaults = %q of a run that crashed, want none", got)
	}
	other := append(writes, trace.Step{At: 2 * time.Second, Process: "other", Op: "crash", Result: "crash after write 3"})
	if got := unmetFaults(p, other); got == "" {
		t.Error("another process's crash stands for op's")
	}
}
