// Package world is what the world under test is: the Options a test gives
// (its managers, CRDs, seed objects, workload, domain steps, systems,
// properties and fault profile) and everything they hold, the world built
// from them (Build, the one place a world is made and checked: New reads
// the CRDs and webhooks, the kinds judged and collected and the plan space,
// a WorkloadSource gives the workload, the faults are narrowed, and what the
// Options ask that the world can never do is refused), and one run of a plan in it (RunPlan: the
// cluster made in a testing/synctest bubble, the built-in controllers of
// the kinds it holds, the operator's processes, the user's steps, judged by
// what the caller gives: Judging). It knows nothing of the verdicts,
// the references or the search; packages verdict, reference and search
// build on it, and operatortest gives its types to authors by their names.
//
// # Properties
//
// A Property's Check gets the History of a run: the final state (Get,
// List), the trace (Steps: every call, reconcile, result, log line, crash),
// and History.Run(), whose Log is the apiserver's watch log, every committed
// change in order, with its instant (ExampleHistory_Run judges it). A Check
// returns ViolatedAt(at, err) to place its violation at the instant it saw
// it; a plain error places it at the run's end.
//
// # Replicas
//
// Manager.Replicas runs a manager as several pods (processes Name-0,
// Name-1, ...) that elect a leader through a Lease as controller-runtime's
// manager does with LeaderElection on: only the leader runs its controllers,
// a leader that cannot renew for RenewDeadline exits, and a replica takes
// over once the Lease has expired (LeaseDuration after it last saw it
// renewed). Crashes and stale restarts then also land on leaders and on
// failovers: Sieve's stale-state pattern is at its sharpest on a new leader.
// NoLeaderElection runs every replica's controllers at once.
//
// Manager.Deployment makes a manager the pod of a Deployment that another
// of the test's managers keeps (an operator that runs a worker per tenant:
// config-sync's reconciler-manager and its ns-reconcilers): it starts
// StartDelay after the Deployment exists and stops when it goes or starts
// being deleted, and its ServiceAccount's rights are whatever RBAC the
// world holds then (scenarios/reposync).
//
// # Randomness
//
// Each run seeds what code in the process draws at random from its plan's
// seed (wallclock.SeedRandom): crypto/rand and every implicit use of it in
// crypto/... (testing/cryptotest), google/uuid, math/rand's global
// functions and k8s.io/apimachinery/pkg/util/rand. Every run of a plan draws
// the same values; the two schedules interleavings-agree compares draw the
// same ones (and meet the same generated-name suffixes and pod durations:
// see Generic oracles); and every start of an operator's process starts them over, so
// that a value drawn and lost in a crash is drawn again after the restart, as
// the fault-free run drew it (reference/random.go says what that gives up).
//
// Seeding makes a run repeatable, not two runs alike: two schedules, or a
// faulted run and its reference, may draw a different number of values before
// the one an object keeps (a Secret's create that raced the user's
// re-creation of its owner draws once more). A value drawn at random differs
// between every two runs on a real cluster, so the fields that differ with
// the randomness alone are learned: when converges or interleavings-agree
// finds a difference, the fault-free run of the plan's seed and workload is
// made again with the operator's random draws from another seed (the
// environment and the schedule's seed unchanged), kept with the other
// references, and the fields in which it differs from the plan's own
// fault-free run are compared by neither oracle; the verdict's note says
// "differs with the randomness alone" and names them. Most plans never need
// that run (it costs one run where a difference was found).
//
// # Adding your own: domain steps, systems, properties, workload and fault control
//
// What an operator's domain needs beyond the seed objects, an author adds
// in Options (steps.go), as the catalogue's entries do:
//
//   - Domain steps (Workload.Domain): a named step with parameters, drawn
//     by the generator beside the steps over the seed objects, written in
//     the plan's text (`at 12s publish version=1.2`), shrunk and replayed as
//     any step. Params lists each parameter's values (Draw draws ones that
//     depend on each other); Within, Min and Max bound its time and count
//     (Min 1: in every plan, as the version a pipeline promotes; From:
//     not before the world has started up); After draws it within Within
//     after another step (a RoleBinding revoked within 3 s of its
//     RepoSync's deletion); Do
//     runs it as the workload's user (the admin client, the run's virtual
//     time). A key a plan gives that the step does not declare is refused
//     before the run; a step named as one of the workload's own, unnamed or
//     without Do is refused with one line.
//   - Outside systems (Options.Systems, systems.go): a model of what the
//     operator talks to outside the cluster (a release store, a catalog, a
//     promotion target), made once a run by New before time starts, on the
//     run's virtual clock, admin client and a random stream of the plan's
//     seed; every start of a manager (Manager.SetupWithSystems), every
//     domain step (StepEnv.System) and every property (History.System) of
//     the run gets that one instance. Its Faults are domain steps drawn in
//     the fault phase that act on it (a target that fails the next
//     attempt). A system the API server calls on the operator's requests
//     (an admission webhook) refuses one through SystemEnv.RefuseNext, so
//     that the refusal is the server's answer in the trace, and ends its
//     faults at the heal (SystemEnv.Healed; serverfaults.go, whose doc
//     shows how an author writes one; scenarios/kopf's Webhook and Wire
//     are written so). A failure's explanation names a system's fault as
//     that system's. What a system does goes into the run's trace as steps
//     of its own process (SystemEnv.Trace: a promotion taken, a release
//     written), shown in every timeline and pointed at by a picture when a
//     violation names its object.
//   - History objects (Options.History, history.go): objects of a kind and
//     labels that record what happened rather than what the operator
//     maintains (Helm's release revisions, Secrets labelled owner=helm): a
//     crash or another schedule makes one more, or marks one failed, so
//     converges, interleavings-agree and update-summaries leave them out and
//     the test's own properties judge them (scenarios/clusterextension's
//     release-settles). Declared by the author, as Nondeterministic is.
//   - Seed objects keep their status (Options.Objects): a status that a
//     status subresource drops from the create is written after it, as the
//     controller owning it had written it before the test began.
//   - Domain properties (Options.Properties): a Check over the run's
//     History (end state, trace, watch log); FromCheck adapts a property of
//     the kernel (sim/check: at-most-once, terminates, Eventually).
//   - Control of the generated workload (Workload.Objects, Workload.Steps):
//     which seed objects it touches and which kinds of step it draws
//     (mutations without deletions: Steps: []StepKind{Mutations}; only the
//     domain's steps: Steps: []StepKind{} with Domain), so that no author
//     has to switch the whole workload off (NoWorkload). NoWorkload leaves
//     the domain steps drawn.
//   - The fault profile (Options.Faults; package faults, reference/faults.go): the classes drawn,
//     the operator processes they fall on, the kinds whose caches lag or
//     are held (no lag of every kind at once then; any kind the apiserver
//     serves), the requests the drawn API errors aim at, and API faults of
//     the author's own among the templates (a 422 on one field of a PATCH,
//     as a too-large annotation gets), so that an exploration spends its
//     plans where a bug can be. A name the world does not have is refused
//     with one line; a plan's text replays as written whatever the profile.
//   - API errors drawn by default (package faults, aim.go): one a plan, aimed at one
//     write of an operator process in the plan's fault-free run (a 500, a
//     429 with Retry-After, a write whose response is lost, so that its
//     retry meets AlreadyExists or a 409), failing that one request.
//
// Replay runs one plan judged as Run judges it and returns its verdicts,
// trace hash, timeline, story and final state (Replayed.Final, a History:
// the objects at the end and every committed version before): the
// catalogue's pages, `ctrlsim replay`, and a test that pins what one plan
// does in more detail than a property (the scenario packages' specs of
// their seeds). Outside a go test binary (a command such as ctrlsim run),
// internal/outside runs Explore or Replay as a test of the program.
//
// # Known gaps
//
//   - A Setup that spins without blocking, or blocks while a goroutine of
//     the bubble keeps a timer for ever, is not bounded (the bubble's time
//     does not move, or it never deadlocks): go test's -timeout ends it.
//     After a blocked Setup the world's goroutines stay blocked, and what
//     the bubble's cleanups would restore (KUBECONFIG, http.DefaultTransport
//     routed to the simulated cluster: wallclock) stays set for the rest of
//     the test binary (TestABlockedSetupLeavesKubeconfigSetForTheRestOfTheBinary).
//   - The fault profile and the API errors drawn by default have the Known
//     gaps of package faults (no 503 drawn, no 409 on its own, writes
//     only: operatortest/faults.TestTheAPIErrorsDrawnAreTheOperatorsOwnWritesOfTheFaultFreeRun;
//     a template's kind needs a Go type or a CRD given:
//     operatortest/faults.TestARunTimeCRDsResourceAndTheWorkersClassAreRefused).
//   - Randomness: math/rand/v2's global functions (and Go map order,
//     hash/maphash) read the runtime's per-thread generator, which nothing in
//     the process can seed; an operator that draws from them gives two trace
//     hashes for one plan, which a replay shows
//     (wallclock.TestMathRandV2GlobalsCannotFollowTheSeedAndAreDetected). The process's
//     seeded sources are shared by every process of the world: an operator
//     whose draws interleave with another manager's, or whose number of draws
//     before a value differs between two runs (a Secret re-created after the
//     workload deleted its owner while the cache lagged), writes different
//     values in the two runs; those fields are learned from one more run with
//     other draws (see Randomness), one sample: a field that the other draws
//     happen to leave alone in that run is still compared, and a field whose
//     value the draws change through timing (math/rand's jitter of a retry)
//     is learned as random too. A parallel test (t.Parallel) cannot seed them
//     and fails with one line (wallclock.TestAParallelTestCannotSeedRandomness).
//   - Replicas elect their leader with client-go's algorithm run by the
//     simulator (sim/process elect.go), not with client-go's LeaderElector
//     itself; its Known gaps apply
//     (sim/process.TestLeaderElectionOptionsNotModelledAreRefused). A
//     Lease's renewals are not targets (every RetryPeriod, they would crowd
//     the operator's own writes out:
//     operatortest/faults.TestTheAPIErrorsDrawnAreTheOperatorsOwnWritesOfTheFaultFreeRun).
//   - The built-in controllers start only for the kinds a run may hold,
//     and the collector and the namespace controller know only some kinds
//     of those served: package builtins's Known gaps
//     (operatortest/builtins.TestARunWithoutTheIdleControllersHasAnotherTrace,
//     operatortest/builtins.TestAHeldKindIsCollectedAndDeletedInItsPreferredVersionOnly).
//   - A run waits for the stops its kubelet has scheduled however far
//     ahead (cluster.Phases.Scheduled): a pod with a week's grace period
//     whose container ignores SIGTERM (Options.IgnoreSIGTERM) makes a run a
//     week of virtual time long, cheap where nothing happens meanwhile, but
//     an operator that polls every 15 s reaches the work bound first (at
//     about 119 h) and the run is cut, with its note, not judged
//     (TestAKillAWeekAheadIsWaitedForUntilTheWorkBound).
//   - Every world serves CustomResourceDefinition objects: Run registers
//     apiextensions.k8s.io/v1 in Options.Scheme (once, under a lock) when it
//     lacks it. A scheme shared with code that reads it concurrently while the
//     first Run starts (another test's client, in parallel) races with that
//     registration: register apiextensionsv1 yourself to avoid it
//     (TestAWorldRegistersCRDsInTheTestsOwnScheme).
package world
