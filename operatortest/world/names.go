package world

// The generic oracles: on by default, judged on every run with no code of the
// test's (Options.Disable turns one off by name). The kernel adds its own
// verdicts to every run: hot-loop (a controller reconciling or writing one
// object 20 times a second for 10 s: not quiescent), livelock and
// reconcile-panic.
const (
	// Converges: the objects of the judged kinds at the end of a run are one
	// of the end states of the fault-free runs of the same workload under two
	// schedules (Sieve's end-state oracle), modulo what a real cluster makes
	// nondeterministic (equivalence.go) and the fields those runs differ in.
	Converges = "converges"
	// Terminates: nothing is left deleting (a stuck finalizer, a namespace
	// stuck Terminating) at the end of the heal budget.
	Terminates = "terminates"
	// NoOrphans: no object of the judged kinds that the collector collects
	// has an ownerReference to an owner that is gone, once the garbage
	// collector has had the heal budget.
	NoOrphans = "no-orphans"
	// NoErrorAtRest: no object's last reconcile of the run ended in an error
	// that no fault-free run of the same workload also ends in: a controller
	// still failing at the end of the heal budget is stuck, unless the
	// workload left it so (a dependency the user deleted). A transient error
	// that a retry got past is no violation, nor is one of an incarnation
	// that crashed since (the next one starts afresh, and reconciles the
	// object again if it still exists).
	NoErrorAtRest = "no-error-at-rest"
	// InterleavingsAgree: the fault-free runs of the workload under two
	// schedules (the plan's seed and another) end in the same state, modulo
	// what a real cluster makes nondeterministic (Kamera's check that
	// converged states agree across interleavings). A violation names a race
	// of the controllers with each other or with the workload, whatever the
	// faults, and the suspect schedule when the faulted run ends as the other.
	InterleavingsAgree = "interleavings-agree"
	// UpdateSummaries: no object of the judged kinds was created or deleted
	// more times than in every fault-free run of the same workload (Sieve's
	// update summaries): a fault that makes an operator delete and re-create
	// what it manages shows here even when the end state agrees. Fewer is no
	// violation: a fault may delay an operator past the workload's deletion
	// of what it would have made. A dependent created for an owner that was
	// gone or being deleted and collected before the heal is the garbage
	// collector's rule at work, noted and not counted.
	UpdateSummaries = "update-summaries"
)

// oracleNames are the generic oracles' names, as Options.Disable takes them
// (the kernel's verdicts are named in KernelVerdicts).
var oracleNames = []string{Converges, UpdateSummaries, InterleavingsAgree, Terminates, NoOrphans, NoErrorAtRest, WritesAtRest}

// WritesAtRest: the operator writes nothing at rest that it would not
// write on a real cluster at rest: no write that changes nothing, no
// timestamp refreshed on every reconcile, no field flipped back and
// forth, and no more writes than the fault-free run makes over the same
// window (atrest.go).
const WritesAtRest = "writes-at-rest"
