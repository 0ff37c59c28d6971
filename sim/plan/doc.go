// Package plan is the data a run is a function of: a seed, a workload of timed
// actions, and faults (informer lag and holds, crashes at a client call, right
// after a write or at a time, restarts onto an apiserver that is behind (stale),
// one object's changes unobserved by one process, API errors and ambiguous
// writes, API latency, worker counts). Plans have a stable
// text form (String) that Parse reads back to the same plan, so a failure can be
// stored, read by a person and replayed.
//
//	seed 42
//	at 1s create-pipeline name=p envs=3
//	script at 10s delete kind=/v1/ConfigMap namespace=default name=cfg
//	lag process=manager kind=/v1/Namespace min=0s max=2s
//	crash process=manager call=17
//	stale process=manager at=40s age=30s
//	stale process=manager kind=example.com/v1/Widget at=40s age=5s rev=118
//	unobserved process=manager kind=example.com/v1/Widget object=default/w from=0 until=131
//	api verb=patch resource=kopfexamples code=422 from=0s until=1m0s
//
// A step whose line starts with "script" is one the test's author wrote (a
// scripted workload, Step.Script) rather than one a generator drew; a world
// runs both alike, and shrinking, which removes draws, keeps it.
//
// A workload step names one of the world's seed objects by its index among
// them (object=0, the form generators draw) or by its kind and name
// (object=ConfigMap/default/x; object=Namespace/team-a when cluster-scoped),
// the form an author thinks in. The plan keeps the text it was given;
// NameObjects writes a plan's indexes as names (the form a failure prints and
// saves) and IndexObjects reads names back to indexes (the form a world runs,
// so that both forms run alike), given the seed objects' names in index order.
//
// What each fault reaches is what its text says: process= names the one process
// whose cache, calls or requests it affects (an api fault without process= fails
// the matching requests of every client, the models' and the admin's included);
// kind= names one kind as "group/version/Kind", or * for every kind (a hold of *
// also holds the informers the process creates while it lasts); a window is
// [from, until). lag and latency add to the world's default timing (package
// cluster), so a drawn lag or latency always has max > 0: the generator never
// draws a fault with no effect.
//
// A stale restart (stale process=NAME at=T age=A) crashes the process at T;
// its next incarnation lists and watches through an apiserver A behind. With
// rev=R its lagging watch cache is at resourceVersion R instead (the state
// just after the write that made R, just before R+1: exact where writes
// share an instant, and the same in the faulted run as in the fault-free one
// up to the first fault), and every later change reaches it A after the
// restart. With kind=group/version/Kind only that kind's watch cache lags and
// the process's other informers are fresh (kube-apiserver keeps one watch
// cache per resource); without it, or with kind=*, every kind lags, as plans
// written before kind= and rev= existed meant. Given Targets with the
// reference run's writes, the generator aims a stale restart at one: rev= just
// before or just after it, the restart after it, scoped to its kind unless
// drawn for every kind (a scoped fault is the smaller one: shrinking tries it
// first). With Targets.Watched (the kinds each process's informers cached in
// the reference run), a stale restart of a process is aimed only at writes of
// kinds it caches and scoped only to one of them: a lag of another kind
// changes nothing it sees.
//
// An unobserved fault (unobserved process=NAME kind=group/version/Kind
// object=NAMESPACE/NAME from=R until=R2) keeps one object's changes from one
// process: its informers of that kind get none of the object's events from
// the change that made resourceVersion R (from=0: from its creation) until
// the change that makes R2 (until=0: until its deletion), and every list
// made meanwhile (a process's initial list at a start or restart, a relist)
// shows the object as it was before the window (from=0: not at all), so a
// process can be made never to see an object's creation and first updates.
// The window ends at the until change, at the object's deletion or at the
// heal: the process then catches up as a watch does, with the newest state
// (the deletion with the object's last state; at the heal its state then).
// Its from= and until= are resourceVersions of the reference run, exact as a
// stale fault's rev= is. UnobservedWindows lists the systematic windows of a
// process over a reference run's Targets (one per change of each object it
// caches, until the next; creations first); the generator draws one aimed
// at those changes (drawUnobserved).
//
// A stop (stop process=NAME from=T until=T2) is no fault a generator draws:
// the process stops cleanly at from (a graceful shutdown between reconciles)
// and starts again at until, whatever the heal; operatortest replays a faulted
// run's process-down windows so, as the fault-free run of the same downtime.
//
// Workload faults (notready, crashloop, podfail pod=N; nodelost node=NAME
// at=T) are met by the kubelet model of models/kube, not by the kernel: pod=
// counts the pods the kubelet binds, from 1. Space.Pods and Space.Nodes draw
// them; a world without the kubelet model ignores them. Like every fault they
// end with the fault phase (the cluster's Heal): the pod becomes ready, the
// container stops crashing after its current back-off, the node comes back; a
// failed pod stays failed.
//
// Sweep is the systematic list of one workload's targeted plans from its
// fault-free run (Targets, and the run's intermediate writes): a crash
// after each write, stale restarts onto each object's past and for each
// pair of changes, holds across each change, unobserved windows, and an
// error answer to each write (a 500, a lost response), one fault a plan,
// the classes interleaved. The plans the run says can matter come first
// (rank.go states the rule once): a crash or an error answer that leaves
// an intermediate state (a lost response to a create too: its retry meets
// what it made); a hold or an unobserved window that keeps from the process a
// change it acted on (read, or had as its own write's answer, then made a
// write of the same reconcile that changed something: Targets.Acts; a
// no-op write acts on nothing); and a stale view frozen at a change A the
// process acted on that hides a change conflicting with that action (what
// it wrote created or deleted, A's object deleted, created again or its
// spec changed, or its status changed by another process): Sieve's
// pruning by causality, kept as an order rather than a cut.
//
// Every plan is bounded (Parse, Read and Validate refuse what is not, with the
// line and the reason): at most MaxPlanBytes (1 MiB) of text and MaxLineBytes a
// line, MaxEntries (1000) steps and faults, MaxArgs arguments a step, times and
// durations from 0 to MaxTime (24h), workers n from 1 to MaxWorkers (64), call=
// and count= up to MaxCount. A world refuses a step that gives an argument its
// action does not declare (cluster.Act).
//
// Generator draws plans with rapid (which shrinks them), from a Space the scenario
// describes; it is swarm testing: each plan first draws which fault classes it
// uses. Fuzz turns the same generator into a `go test -fuzz` target, so fuzz bytes
// decode to plans.
//
// # Known gaps
//
//   - Actions are names with string arguments; their meaning is the scenario's, so
//     a plan can only be replayed where its scenario is known
//     (TestAnActionIsANameWithStringArguments).
//   - Faults are those a real cluster produces; no message loss between the
//     apiserver and a cache (events are delayed or held, never dropped, except by a
//     relist) and no clock skew between processes yet
//     (TestThereIsNoMessageLossOrClockSkewFault).
//   - Durations print with Go's time.Duration format (1m30s); the parser accepts any
//     Go duration (TestDurationsPrintInGosFormatAndParseInAnyOfIt).
//   - A stale fault's rev= is a resourceVersion of the run it replays: it means
//     the same state in a faulted run only up to the first fault that changes
//     what is written (a fault before the restart may shift the numbers). A
//     rev= beyond the newest write lists the present. A stale fault scopes to
//     one kind or every kind, not to a set of kinds or to one object
//     (TestAStaleFaultScopesToOneKindOrEveryKind).
//   - An unobserved fault's from= and until= are resourceVersions of the run
//     it was aimed at, with the same caveat as rev=; an until= that no
//     change of the object makes in the faulted run ends the window at the
//     object's first change after it, its deletion or the heal. It names one
//     object and one process, not one controller (package informer's Known
//     gaps say why) (TestAnUnobservedFaultNamesAProcessNotAController).
//   - Sweep's ranking reads what a reconcile read and wrote, not what it
//     computed: every read before a write of the reconcile counts as acted
//     on, whether or not the write depended on it; a conflicting B is told
//     by what it did to an object, not by its fields (a spec changed to a
//     new value counts as one changed back:
//     TestASpecChangedAgainRanksWhetherOrNotItUndoesTheCount).
//     Nondeterministic triggers are not told apart (Sieve drops them).
//     A crash or an error answer is ranked only where it leaves an
//     intermediate state (a lost response to a create wherever it is), so
//     a 500 to a reconcile's only write, which only delays it, is unranked:
//     unranked plans come after every ranked one, and on an operator with
//     more ranked plans than the budget they are not tried (an operator
//     that mutates its lister's object before a write it makes alone needs
//     that 500). The ranking is an order, not a cut,
//     and a loose one on an operator that writes much: examples/bigcluster
//     ranks 1,116 of its 6,300 plans (every past of a Cluster that was
//     deleted and made again hides a conflicting change); the order of
//     interest within them (a view frozen at a deletion starting first)
//     is what brings its bug to plan 2-14. A ranked plan is not weighed
//     against another (a re-creation hidden is worth no more than another
//     manager's status write hidden).
//   - The pairs of two changes are bounded, not all enumerated: each of the
//     four stale views (frozen just after A or just before it, of A's kind
//     or of every kind) takes the first 10,000 pairs in the sweep's order,
//     so on a run of thousands of writes (a hot loop: 2,887,050 pairs a view
//     on examples/patterns' key-pair twin) a pair late in that order (a view
//     frozen at a creation) is never a targeted plan, ranked or not; the
//     objects' pasts are not bounded
//     (TestAHotLoopsStalePairsAreBoundedInTheSweepsOrder).
//   - A stale restart with rev= delivers every later change at once when its
//     watch cache catches up (Age after the restart); one without replays them
//     at their original pace, Age late
//     (sim/informer.TestAStaleCacheAtAResourceVersionOfOneKindLeavesTheOtherKindsFresh,
//     sim/informer.TestAStaleInformerListsThePastAndCatchesUpAtUntil).
package plan
