package verdict

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// Which run made the extra writes. A comparing verdict (converges,
// update-summaries) finds that a faulted run and a fault-free run of the same
// workload differ; it does not know which of the two did what a correct
// operator does (a fault-free run that made a child twice, or never made
// one its owner calls for, is as wrong as a faulted run that did), and so
// it blames neither. What it knows is which run made the creates and
// deletes of the object that the other run did not make, and it says that
// in its detail, in one form (extraWrites): "the extra create is in this
// run", "the extra create is in the fault-free run of the same workload". A
// reader, and the story (the fault-free run's write this run never made,
// and the reconcile that made it: package story's absences), start from
// there.

// thisRun is how a verdict names the run it judges.
const thisRun = "this run"

// extraWrites says which run made the creates and deletes of an object that
// the other run did not ("" when they made as many): got's are this run's,
// ref's those of the run named refName. One extra write is named by its verb
// ("the extra create is in this run"), more by their counts ("the extra
// writes (2 creates, 1 delete) are in ...").
func extraWrites(got, ref createsDeletes, refName string) string {
	var ours, theirs []string
	for _, c := range []struct {
		verb      string
		this, ref int
	}{{"create", got.Creates, ref.Creates}, {"delete", got.deletes, ref.deletes}} {
		n := c.this - c.ref
		switch {
		case n > 0:
			ours = append(ours, fmt.Sprintf("%d %s%s", n, c.verb, world.Plural(n)))
		case n < 0:
			theirs = append(theirs, fmt.Sprintf("%d %s%s", -n, c.verb, world.Plural(-n)))
		}
	}
	var parts []string
	for _, e := range []struct {
		writes []string
		in     string
	}{{ours, thisRun}, {theirs, refName}} {
		switch {
		case len(e.writes) == 1 && strings.HasPrefix(e.writes[0], "1 "):
			parts = append(parts, fmt.Sprintf("the extra %s is in %s", strings.TrimPrefix(e.writes[0], "1 "), e.in))
		case len(e.writes) > 0:
			parts = append(parts, fmt.Sprintf("the extra writes (%s) are in %s", strings.Join(e.writes, ", "), e.in))
		}
	}
	return strings.Join(parts, ", ")
}

// ExtraInOtherRunOnly reports whether detail, a verdict's, says that every
// extra write it names is in a run other than this one (extraWrites' form):
// the run judged made none that the other did not.
func ExtraInOtherRunOnly(detail string) bool {
	var other bool
	for _, s := range strings.Split(detail, "the extra ")[1:] {
		_, in, ok := strings.Cut(s, " in ")
		if !ok {
			continue
		}
		if strings.HasPrefix(in, thisRun) {
			return false
		}
		other = true
	}
	return other
}

// madeApart is what converges adds to an object's existence in one run and
// not the other: how often each run made and unmade it, and which made the
// extra writes (" (created 2 times, deleted 1 time there, created 1 time,
// deleted 1 time here: the extra create is in ...)"), or "" when the two
// runs' logs count as many creates and deletes of it.
func madeApart(gvk schema.GroupVersionKind, k string, got *Snapshot, ref named) string {
	var g, r createsDeletes
	if c := got.Changes[gvk][k]; c != nil {
		g = *c
	}
	if c := ref.snap.Changes[gvk][k]; c != nil {
		r = *c
	}
	extra := extraWrites(g, r, ref.name)
	if extra == "" {
		return ""
	}
	return fmt.Sprintf(" (%s there, %s here: %s)", r, g, extra)
}
