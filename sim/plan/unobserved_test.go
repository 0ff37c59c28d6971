package plan

import (
	"slices"
	"testing"

	"pgregory.net/rapid"
)

// The systematic windows of the re-create run (recreateTargets): one per
// change that is not a deletion, each until the object's next change (0:
// its deletion, or none: the heal), and from each creation until each later
// change of its lifetime; the windows from a creation until the next change
// first, in commit order (from=0 for an object's first creation), then the
// Cluster's first lifetime unseen, then the window from its deletion
// starting.
func TestUnobservedWindowsStartWithTheCreations(t *testing.T) {
	var got []string
	for _, f := range UnobservedWindows(recreateTargets(), "op") {
		got = append(got, f.String())
	}
	want := []string{
		"unobserved process=op kind=db.example/v1/Cluster object=ns/a from=0 until=20",
		"unobserved process=op kind=/v1/PersistentVolumeClaim object=ns/a-data from=0 until=0",
		"unobserved process=op kind=db.example/v1/Cluster object=ns/a from=30 until=0",
		"unobserved process=op kind=/v1/PersistentVolumeClaim object=ns/a-data from=31 until=0",
		"unobserved process=op kind=/v1/PersistentVolumeClaim object=ns/b-data from=0 until=0",
		// The Cluster's first lifetime unseen until its deletion.
		"unobserved process=op kind=db.example/v1/Cluster object=ns/a from=0 until=0",
		"unobserved process=op kind=db.example/v1/Cluster object=ns/a from=20 until=0",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("windows\n%q\nwant\n%q", got, want)
	}
	for _, f := range UnobservedWindows(recreateTargets(), "op") {
		if err := (&Plan{Faults: []Fault{f}}).Validate(); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	// A process that caches no PVC has no window on one; one the run
	// never saw cache anything has none (Watched lists it with no kind).
	tg := recreateTargets()
	tg.Watched = map[string][]string{"op": {"db.example/v1/Cluster"}, "other": nil}
	if n := len(UnobservedWindows(tg, "op")); n != 4 {
		t.Errorf("%d windows of a process that caches Clusters only, want 4", n)
	}
	if ws := UnobservedWindows(tg, "other"); len(ws) != 0 {
		t.Errorf("windows of a process that caches nothing: %v", ws)
	}
}

// A drawn unobserved fault is aimed at the reference run: an object the
// process caches, from one of its changes that is not a deletion until a
// later change of the same lifetime (before its next deletion) or 0. With
// no writes it draws nothing (the zero Fault).
func TestADrawnUnobservedFaultStaysInsideOneLifetimeOfAnObject(t *testing.T) {
	tg, sp := recreateTargets(), recreateSpace()
	rapid.Check(t, func(t *rapid.T) {
		f := drawUnobserved(t, sp, tg, "op")
		if err := (&Plan{Faults: []Fault{f}}).Validate(); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var writes []Write
		for _, w := range tg.Writes {
			if w.Kind == f.Resource && w.Object == f.Object {
				writes = append(writes, w)
			}
		}
		from := 0 // the index of the first change withheld
		if f.FromRev != 0 {
			from = slices.IndexFunc(writes, func(w Write) bool { return w.RV == f.FromRev })
		}
		if from < 0 || writes[from].Change == Deleted || (f.FromRev == 0 && writes[0].Change != Created) {
			t.Fatalf("%s: from= is no change of %s that is not a deletion", f, f.Object)
		}
		for _, w := range writes[from+1:] {
			if w.RV == f.UntilRev {
				return
			}
			if w.Change == Deleted {
				break
			}
		}
		if f.UntilRev != 0 {
			t.Fatalf("%s: until= is no later change of %s before its deletion", f, f.Object)
		}
	})
	rapid.Check(t, func(t *rapid.T) {
		if f := drawUnobserved(t, sp, Targets{}, "op"); f.Kind != "" {
			t.Fatalf("with no writes a fault was drawn: %s", f)
		}
	})
}

// A Pod created, then scheduled, started and finished: the windows from its
// creation hide it until each later state (the nearest first), after the
// one until its next change and the one over its whole life; then one from
// each later change until the next.
func TestUnobservedWindowsHideACreationUntilEachLaterState(t *testing.T) {
	const pod = "/v1/Pod"
	tg := Targets{Writes: []Write{
		{RV: 10, Kind: pod, Object: "ops/p", Change: Created},
		{RV: 11, Kind: pod, Object: "ops/p", Change: Status},
		{RV: 12, Kind: pod, Object: "ops/p", Change: Status},
		{RV: 15, Kind: pod, Object: "ops/p", Change: Status},
	}}
	var got []string
	for _, f := range UnobservedWindows(tg, "op") {
		got = append(got, f.String())
	}
	want := []string{
		"unobserved process=op kind=/v1/Pod object=ops/p from=0 until=11",
		"unobserved process=op kind=/v1/Pod object=ops/p from=0 until=0",
		"unobserved process=op kind=/v1/Pod object=ops/p from=0 until=12",
		"unobserved process=op kind=/v1/Pod object=ops/p from=0 until=15",
		"unobserved process=op kind=/v1/Pod object=ops/p from=11 until=12",
		"unobserved process=op kind=/v1/Pod object=ops/p from=12 until=15",
		"unobserved process=op kind=/v1/Pod object=ops/p from=15 until=0",
	}
	if !slices.Equal(got, want) {
		t.Fatalf("windows\n%q\nwant\n%q", got, want)
	}
}
