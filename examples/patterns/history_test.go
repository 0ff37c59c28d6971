package patterns_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A plan's trace is a function of the plan alone, whatever the process ran
// before it: run again in the same process, after itself and after another
// plan, it gives the same trace hash. The plan is the one that once did not
// (statefulset-parallel's plan 273 of 1,000): a stale restart of the
// operator after a delete and re-create of its Cache, where
// kube-controller-manager's StatefulSet controller retries its status write
// after a conflict with a jittered delay drawn from math/rand, which the
// apiserver model's memo of creates had left to depend on the runs before.
func TestAPlanGivesOneTraceWhateverTheProcessRanBefore(t *testing.T) {
	if testing.Short() {
		t.Skip("three runs of a three-minute plan of kube-controller-manager's StatefulSets")
	}
	var p pattern
	for _, q := range patterns {
		if q.name == "statefulset-parallel" {
			p = q
		}
	}
	staleRestart := mustPlan(t, `seed 1
at 20s delete object=0
at 30s recreate object=0
stale process=statefulset kind=patterns.ctrlsim.dev/v1/Cache at=30.005352347s age=30s rev=39
`)
	other := mustPlan(t, `seed 1
at 20s delete object=0
hold process=statefulset kind=patterns.ctrlsim.dev/v1/Cache from=0s until=1m0s
`)
	var hashes []string
	for _, pl := range []*plan.Plan{staleRestart, staleRestart, other, staleRestart} {
		r, err := operatortest.Replay(t, p.options(false), pl)
		if err != nil {
			t.Fatal(err)
		}
		if pl == staleRestart {
			hashes = append(hashes, r.Hash)
		}
	}
	for i, h := range hashes[1:] {
		if h != hashes[0] {
			t.Errorf("run %d of the plan gave trace hash %s, the first %s: the process's earlier runs changed it", i+2, h, hashes[0])
		}
	}
}

func mustPlan(t *testing.T, text string) *plan.Plan {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
