package verdict

import (
	"slices"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// Excuse is one case of what a verdict excuses: a difference between a
// faulted run and the fault-free runs of its workload that is not blamed on
// the faults (or, for a case of principle 3, an excuse withdrawn).
type Excuse struct {
	// Name is the case's stable short name: what a verdict's Excused lists.
	Name string
	// Principle is the principle of package reference's doc the case
	// follows: 1, what a real cluster leaves open is nondeterministic; 2, a
	// correct operator may be slowed, and ends where a slowed one ends; 3,
	// what the operator does to itself is never excused (the case withdraws
	// an excuse). 0: none of the three, a rule of the cluster or of how the
	// oracles divide their work (each such case is a finding about the
	// principles, and its Rule says what it stands on).
	Principle int
	// Oracles are the verdicts that apply it.
	Oracles []string
	// Rule is the case in one sentence.
	Rule string
	// References are the fault-free runs it adds ("": none; it reads the
	// runs every plan has, the plan's own fault-free run and the other
	// schedule's, or the faulted run alone).
	References string
}

// The names of the table's cases, as the code that applies each records it.
const (
	OtherSchedule     = "other-schedule"
	LearnedField      = "learned-field"
	RandomDraws       = "random-draws"
	SharedError       = "shared-error"
	ErrorMet          = "error-met"
	UserValue         = "user-value"
	UserDeletionRace  = "user-deletion-race"
	CyclePace         = "cycle-pace"
	Temporary         = "temporary"
	DeletionInFlight  = "deletion-in-progress"
	StopScheduled     = "stop-scheduled"
	LateStart         = "late-start"
	SameDowntime      = "same-downtime"
	SameBlindTime     = "same-blind-time"
	StopAfterCut      = "stop-after-cut"
	UserEditRace      = "user-edit-race"
	SlowedRollout     = "slowed-rollout"
	FrozenStatusField = "frozen-status"
	DelayedWork       = "delayed-work"
	ClusterBackoff    = "cluster-backoff"
	SameRestarts      = "same-restarts"
	QuietWorkload     = "quiet-workload"
	FrozenOutputs     = "frozen-outputs"
	CollectorChurn    = "collector-churn"
	LifetimeEnd       = "lifetime-end"
	NamespaceLifetime = "namespace-lifetime"
	StallStorm        = cluster.StallStormExcuse
)

// Excuses is the single statement of what a verdict excuses: every
// difference between a faulted run and the fault-free runs of its workload
// that a verdict does not blame on the faults is one of these cases, and a
// verdict that holds by one names it in its Excused (check.Verdict); a
// verdict that a case of principle 3 leaves violated names that case. The
// references each case adds are run lazily, in the order of this table
// (package reference), and only while a verdict would otherwise fire.
//
// What is compared at all is canon's equivalence (times, uids, generated
// names, resourceVersions, a pod's node and address, hash names and
// checksums by their content, validation errors by their cause, lists by
// their schema) and Options.Nondeterministic's fields: those are never a
// difference, and no case here. Nor are the kinds left unjudged (Leases,
// Events, history records), a plan cut at the work bound (not judged:
// reference/cut.go), or what writes-at-rest takes for no idle write (one
// that answers another object's change, one of a reconcile that fails).
var Excuses = []Excuse{
	// Principle 1: what a real cluster leaves open is learned.
	{Name: OtherSchedule, Principle: 1, Oracles: []string{world.Converges, world.UpdateSummaries},
		Rule:       "An object's existence, content or count of creates and deletes the faulted run shares with the fault-free run under the other schedule is the order in which the cluster delivered concurrent events.",
		References: "the fault-free run of the plan's workload under the other schedule (seed+2048 mod 4096), run for every plan"},
	{Name: LearnedField, Principle: 1, Oracles: []string{world.Converges},
		Rule: "A field in which the fault-free schedules (and the run with other random draws, when run) differ is learned as nondeterministic and not compared."},
	{Name: RandomDraws, Principle: 1, Oracles: []string{world.Converges, world.InterleavingsAgree, world.UpdateSummaries},
		Rule:       "An object or field that differs with the operator's random draws alone (the fault-free run of the plan's seed with other draws) is not compared, unless a run with the same draws differs there too.",
		References: "the fault-free run of the plan's seed with the operator's random draws from another seed, and that seed's run again with the same draws"},
	{Name: SharedError, Principle: 1, Oracles: []string{world.NoErrorAtRest},
		Rule: "An error at rest (by its cause) that a fault-free run of the workload ends in too on the same object is the workload's doing."},
	{Name: ErrorMet, Principle: 1, Oracles: []string{world.NoErrorAtRest},
		Rule: "An error at rest on an object a fault-free run ends failing on too, in another error it also met on the way, is where the schedule put the end in a retry's cycle of errors."},
	{Name: UserValue, Principle: 1, Oracles: []string{world.NoErrorAtRest},
		Rule: "An error at rest that quotes a value the workload wrote and left in place, which kube-apiserver (or a webhook) refused in a write or on which a fault-free run of the workload failed too (in any controller), is the user's invalid input: a correct operator fails on it until the user fixes it, and whether a run met it, in which controller, by which call, or never sent it (a guard fired first) raced the user's edit."},
	{Name: UserDeletionRace, Principle: 1, Oracles: []string{world.UpdateSummaries},
		Rule: "One lifetime more of an object (a create and a delete more, the deletion at or after the workload's first deletion, not a generated name's second) is the operator's write winning a race with the user's deletion that the fault-free runs lost."},
	{Name: CyclePace, Principle: 1, Oracles: []string{world.UpdateSummaries},
		Rule: "An object the fault-free run made and unmade twice or more is a retry cycle, and how many turns it takes in a run is the schedule's."},
	{Name: Temporary, Principle: 1, Oracles: []string{world.UpdateSummaries},
		Rule: "An object of generated name the operator created, that only it wrote (no controller of the cluster acted on it) and that is gone at the end, made and deleted as many more times as the fault-free runs' (a signing request, a lock), is a temporary of the operator's own: how many it makes, once per attempt (again after a crash cut the reconcile that made one), is its nondeterminism, and the end state is converges'."},
	{Name: DeletionInFlight, Principle: 1, Oracles: []string{world.Terminates},
		Rule: "An object still deleting at the end, for no longer than a fault-free run took to delete it (plus a second), is in progress where the end fell in its cycle, not stuck."},
	// Principle 2: a correct operator may be slowed.
	{Name: LateStart, Principle: 2, Oracles: []string{world.Converges},
		Rule:       "An end state the fault-free run whose operator starts right after one of the workload's steps ends in too is a delayed level-triggered operator's.",
		References: "the fault-free runs whose operator starts after the last step, then after each earlier step in time order, one at a time until one matches"},
	{Name: SameDowntime, Principle: 2, Oracles: []string{world.Converges, world.UpdateSummaries},
		Rule:       "An end state or count the fault-free run with the faulted run's process-down windows replayed as clean stops shows too is the time down's doing.",
		References: "the fault-free run of the same downtime (and blind time), the stop before each cut reconcile"},
	{Name: SameBlindTime, Principle: 2, Oracles: []string{world.Converges, world.UpdateSummaries},
		Rule:       "An end state or count the fault-free run with a time-driven process's views behind the world's writes (never its own) as the faulted run's were shows too is the blindness's doing.",
		References: "the fault-free run of the same downtime and blind time"},
	{Name: StopAfterCut, Principle: 2, Oracles: []string{world.Converges, world.UpdateSummaries},
		Rule:       "A crash that cut a reconcile may end as the clean stop after that reconcile (a graceful shutdown: all its writes), since kube-apiserver keeps a write whose response the dead client never read.",
		References: "the fault-free run of the same downtime with each stop after the reconciles its crash cut, run when the stop before does not excuse"},
	{Name: UserEditRace, Principle: 2, Oracles: []string{world.UpdateSummaries},
		Rule: "An object no fault-free run made, made once and deleted once at or after the workload's first edit (not a generated name's second), is what an operator delayed past the user's edit made for the old value and unmade once it saw the edit."},
	{Name: SlowedRollout, Principle: 2, Oracles: []string{world.UpdateSummaries},
		Rule: "One lifetime more of a pod, made from its controller owner's template and gone when the owner held another (a rolling update replaced it), deleted at or after the workload's first edit, where the owner held the templates the fault-free run's held, in that order, is an operator that applied the user's edit later than the pod was made."},
	{Name: FrozenStatusField, Principle: 2, Oracles: []string{world.Converges, world.InterleavingsAgree},
		Rule: "While a run ends failing on an object in an error a fault-free run ends in too (or either run in a refusal of the user's value, as frozen-outputs), the object's status fields that only reconciles of it that returned nil wrote (that controller's, or another of the operator's controllers' woken by what the first made) are not compared: whether one got through before the user's value landed is how far a slowed operator got."},
	{Name: DelayedWork, Principle: 2, Oracles: []string{world.WritesAtRest},
		Rule: "Writes at rest beyond the fault-free runs' that stop in the window's first half are work a fault delayed into it and finished there, not an operator left writing."},
	{Name: ClusterBackoff, Principle: 2, Oracles: []string{world.Converges, world.InterleavingsAgree},
		Rule: "An object one of the cluster's own controllers ends the run holding in back-off (its sync failed, its retry due after the end: client-go's per-item back-off doubles to 1000 s) is still being worked on: its status, the objects it owns and its owners' status are not compared, for a real cluster gets there only at the retry."},
	// Principle 3: what the operator does to itself is never excused.
	{Name: SameRestarts, Principle: 3, Oracles: []string{world.Converges, world.UpdateSummaries},
		Rule:       "A difference the same downtime or blind time excuses is blamed again when the fault-free run of the same restarts with no time down or blind shows it too: the restart made it.",
		References: "the fault-free run of the same restarts, each stop followed by a start at once, with no blind time"},
	{Name: QuietWorkload, Principle: 3, Oracles: []string{world.NoErrorAtRest},
		Rule:       "A shared error at rest is blamed again when the fault-free run with no generated workload ends in it too: the world the test sets up, not a user, made it.",
		References: "the fault-free run of the plan's seed with the script's steps only"},
	// No principle: rules of the cluster, and of the oracles' division.
	{Name: FrozenOutputs, Principle: 0, Oracles: []string{world.Converges, world.InterleavingsAgree, world.UpdateSummaries},
		Rule: "The outputs of a controller whose last reconcile of an object ends, as a fault-free run's does, in the same error, or in either run in kube-apiserver's refusal of the user's value (user-value), are not compared (nor counted once more made and kept): a failing reconcile keeps what the last one that got through saw, which raced the user's steps (informers of two kinds promise no order; a child created before the user's change of its immutable field, or after it)."},
	{Name: CollectorChurn, Principle: 0, Oracles: []string{world.UpdateSummaries},
		Rule: "A dependent created for (or re-owned to) an owner that was gone or being deleted, and collected before the heal's grace ended, is the garbage collector's rule at work and not counted."},
	{Name: LifetimeEnd, Principle: 0, Oracles: []string{world.UpdateSummaries},
		Rule: "One deletion more and no create more is a lifetime's end, a difference of end states that converges and terminates judge, not churn."},
	{Name: NamespaceLifetime, Principle: 0, Oracles: []string{world.Converges, world.UpdateSummaries},
		Rule: "What is in a namespace lives with it: an object there or missing where its namespace is being deleted at the end (the namespace controller deletes all it holds), or made and deleted no more times than its namespace was in the run (once in each incarnation at most: whether the cluster's kube-root-ca.crt, or the operator's object, was made in a short incarnation before its deletion is how far that incarnation got), differs as the namespace does, and is judged on the Namespace."},
	{Name: StopScheduled, Principle: 0, Oracles: []string{world.Terminates},
		Rule: "An object still deleting at the end whose stop the cluster has scheduled for after it (the kubelet's kill of a pod's containers at its grace period's end, the last of a chain of such deletions, each made after the one before went, that outlasts the heal budget) is in its grace period, not stuck."},
	{Name: StallStorm, Principle: 0, Oracles: []string{cluster.HotLoopProperty},
		Rule: "A storm of reconciles or writes while a watch of the cluster is stalled or behind, over within the hot-loop window of its end, is a controller fighting the collector at the API's pace as on a real cluster: a note, not a hot loop."},
}

// ExcuseNamed is the table's case of that name.
func ExcuseNamed(name string) (Excuse, bool) {
	i := slices.IndexFunc(Excuses, func(e Excuse) bool { return e.Name == name })
	if i < 0 {
		return Excuse{}, false
	}
	return Excuses[i], true
}
