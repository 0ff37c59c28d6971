package plan

import (
	"fmt"
	"testing"
	"time"
)

// A reference run: the user deletes a Cluster at 5s (its deletionTimestamp,
// then its removal), the operator deletes the Cluster's PVC at 5.1s, the user
// creates the Cluster again at 20s and the operator its new PVC at 20.1s.
func recreateTargets() Targets {
	const cluster, pvc = "db.example/v1/Cluster", "/v1/PersistentVolumeClaim"
	return Targets{
		Writes: []Write{
			{At: 1 * time.Second, RV: 10, Kind: cluster, Object: "ns/a", Change: Created},
			{At: 1100 * time.Millisecond, RV: 11, Kind: pvc, Object: "ns/a-data", Process: "op", Change: Created},
			{At: 5 * time.Second, RV: 20, Kind: cluster, Object: "ns/a", Change: Deleting},
			{At: 5100 * time.Millisecond, RV: 21, Kind: pvc, Object: "ns/a-data", Process: "op", Change: Deleted},
			{At: 5200 * time.Millisecond, RV: 22, Kind: cluster, Object: "ns/a", Change: Deleted},
			{At: 20 * time.Second, RV: 30, Kind: cluster, Object: "ns/a", Change: Created},
			{At: 20100 * time.Millisecond, RV: 31, Kind: pvc, Object: "ns/a-data", Process: "op", Change: Created},
			{At: 55 * time.Second, RV: 40, Kind: pvc, Object: "ns/b-data", Process: "op", Change: Created},
		},
		Watched: map[string][]string{"op": {cluster, pvc}},
		Written: map[string]int{"op": 4},
	}
}

func recreateSpace() Space {
	return Space{Processes: []string{"op"}, Kinds: []string{"db.example/v1/Cluster", "/v1/PersistentVolumeClaim"},
		Horizon: time.Minute, MaxStale: 30 * time.Second, MaxWrite: 10}
}

// The first stale pairs are the pasts of the objects, each restarting right
// after the object's last change: the Cluster created again at 20s seen as
// the old one deleting (rev 20: the study's pair), then as the old one alive
// (rev 10); the PVC created again at 20.1s seen as the old one (rev 11).
// Each view catches up 1ms after the restart, racing what the process does
// with the past. Then the pairs of two changes, the view behind for
// MaxStale: frozen just after the old Cluster started being deleted, the
// restart right after the new Cluster was created.
func TestTheSweepAimsAStaleViewAtTwoChanges(t *testing.T) {
	var stale []Fault
	for _, tp := range Sweep(recreateSpace(), recreateTargets(), nil) {
		if tp.Class == SweepStale {
			stale = append(stale, tp.Faults[0])
		}
	}
	const cluster, pvc = "db.example/v1/Cluster", "/v1/PersistentVolumeClaim"
	ms := time.Millisecond
	want := []Fault{
		{Kind: Stale, Process: "op", At: 20001 * ms, Age: ms, Rev: 20, Resource: cluster},
		{Kind: Stale, Process: "op", At: 20001 * ms, Age: ms, Rev: 10, Resource: cluster},
		{Kind: Stale, Process: "op", At: 20101 * ms, Age: ms, Rev: 11, Resource: pvc},
		{Kind: Stale, Process: "op", At: 20001 * ms, Age: 30 * time.Second, Rev: 20, Resource: cluster},
	}
	if len(stale) < len(want) {
		t.Fatalf("%d stale pairs, want at least %d", len(stale), len(want))
	}
	for i, f := range want {
		if stale[i] != f {
			t.Errorf("stale pair %d is %s, want %s", i+1, stale[i], f)
		}
	}
	// The restart after the PVC created at 55s would come after the heal
	// (55s + 10s of CrashLoopBackOff > 1m): never drawn.
	for _, f := range stale {
		if f.At+10*time.Second >= time.Minute {
			t.Errorf("%s restarts after the heal", f)
		}
	}
	// Every pair is there with its frozen point before and after, scoped to
	// A's kind and to every kind, each once.
	seen := map[Fault]bool{}
	for _, f := range stale {
		if seen[f] {
			t.Errorf("%s twice", f)
		}
		seen[f] = true
	}
	if !seen[Fault{Kind: Stale, Process: "op", At: 20*time.Second + time.Millisecond, Age: 30 * time.Second, Rev: 19}] {
		t.Errorf("no pair with the frozen point just before A, for every kind")
	}
}

// Crashes come after each write, the intermediate ones first (ranked: a
// crash there leaves an intermediate state); the classes are interleaved,
// the ranked plans first, so that a small budget covers each.
func TestTheSweepCrashesAfterEachWriteAndInterleavesTheClasses(t *testing.T) {
	all := Sweep(recreateSpace(), recreateTargets(), map[string][]int{"op": {3}})
	var crashes []int
	for _, tp := range all {
		if tp.Class == SweepCrashes {
			crashes = append(crashes, tp.Faults[0].Write)
		}
	}
	if want := []int{3, 1, 2, 4}; len(crashes) != len(want) || crashes[0] != 3 || crashes[3] != 4 {
		t.Errorf("crashes after writes %v, want %v", crashes, want)
	}
	if len(all) < 4 || !all[0].Ranked || all[0].Faults[0].Write != 3 || all[1].Class != SweepCrashes || all[2].Class != SweepStale || all[3].Class != SweepHolds {
		t.Errorf("the sweep begins %v, want the ranked crash, then one of each class in turn", all[:min(4, len(all))])
	}
	// A hold starts just before a change and lasts until the heal, a
	// creation first.
	for _, tp := range all {
		if tp.Class == SweepHolds {
			f := tp.Faults[0]
			if f.From != 1*time.Second-time.Millisecond || f.Until != time.Minute {
				t.Errorf("the first hold is %s, want from 999ms (the first creation) to the heal", f)
			}
			break
		}
	}
}

// A profile without stale restarts gets no stale pair.
func TestTheSweepFollowsTheClasses(t *testing.T) {
	sp := recreateSpace()
	sp.Classes = []FaultKind{Crash}
	for _, tp := range Sweep(sp, recreateTargets(), nil) {
		if tp.Class != SweepCrashes {
			t.Fatalf("a %s plan with only crashes allowed", tp.Class)
		}
	}
}

// A hot loop: the operator makes a request Secret, rewrites its key pair's
// Secret and deletes the request, 400 times in a run (examples/patterns'
// key-pair twin wrote 3,252 times: 2,887,050 pairs of two changes for each
// stale view, and ranking them ran past 15 minutes). Each view examines at
// most maxStalePairs of its pairs, the first in the sweep's order (a view
// frozen at a deletion first): the ranking is bounded by what any budget
// could take, counted here in pairs, not timed.
func TestAHotLoopsStalePairsAreBoundedInTheSweepsOrder(t *testing.T) {
	const secret = "/v1/Secret"
	var tg Targets
	tg.Watched = map[string][]string{"op": {secret}}
	rv := uint64(1)
	write := func(at time.Duration, object string, c Change) {
		rv++
		tg.Writes = append(tg.Writes, Write{At: at, RV: rv, Kind: secret, Object: object, Process: "op", Change: c})
	}
	for i := range 400 {
		at := time.Duration(i) * 100 * time.Millisecond
		req := fmt.Sprintf("ns/req-%d", i)
		write(at, req, Created)
		tg.Acts = append(tg.Acts, Act{At: at + time.Millisecond, Process: "op", Kind: secret, Object: "ns/tls",
			Reads: []Observed{{At: at, Kind: secret, Object: req, RV: rv}}})
		write(at+time.Millisecond, "ns/tls", Updated)
		write(at+2*time.Millisecond, req, Deleted)
	}
	sp := Space{Processes: []string{"op"}, Kinds: []string{secret}, Horizon: 2 * time.Minute, MaxStale: 30 * time.Second}
	last := sp.Horizon - sp.withDefaults().RestartDelay - time.Millisecond // the last crash whose restart comes before the heal
	all := 0
	for i, a := range tg.Writes {
		for _, b := range tg.Writes[i+1:] {
			if b.At > a.At && b.At+time.Millisecond <= last && (b.Change == Created || b.Change == Deleted) {
				all++
			}
		}
	}
	if all <= 4*maxStalePairs {
		t.Fatalf("the trace makes %d pairs of two changes: too few to test the bound", all)
	}
	var pairs []Fault // the pairs' plans: a view behind for MaxStale (the objects' pasts catch up in 1ms)
	for _, tp := range Sweep(sp, tg, nil) {
		if tp.Class == SweepStale && tp.Faults[0].Age == sp.MaxStale {
			pairs = append(pairs, tp.Faults[0])
		}
	}
	if len(pairs) > 4*maxStalePairs {
		t.Fatalf("%d stale pairs ranked of the trace's %d for each view, want at most %d for each of the four views", len(pairs), all, maxStalePairs)
	}
	// The first: frozen just after the first request's deletion (a deletion
	// first), restarted right after the next request's creation.
	if want := (Fault{Kind: Stale, Process: "op", At: 101 * time.Millisecond, Age: sp.MaxStale, Rev: 4, Resource: secret}); len(pairs) == 0 || pairs[0] != want {
		t.Fatalf("the first stale pair is %v, want %v", pairs[:min(1, len(pairs))], want)
	}
	t.Logf("%d pairs of two changes for each view; %d ranked in all", all, len(pairs))
}
