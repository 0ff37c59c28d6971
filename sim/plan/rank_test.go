package plan

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

const rankCluster, rankPVC = "db.example/v1/Cluster", "/v1/PersistentVolumeClaim"

// actedOnTheDeletion is recreateTargets with the operator's finalizer at
// work: at 5.1s a reconcile that read the Cluster being deleted (rv 20,
// by read) deleted its claim a-data (an Act).
func actedOnTheDeletion(read Observed, wrote string) Targets {
	tg := recreateTargets()
	tg.Acts = []Act{{At: 5100 * time.Millisecond, Process: "op", Kind: rankPVC, Object: wrote, Reads: []Observed{read}}}
	return tg
}

func rankedStale(all []Targeted) []Fault {
	var out []Fault
	for _, tp := range all {
		if tp.Class == SweepStale && tp.Ranked {
			out = append(out, tp.Faults[0])
		}
	}
	return out
}

// A stale pair is ranked when the process read A and acted on it, and B
// conflicts with the action: the finalizer read the old Cluster being
// deleted (rev 20) and deleted its claim; the Cluster's removal (rv 22:
// what the action was made for is gone), the Cluster created again under
// its name (rv 30) and the claim made again (rv 31) conflict with that.
// The view is frozen just after A, scoped to A's kind: the object's past
// (caught up 1ms after the restart), then the pairs (behind for
// MaxStale). A get of A's version and a list made while A was the
// object's newest (cached: its cache at rv 20; live: at 5.05s, before the
// Cluster's removal at 5.2s) are alike a read of A.
func TestAStalePairTheProcessActedOnAndThatConflictsRanksFirst(t *testing.T) {
	ms := time.Millisecond
	want := []Fault{
		{Kind: Stale, Process: "op", At: 20001 * ms, Age: ms, Rev: 20, Resource: rankCluster},
		{Kind: Stale, Process: "op", At: 20001 * ms, Age: 30 * time.Second, Rev: 20, Resource: rankCluster},
		{Kind: Stale, Process: "op", At: 20101 * ms, Age: 30 * time.Second, Rev: 20, Resource: rankCluster},
		{Kind: Stale, Process: "op", At: 5201 * ms, Age: 30 * time.Second, Rev: 20, Resource: rankCluster},
	}
	for _, read := range []Observed{
		{At: 5050 * ms, Kind: rankCluster, Object: "ns/a", RV: 20}, // a get
		{At: 5050 * ms, Kind: rankCluster, Object: "ns/*", RV: 20}, // a cached list of the namespace
		{At: 5050 * ms, Kind: rankCluster, Object: "*", RV: 0},     // a live list
		{At: 5050 * ms, Kind: rankCluster, Object: "ns/*", RV: 21}, // a cache further on, the Cluster not yet gone
	} {
		all := Sweep(recreateSpace(), actedOnTheDeletion(read, "ns/a-data"), nil)
		if got := rankedStale(all); !slices.Equal(got, want) {
			t.Errorf("read %+v: ranked stale pairs %v, want %v", read, got, want)
		}
		// Every ranked plan comes before every other.
		for i := 1; i < len(all); i++ {
			if all[i].Ranked && !all[i-1].Ranked {
				t.Errorf("read %+v: ranked plan %d (%s) after an unranked one", read, i+1, all[i].Faults[0])
			}
		}
	}
}

// A change the view hides must conflict with what the process did: had
// the finalizer written another object, the claim made again at 20.1s
// conflicts with nothing it did, but a view of rev 20 restarted after it
// hides the Cluster's removal and re-creation, which do; a view of the new
// Cluster (rv 30), which the finalizer read and acted on, hides nothing
// that conflicts (only another claim is made, at 55s). And a read
// of another version of the Cluster (the one created at 1s, rv 10; a list
// made after the Cluster was gone) is no read of A.
func TestAPairWithoutAConflictOrARead(t *testing.T) {
	ms := time.Millisecond
	get := Observed{At: 5050 * ms, Kind: rankCluster, Object: "ns/a", RV: 20}
	got := rankedStale(Sweep(recreateSpace(), actedOnTheDeletion(get, "ns/other"), nil))
	want := []Fault{
		{Kind: Stale, Process: "op", At: 20001 * ms, Age: ms, Rev: 20, Resource: rankCluster},
		{Kind: Stale, Process: "op", At: 20001 * ms, Age: 30 * time.Second, Rev: 20, Resource: rankCluster},
		{Kind: Stale, Process: "op", At: 20101 * ms, Age: 30 * time.Second, Rev: 20, Resource: rankCluster},
		{Kind: Stale, Process: "op", At: 5201 * ms, Age: 30 * time.Second, Rev: 20, Resource: rankCluster},
	}
	if !slices.Equal(got, want) {
		t.Errorf("ranked %v, want the views that hide the Cluster's removal or re-creation %v", got, want)
	}
	tg := recreateTargets()
	tg.Acts = []Act{{At: 20100 * ms, Process: "op", Kind: rankPVC, Object: "ns/other", Reads: []Observed{{At: 20050 * ms, Kind: rankCluster, Object: "ns/a", RV: 30}}}}
	for _, f := range rankedStale(Sweep(recreateSpace(), tg, nil)) {
		if f.Rev == 30 {
			t.Errorf("%s ranked, but nothing after rev 30 conflicts with writing ns/other", f)
		}
	}
	for _, read := range []Observed{
		{At: 5050 * ms, Kind: rankCluster, Object: "ns/a", RV: 10},
		{At: 5300 * ms, Kind: rankCluster, Object: "ns/*", RV: 22},
		{At: 5300 * ms, Kind: rankCluster, Object: "*"},
		{At: 5050 * ms, Kind: rankPVC, Object: "ns/*", RV: 20},
	} {
		for _, f := range rankedStale(Sweep(recreateSpace(), actedOnTheDeletion(read, "ns/a-data"), nil)) {
			if f.Rev == 20 {
				t.Errorf("read %+v: %s ranked, but the read is not of rev 20", read, f)
			}
		}
	}
}

// A no-op write is no action: Targets.Acts has none (a reference run
// leaves them out), so a run whose reconciles read A and wrote nothing
// that changed ranks no stale pair, and the sweep is in its unranked
// order (TestTheSweepAimsAStaleViewAtTwoChanges).
func TestWithoutActsNoStalePairIsRanked(t *testing.T) {
	if got := rankedStale(Sweep(recreateSpace(), recreateTargets(), nil)); len(got) != 0 {
		t.Errorf("ranked %v with no act", got)
	}
}

// The ranking is a function of the history, not of the order the acts
// come in nor of the run: the same sweep twice, and with the acts
// reversed.
func TestTheRankingIsDeterministic(t *testing.T) {
	ms := time.Millisecond
	tg := recreateTargets()
	tg.Acts = []Act{
		{At: 1100 * ms, Process: "op", Kind: rankPVC, Object: "ns/a-data", Reads: []Observed{{At: 1050 * ms, Kind: rankCluster, Object: "ns/a", RV: 10}}},
		{At: 5100 * ms, Process: "op", Kind: rankPVC, Object: "ns/a-data", Reads: []Observed{{At: 5050 * ms, Kind: rankCluster, Object: "ns/*", RV: 20}}},
		{At: 20100 * ms, Process: "op", Kind: rankPVC, Object: "ns/a-data", Reads: []Observed{{At: 20050 * ms, Kind: rankCluster, Object: "ns/a", RV: 30}}},
	}
	first := Sweep(recreateSpace(), tg, map[string][]int{"op": {3}})
	again := Sweep(recreateSpace(), tg, map[string][]int{"op": {3}})
	tg.Acts = []Act{tg.Acts[2], tg.Acts[1], tg.Acts[0]}
	reversed := Sweep(recreateSpace(), tg, map[string][]int{"op": {3}})
	for _, other := range [][]Targeted{again, reversed} {
		if len(other) != len(first) {
			t.Fatalf("%d plans, then %d", len(first), len(other))
		}
		for i := range first {
			if first[i].Ranked != other[i].Ranked || !slices.Equal(first[i].Faults, other[i].Faults) {
				t.Fatalf("plan %d: %v, then %v", i+1, first[i], other[i])
			}
		}
	}
}

// An error answer to each write the run made: a 500 (the write not made),
// then a lost response (made, answered with an error), one plan each, the
// window opening just before the write's request and meeting it once; a
// 429 is left to the random plans.
func TestTheSweepAnswersEachWriteWithAnError(t *testing.T) {
	tg := recreateTargets()
	req := apiserver.Fault{Agent: "op", Verb: "delete", Resource: "persistentvolumeclaims", Namespace: "ns", Name: "a-data", Count: 1}
	for _, c := range []apiserver.Fault{{Code: 500}, {Code: 429}, {Ambiguous: true}} {
		f := req
		f.Code, f.Ambiguous = c.Code, c.Ambiguous
		tg.APIFaults = append(tg.APIFaults, APIFault{At: 5100 * time.Millisecond, Fault: f})
	}
	var got []Fault
	for _, tp := range Sweep(recreateSpace(), tg, nil) {
		if tp.Class == SweepAPIErrors {
			got = append(got, tp.Faults[0])
		}
	}
	if len(got) != 2 {
		t.Fatalf("error answers %v, want a 500 and a lost response", got)
	}
	for i, f := range got {
		if f.Process != "op" || f.API.Agent != "" || f.From != 5099*time.Millisecond || f.Until != time.Minute || f.API.Count != 1 ||
			(i == 0) != (f.API.Code == 500) || (i == 1) != f.API.Ambiguous {
			t.Errorf("error answer %d is %s", i+1, f)
		}
	}
	if got[0].String() != "api process=op verb=delete resource=persistentvolumeclaims namespace=ns name=a-data code=500 count=1 from=5.099s until=1m0s" {
		t.Errorf("the 500 reads %q", got[0])
	}
}

// An error answer is ranked where it leaves an intermediate state, as a
// crash is: a 500 to a write after another of its reconcile (that one
// stays, this one is not made), a lost response to a write another of its
// reconcile follows (this one stays, the next is not made), and a lost
// response to any create (its retry meets what it made). A 500 to a
// reconcile's only write, or its first, only delays it: unranked, after
// every ranked plan.
func TestAnErrorAnswerThatLeavesAnIntermediateStateIsRanked(t *testing.T) {
	update := apiserver.Fault{Agent: "op", Verb: "update", Resource: "configmaps", Namespace: "ns", Name: "a", Count: 1}
	create := update
	create.Verb, create.Name = "create", ""
	cases := []struct {
		name          string
		f             apiserver.Fault
		before, after bool
		ranked        bool
	}{
		{"a 500 to a reconcile's only write", update, false, false, false},
		{"a 500 to its first write", update, false, true, false},
		{"a 500 to a later write", update, true, false, true},
		{"a lost response to its only update", update, false, false, false},
		{"a lost response to an update another follows", update, true, true, true},
		{"a lost response to its last update", update, true, false, false},
		{"a lost response to its only create", create, false, false, true},
	}
	for _, c := range cases {
		f := c.f
		if strings.HasPrefix(c.name, "a 500") {
			f.Code = 500
		} else {
			f.Ambiguous = true
		}
		tg := Targets{Written: map[string]int{"op": 1}, APIFaults: []APIFault{{At: time.Second, Fault: f, Before: c.before, After: c.after}}}
		sw := Sweep(Space{Processes: []string{"op"}, Classes: []FaultKind{API}, Horizon: time.Minute}, tg, nil)
		if len(sw) != 1 || sw[0].Class != SweepAPIErrors {
			t.Fatalf("%s: the sweep is %v, want its error answer", c.name, sw)
		}
		if sw[0].Ranked != c.ranked {
			t.Errorf("%s: ranked %v, want %v", c.name, sw[0].Ranked, c.ranked)
		}
	}
}

// A Known gap (doc.go): a conflicting change is told by what it did to an
// object, not by its fields: a spec change after the one the process acted
// on ranks the pair whether it undoes a count or sets a new one.
func TestASpecChangedAgainRanksWhetherOrNotItUndoesTheCount(t *testing.T) {
	const ens = "example/v1/Ensemble"
	ms := time.Millisecond
	tg := Targets{
		Writes: []Write{
			{At: 0, RV: 5, Kind: ens, Object: "ns/e", Change: Created},
			{At: 5 * time.Second, RV: 10, Kind: ens, Object: "ns/e", Change: Updated},  // members 3 -> 2
			{At: 20 * time.Second, RV: 20, Kind: ens, Object: "ns/e", Change: Updated}, // members 2 -> 4, not back to 3
		},
		Watched: map[string][]string{"op": {ens}},
		Acts: []Act{{At: 5100 * ms, Process: "op", Kind: "/v1/PersistentVolumeClaim", Object: "ns/e-data-2",
			Reads: []Observed{{At: 5050 * ms, Kind: ens, Object: "ns/e", RV: 10}}}},
	}
	sp := Space{Processes: []string{"op"}, Kinds: []string{ens}, Horizon: time.Minute, MaxStale: 30 * time.Second}
	got := rankedStale(Sweep(sp, tg, nil))
	want := []Fault{{Kind: Stale, Process: "op", At: 20001 * ms, Age: ms, Rev: 10, Resource: ens}}
	if !slices.Equal(got, want) {
		t.Errorf("ranked %v, want %v", got, want)
	}
}

// A hold, or an unobserved window, is ranked when the first change it
// keeps from the process is one the process acted on: the finalizer read
// the Cluster being deleted (rev 20) and deleted its claim, so the hold of
// Clusters from just before 5s and the window from rev 20 are ranked; a
// hold from before a change it never read is not.
func TestAHoldOrAWindowThatKeepsAChangeTheProcessActedOnIsRanked(t *testing.T) {
	ms := time.Millisecond
	read := Observed{At: 5050 * ms, Kind: rankCluster, Object: "ns/a", RV: 20}
	all := Sweep(recreateSpace(), actedOnTheDeletion(read, "ns/a-data"), nil)
	var holds, windows []Fault
	for _, tp := range all {
		if !tp.Ranked {
			continue
		}
		switch tp.Class {
		case SweepHolds:
			holds = append(holds, tp.Faults[0])
		case SweepUnobserved:
			windows = append(windows, tp.Faults[0])
		}
	}
	wantHolds := []Fault{{Kind: Hold, Process: "op", Resource: rankCluster, From: 4999 * ms, Until: time.Minute}}
	wantWindows := []Fault{{Kind: Unobserved, Process: "op", Resource: rankCluster, Object: "ns/a", FromRev: 20}}
	if !slices.Equal(holds, wantHolds) {
		t.Errorf("ranked holds %v, want %v", holds, wantHolds)
	}
	if !slices.Equal(windows, wantWindows) {
		t.Errorf("ranked windows %v, want %v", windows, wantWindows)
	}
}

// A Status change undoes no decision, and shows what the version before it
// showed: a process that read a Gateway's spec (rv 5) and wrote from it
// acted on the status writes made next (rv 7, another manager's; rv 8, its
// own) too, so a view frozen just after either, restarted after the spec
// changed (rv 9), is ranked as the view of rv 5 is; frozen just after the
// spec change, nothing it acted on is shown.
func TestAViewFrozenAfterAStatusChangeShowsWhatTheProcessActedOn(t *testing.T) {
	const gw = "example/v1/Gateway"
	ms := time.Millisecond
	tg := Targets{
		Writes: []Write{
			{At: 0, RV: 5, Kind: gw, Object: "ns/g", Change: Created},
			{At: 3 * ms, RV: 7, Kind: gw, Object: "ns/g", Process: "dns", Change: Status},
			{At: 4 * ms, RV: 8, Kind: gw, Object: "ns/g", Process: "tls", Change: Status},
			{At: 20 * time.Second, RV: 9, Kind: gw, Object: "ns/g", Change: Updated},
		},
		Watched: map[string][]string{"tls": {gw}},
		Acts: []Act{{At: 4 * ms, Process: "tls", Kind: gw, Object: "ns/g",
			Reads: []Observed{{At: 1 * ms, Kind: gw, Object: "ns/g", RV: 5}}}},
	}
	sp := Space{Processes: []string{"tls"}, Kinds: []string{gw}, Horizon: time.Minute, MaxStale: 30 * time.Second}
	var revs []uint64
	for _, f := range rankedStale(Sweep(sp, tg, nil)) {
		if f.At > 20*time.Second && !slices.Contains(revs, f.Rev) {
			revs = append(revs, f.Rev)
		}
	}
	slices.Sort(revs)
	if want := []uint64{5, 7, 8}; !slices.Equal(revs, want) {
		t.Errorf("views restarted after the spec change ranked at revs %v, want %v", revs, want)
	}
}

// A change of status or metadata conflicts with what a process did when
// another process made it (a status the process may have copied, another
// manager's key), not when the process made it itself: tls read the
// Gateway (rv 5) and wrote its certificate (rv 8); then dns wrote its
// address (rv 10). A view of tls frozen at rv 8 (its own write: its
// answer is what tls went on from) and restarted right after rv 10 is
// causal; with rv 10 tls's own write, it is not.
func TestAnotherProcesssStatusWriteConflictsAndTheProcesssOwnDoesNot(t *testing.T) {
	const gw = "example/v1/Gateway"
	ms := time.Millisecond
	for _, c := range []struct {
		by   string
		want bool
	}{{"dns", true}, {"tls", false}} {
		tg := Targets{
			Writes: []Write{
				{At: 0, RV: 5, Kind: gw, Object: "ns/g", Change: Created},
				{At: 4 * ms, RV: 8, Kind: gw, Object: "ns/g", Process: "tls", Change: Status},
				{At: 20002 * ms, RV: 10, Kind: gw, Object: "ns/g", Process: c.by, Change: Status},
			},
			Acts: []Act{{At: 4 * ms, Process: "tls", Kind: gw, Object: "ns/g",
				Reads: []Observed{{At: 1 * ms, Kind: gw, Object: "ns/g", RV: 5}}}},
		}
		if got := newCausality(tg).causal("tls", tg.Writes[1], tg.Writes[2]); got != c.want {
			t.Errorf("status written by %s: causal %v, want %v", c.by, got, c.want)
		}
	}
}
