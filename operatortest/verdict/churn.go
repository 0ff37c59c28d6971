package verdict

import (
	"regexp"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Churn, both ways. update-summaries lets a faulted run make fewer objects
// than the fault-free runs (a delayed operator never made what the user
// deleted first). The same race has another side: whether an operator's
// first write lands before or after the user's deletion is the schedule's
// doing on a real cluster, and a fault shifts the schedule. When the
// fault-free runs lost that race (the user's deletion came first, nothing was
// made) and the faulted run won it, the faulted run makes the object and
// then, once it sees the deletion, unmakes it (a finalizer's cleanup of its
// external record, the collector's deletion of a dependent): one lifetime
// more, and no trace of it at the end. That is not churn either. It is told
// from churn by all of: no fault-free run ever made the object, the faulted
// run made it once and deleted it once, the deletion came at or after the
// workload's first deletion, and the object is not a generated name's second
// or later, live or deleted (nightly-*2, nightly-*deleted2: one more object of
// a prefix than the fault-free runs made is a count the race does not
// explain; a duplicate Job has run).
//
// The race has a third side: the user deletes an object the operator made
// (revokes a RoleBinding it keeps) while the owner's deletion is on its way,
// and an operator reading a lagging cache makes it once more before it sees
// the owner go, then unmakes it. One lifetime more than the fault-free runs
// made, ended at or after the user's first deletion (a workload step's, a
// domain step's or a script's), is that race too: the fault-free count plus
// one each way.

//
// And a fourth, the user's edit: the user changes a value the operator's
// children follow (scales a cluster down) while an operator delayed by a
// fault still acts on the old one (its write of the old size committed, then
// it died before it saw the edit), so a built-in controller makes what the
// old value calls for (a StatefulSet's pod and claim) and the operator,
// once it sees the edit, unmakes it. An object no fault-free run made or
// deleted, made once and deleted once, the deletion at or after the user's
// first edit that landed (a workload step's mutation, or an admin's patch or
// update), and not a generated name's second or later, is that race.

// ordinal matches a canonical generated name past the first of its prefix,
// live or deleted (generated.go).
var ordinal = regexp.MustCompile(`\*(deleted)?\d+$`)

// raced reports whether got's changes g of object k, against the most of
// any fault-free run, are one lifetime of the race with the user's deletion
// (userDeleted: when the workload first deleted an object; -1: never).
func raced(k string, g, most createsDeletes, userDeleted time.Duration) bool {
	return g.Creates == most.Creates+1 && g.deletes == most.deletes+1 &&
		userDeleted >= 0 && g.deleted >= userDeleted && !ordinal.MatchString(k)
}

// firstUserDeletion is the instant of the workload's first deletion (a
// delete, or a re-creation's delete, or a deletion the admin made: a domain
// or scripted step's) that landed, or -1.
func firstUserDeletion(steps []trace.Step) time.Duration {
	for _, s := range steps {
		if s.Op == "action" && s.Process == "" && (s.Object == world.ActionDelete || s.Object == world.ActionRecreate) && s.Result == "ok" ||
			s.Process == "admin" && s.Op == "delete" && s.Result == "ok" {
			return s.At
		}
	}
	return -1
}

// graceOf is how long after the heal a dependent re-created for a gone owner
// is still the faults' doing in a run of p: healGrace, plus the longest
// informer lag or API latency p draws. The heal ends the faults for what
// happens after it, not for what they already hold: an owner's deletion
// committed just before the heal is still delivered that much later, and a
// reconcile that read its cache before then re-creates the child after the
// heal (seen: a deletion at the heal under a lag of 1.003 s, the child
// re-created 1.003 s after it).
func graceOf(p *plan.Plan) time.Duration {
	g := healGrace
	if p == nil {
		return g
	}
	for _, f := range p.Faults {
		if f.Kind == plan.Lag || f.Kind == plan.Latency {
			g = max(g, healGrace+f.Max)
		}
	}
	return g
}

// cycling reports whether an object's changes, against the most of
// any fault-free run, are a cycle's: the fault-free run already made and
// unmade the object over and over (two lifetimes ended, or more: an
// operator that retries a failing install by uninstalling and waiting, as
// rukpak does). How many turns a cycle takes in the judged window, and
// whether the end falls in a turn's made or unmade half, depend on the
// schedule, as a backoff's timing does: the end state is converges' to
// judge, and a cycle the faults make faster is a hot loop (the hot-loop
// verdict), not a count.
func cycling(most createsDeletes) bool { return most.deletes >= 2 }

// finished reports whether got's changes g of an object, against the most
// of any fault-free run, are one lifetime's end more and nothing else: one
// Deleted event more, no creation more. A deletion a fault-free run began
// and never saw end (a finalizer left on it: the bug that run shows, or
// work still going at its end) that ends here, a child the faulted run's
// cleanup got to and the fault-free run's, forbidden, did not: the object
// ended here and lives on there. That is a difference of end states, which
// converges and terminates judge, not a write repeated; churn is a
// lifetime more.
func finished(g, most createsDeletes) bool {
	return g.Creates <= most.Creates && g.deletes == most.deletes+1
}

// edited reports whether got's changes g of object k, which no fault-free
// run made or deleted (most), are one lifetime of the race with the user's
// edit (userEdited: when the workload first changed an object; -1: never).
func edited(k string, g, most createsDeletes, userEdited time.Duration) bool {
	return most.Creates == 0 && most.deletes == 0 && g.Creates == 1 && g.deletes == 1 &&
		userEdited >= 0 && g.deleted >= userEdited && !ordinal.MatchString(k)
}

// firstUserEdit is the instant of the workload's first change of an object
// (a mutation, or a patch or update the admin made: a domain or scripted
// step's) that landed, or -1.
func firstUserEdit(steps []trace.Step) time.Duration {
	for _, s := range steps {
		if s.Op == "action" && s.Process == "" && (s.Object == world.ActionMutate || s.Object == world.ActionPatch) && s.Result == "ok" ||
			s.Process == "admin" && (s.Op == "patch" || s.Op == "update") && s.Result == "ok" {
			return s.At
		}
	}
	return -1
}
