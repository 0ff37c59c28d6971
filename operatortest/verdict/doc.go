// Package verdict judges a run of a plan: the generic oracles, on by default
// for every operator, over the snapshot of the run's end that they compare
// (Snapshot: the judged kinds' objects in the equivalence of package canon,
// the errors at rest, the writes at rest, what each controller's reconciles
// wrote). The comparing oracles judge a faulted run against the fault-free
// runs of package reference; the rule of which fault-free runs those are, and
// why each stands for something a correct operator may do on a real cluster,
// is in that package's doc. Where converges learns nondeterministic fields:
// learned (oracles.go), the fields the two schedules differ in, after canon's
// equivalence.
//
// # What a verdict excuses
//
// Excuses (excuses.go) is the single statement of what a verdict excuses: a
// table of named cases, each a case of one of the three principles of package
// reference's doc (1: what a real cluster leaves open is learned; 2: a
// correct operator may be slowed; 3: what it does to itself is never excused,
// a case that withdraws an excuse) or of none (0: a rule of the cluster or of
// the oracles' division of work, each a finding about the principles), with
// the oracles that apply it, its rule in one sentence and the fault-free runs
// it adds. A verdict that holds by a case names it in check.Verdict.Excused,
// so a test asserts which applied; a violated verdict names only the case of
// principle 3 that withdrew an excuse. Each oracle below is excused by the
// table and nothing else; its paragraph says how it judges and which cases
// apply. What is compared at all (canon's equivalence, below;
// Options.Nondeterministic) is no case. reference's simple_test.go states the
// table's rules once more as a simple judge that runs every reference for
// every plan, and checks that the lazy judge (reference.Run) agrees with it.
//
// # The generic oracles
//
// On by default, named in Options.Disable to turn one off (the kernel's
// verdicts and the test's own properties too; Oracles lists the names, and an
// unknown name is an error): converges, update-summaries,
// interleavings-agree, terminates, no-orphans, no-error-at-rest,
// writes-at-rest; and the kernel's hot-loop, livelock and reconcile-panic. A
// correct operator passes them with default options: a finding counts only if
// a real cluster could produce it and a correct operator would not.
//
// A run that does more work than a run may (sim/cluster's work bound: 200,000
// task steps, 20,000 writes, or 2,000 objects in the apiserver; a storm a
// stalled watch drives) is cut and not judged, nor is a plan judged against a
// fault-free run that was: the plan tested nothing and held nothing
// (reference/cut.go). Result.Cut counts such plans and the pass and failure
// lines say how many there were and why the first was cut; an exploration
// whose every plan was cut fails.
//
// Every comparing oracle is differential: it blames the faults only for what
// the fault-free runs of the same workload do not also show (the plan's own
// and the other schedule's for every plan; the table's other references only
// while a verdict would otherwise fire, cached by their plans). Which of two
// runs that differ did what a correct operator does is not known in general;
// which run made the creates and deletes of an object that the other did not
// is, and converges (on an object's existence) and update-summaries say it in
// their detail: "created 2 times, deleted 1 time there, created 1 time,
// deleted 1 time here: the extra create is in the fault-free run of the same
// workload" (extra.go). The failure's story starts from the run that made
// them.
//
//   - converges: the end state of the judged kinds is judged against the
//     set of fault-free end states. An object must exist where every
//     fault-free run has it and not where none has; its fields must equal
//     theirs where they agree (a field is a leaf: an object or list empty
//     in one run and filled in the other differs in the leaves below it,
//     and is named there). Excused by other-schedule, learned-field and
//     random-draws (Sieve compares two reference runs so), late-start (the
//     late starts, reference/late.go, tried after the last step first, one
//     at a time until one matches), same-downtime, same-blind-time and
//     stop-after-cut (reference/downtime.go, blind.go), withdrawn by
//     same-restarts; frozen-outputs and frozen-status (frozen.go: what a
//     controller's reconciles of an object wrote while its last reconcile
//     ends in the error a fault-free run ends in, or in either run in
//     kube-apiserver's refusal of the user's value, and the object's status
//     fields any of the operator's controllers wrote only in reconciles
//     that returned nil; an operator that gives up
//     on the same dependency with no error claims its outputs converged,
//     and is judged on them); cluster-backoff (backoff.go: an object the
//     cluster's controller ends holding in back-off). Late, downtime and blind references are
//     candidate end states only, never a source of learned fields.
//   - interleavings-agree: the two fault-free schedules end alike (Kamera's
//     check); a violation is a race with no fault. Excused by random-draws,
//     frozen-outputs and frozen-status, when both runs end so, and
//     cluster-backoff, when either does. The two
//     schedules share one environment (reference/random.go: the processes'
//     randomness, generated names' suffixes, the kubelet's durations per
//     pod) and differ in the interleaving alone. When they disagree, the
//     report names the suspect: the run that shows the bug by the verdicts'
//     rules (ShowsTheBug, blame.go: a deletion completes; a child follows
//     its owner, once per owner incarnation, present exactly while its
//     owner is), read from the two runs' watch logs; when those rules do
//     not tell and the faulted run ends as one of them, the other.
//     Converges does not blame the faulted run.
//   - update-summaries: no object is created or deleted more often than in
//     the fault-free run that did so most, each run counted over its whole
//     length (the fault phase and the heal budget: the verdict states it);
//     fewer is no violation (a delayed operator may miss making what the
//     workload deleted first). Excused by the references that raise a count
//     (other-schedule, random-draws, same-downtime, same-blind-time,
//     stop-after-cut; withdrawn by same-restarts), and by user-deletion-race
//     (both ways: the faulted run won the race the fault-free runs lost, a
//     finalizer's external record; or the user deleted an object the
//     operator keeps while its owner's deletion was under way),
//     user-edit-race, slowed-rollout (a pod a rolling update replaced,
//     the owner's templates those of the fault-free run in its order;
//     rollout.go), lifetime-end, frozen-outputs (an output made once more
//     and kept; made twice or unmade still counts), cycle-pace,
//     collector-churn (churn.go) and temporary (an object of generated name
//     the operator made, that only it wrote and that is gone, made and
//     deleted more often: a request issued again after a crash; a Job, on
//     which the Job controller acts, is no temporary). A generated name past its prefix's first,
//     live or deleted (nightly-*2, nightly-*deleted2), is a duplicate, never
//     a race.
//   - no-error-at-rest: no controller's last reconcile of an object ends in
//     an error. Errors are compared by their cause (package
//     operatortest/cause: the value the workload wrote and left in place
//     that the error quotes, else a validation's causes, else the text), so
//     one invalid value of the user's met by a create in one run (a 500
//     from kube-apiserver's IP allocator) and by an update in another (a
//     422 with field errors) is one error. Excused by shared-error (a
//     dependency the user deleted: the operator fails and retries with
//     back-off until the user fixes it, by design), error-met (a retry's
//     cycle of errors) and user-value (the user's invalid value, which the
//     API refused or a fault-free run failed on too: whether the fault-free
//     run met it, in another controller, or never sent it), withdrawn by
//     quiet-workload (reference/judge.go). The results of an incarnation
//     that crashed since are forgotten (its queue died with it).
//   - terminates: nothing still deleting at the end (which comes after
//     the kubelet's stops scheduled at the heal budget's end: sim/cluster's
//     Phases.Scheduled). Excused by stop-scheduled (an object whose stop the
//     cluster has scheduled for after the end: the last pod of a chain of
//     kills that outlasts the heal budget, in its grace period) and by
//     deletion-in-progress (terminates.go); one a fault-free run never
//     finished deleting counts. no-orphans judges the end state alone.
//   - writes-at-rest (Kamera's no-op and liveness class; atrest.go): at
//     rest a correct operator writes nothing it would not write on a real
//     cluster at rest. Rest is the second half of the heal budget, counted
//     from the later of the heal, the last start of an operator's
//     process and the retry or scheduled work (a pod's kill at its grace
//     period's end) a run waited for (sim/cluster's Phases.Retries and
//     Phases.Scheduled). A write at rest is idle when it stores nothing new: it
//     changes nothing stored (kube-apiserver, and the model, answer such an
//     update with the stored object, its resourceVersion unchanged, and no
//     event), or only times (a lastSyncTime refreshed by every reconcile;
//     a condition's lastTransitionTime moves with a transition only), or it
//     sets the object back to its state two changes before, times aside (a
//     condition flipping, a field two writers fight over). It counts when
//     the operator's clock alone made it: no other object changed, by
//     another writer, since the controller's last write to this one; nor
//     does a write of a reconcile that ended in an error (no-error-at-rest
//     judges it). Three idle writes at rest by one controller to one
//     object violate, in the faulted run or in a fault-free reference
//     (there a bug with no fault): three are a cadence. A time-driven
//     operator's writes (a schedule, a RequeueAfter poll) change what it
//     manages; they are judged against the fault-free runs' over the same
//     window: at least three more and twice as many as every reference
//     violate. Excused by delayed-work. The manager's Leases and Events are
//     not judged. Below three idle writes in half the heal budget (a
//     heartbeat slower than HealBudget/6, 20 s by default) nothing is
//     seen; the kernel's hot-loop judges the fast storms, excused by
//     stall-storm (sim/cluster: a controller fighting the collector while
//     its watch is stalled, over within HotLoopSeconds of the stall's end).
//
// Equivalence (canon/equivalence.go) comes from what a real cluster makes
// nondeterministic, wherever it appears: a uid becomes a token named by its
// object ("<uid:Job shop/nightly>") in every place it occurs
// (ownerReferences, a Job's selector and template labels, annotations, names
// built from it); a generated name becomes its prefix and the place of the
// object it names among the live objects of that prefix, ordered by their
// owners ("nightly-*", "nightly-*2"), or among the deleted ones
// ("nightly-*deleted"), in every reference to it (status.jobName, an owner
// reference, data; a reference to a deleted one is "nightly-*deleted"
// whichever it was): the suffix is the apiserver's draw, but which live
// object a reference names is not, while how many objects of the prefix
// were made before the live one races with the user's steps, and how many
// the operator made and deleted is its retries' (canon/generated.go); a
// name a built-in controller made from a hash of what the object holds (a
// ReplicaSet's "<deployment>-<pod-template-hash>", a ControllerRevision's)
// becomes its prefix and a digest of what it holds ("web-*[1a2b3c4d]"): which
// templates were written, and so how many such objects a set keeps, races
// with the user's edits, which template the current one holds does not. A
// value derived from content is as nondeterministic as that content, so it is
// compared by what it digests after this same equivalence: a pod template
// stamped with a restart time (kubectl rollout restart's restartedAt, an
// operator's restart on a config change) is hashed, time and all, into its
// ControllerRevision's name, its pods' controller-revision-hash label and its
// set's currentRevision, and the digest that names them is taken with the
// time masked (and uids), so two schedules that stamped one template at two
// instants name the revision alike; of several live objects of one content (a
// restart stamped twice) the newest is named first, as the one a reference at
// rest names. The built-in controllers' hash labels say what their hash
// covers; a checksum an operator computes itself (lowercase hex of a hash's
// length, or its leading 16 characters or more) is named by the value the run
// stored that it is the digest of (a string, or the JSON of an object or list
// inside an object: the data of a ConfigMap stamped with the time of its
// change), canonical, so that two schedules' checksums of one content stamped
// at two instants agree (canon/digests.go). The rule follows the content, not
// the look of the value: a checksum of an earlier content (stale) reads as
// that content and is caught, and one whose content the run never stored
// (another serialisation, a Go map's order) is compared as it is (Known
// gaps). A validation's refusal is compared by its cause wherever its text
// appears (an error at rest, a condition's message; see no-error-at-rest);
// resourceVersions, generations and observedGenerations are dropped, and so
// are the apps controllers' counts of templates rolled out (a Deployment's
// deployment.kubernetes.io/revision); times (RFC 3339, and Go's time.Time
// form, also inside longer strings, and in an error at rest's text Unix
// seconds of an instant of the run) are masked; the node the scheduler bound
// a pod to (spec.nodeName, status.hostIP and hostIPs of a pod created with no
// node) becomes "<node of Pod ns/name>"; a pod's address becomes a token
// named by the pod it was first given to ("<ip:Pod shop/cache-0>"), wherever
// it appears (the network plugin allocates addresses in the order pods
// start). Lists compare as their schema says: x-kubernetes-list-type map (by
// its keys) or set have no order, for CRDs from their OpenAPI schema and for
// built-in kinds from client-go's structured-merge-diff schema, the listType
// markers server-side apply merges by (a Service's ports, keyed by port and
// protocol); a list named conditions whose items have distinct types is keyed
// by type, as the API conventions have it. Options.Nondeterministic names a
// field the author knows is nondeterministic in their domain (a counter of
// attempts): a last resort, for what neither the cluster's rules nor the two
// fault-free runs show.
//
// The judged kinds are the CRDs' kinds, the seed objects' kinds, and every
// kind an operator process read or wrote in any of the compared runs (its own
// calls in the trace), but Leases and Events (the manager's leader election
// and recorder, not its reconcilers).
//
// collector-churn stands on upstream's garbage collector (attemptToDeleteItem
// deletes a dependent whose owners are all absent): an operator whose cache
// lags behind its owner's deletion re-creates the child, and the collector
// deletes it. The grace is one second after the heal plus the longest
// informer lag or API latency the plan draws; one made after it, or never
// collected (no-orphans judges it), counts. An owner itself created for a
// gone owner counts as gone (the collector takes the whole subtree), and a
// live dependent re-owned to a gone owner (a restart onto a cache that still
// shows the owner the user deleted and re-created:
// controllerutil.SetControllerReference tells owners apart by kind and name)
// is doomed the same way.
//
// The namespace controller, the garbage collector and the replicaset,
// deployment, job, statefulset and endpointslice controllers (models/kube)
// run in every world as kube-controller-manager, and the kubelet model as
// process kubelet (operatortest/kubeworld): Deployments and StatefulSets roll
// out, Jobs complete, Services get EndpointSlices. A controller that none of
// its watched kinds' objects ever reaches reconciles nothing, so a run starts
// only those of the kinds its world may hold (package builtins): the workload
// models whose watched kinds, the kubelet when Pods, and the collector's
// controller of a kind when objects of it (or ownerReferences naming it) may
// appear; the namespace controller always. The kinds held at first are the
// CRDs', the seed objects', the script's and those a probe made (the
// fault-free run of the seed objects alone, once per world, with every
// controller); a run in which another such kind appears is run again with its
// controllers, so each run is the run with every controller that acts in it,
// a function of its plan alone (only the idle controllers' start-up lines and
// the picks among their starting workers are missing). NoWorkloadModels
// leaves the workload models out; WorkloadFaults also draws pods that are not
// ready, crash-loop or fail, and a lost node, until the heal (a real fault
// stops: the pod becomes ready, the container runs again after its back-off,
// the node comes back; a failed pod stays failed).
//
// Exec (world/exec.go) gives the handlers of the commands the operator execs
// in containers (pods/exec and attach through mgr.GetConfig(), with
// client-go's remotecommand SPDY executor, unchanged), by container name or
// image: fakes of the operands' CLIs, which keep their state in the
// container's files (ExecRequest.Files, for the pod's life) and which a
// property reads back (History.ContainerFiles). Each exec is one call of the
// process (trace, crash points, RBAC on create pods/exec); with Exec the
// plans also draw exec failures (a 500 before the command runs) and timeouts
// (the command ran, the client sees a 504). An exec into a container that
// does not run answers the kubelet's `container not found`; one with no
// handler fails with an error naming the pod, the container and the command
// (examples/execop).
//
// # Known gaps
//
//   - cluster-backoff leaves an owner's status uncompared whoever wrote
//     it: a wrong mirror of the object in back-off is not caught by
//     converges on that plan
//     (examples/patterns.TestATwinsMirrorOfAnObjectInTheClustersBackoffIsNotJudged).
//   - Which run made the writes the other did not is said of an object's
//     creates and deletes (converges on its existence, update-summaries;
//     extra_test.go), not of writes to its fields: a converges verdict on
//     a field names the two values, not which run wrote the field. And
//     update-summaries counts against the most of each count over the
//     fault-free runs, which may be two runs' (the creates of one, the
//     deletes of another), named together as "the fault-free run of the
//     same workload" (TestAFieldVerdictNamesTheValuesNotTheWriter).
//   - Domain steps are the author's: the fault-free run "with no generated
//     workload" (no-error-at-rest) drops the domain steps with the other
//     drawn ones (TestTheRunWithNoGeneratedWorkloadDropsTheDomainSteps).
//     A system's faults are events (steps): nothing tells a
//     system the heal has come, so a fault meant to last until the heal
//     is the system's to bound (fail the next N attempts, say). A fault
//     profile narrows by process, kind and object (Faults.Objects: the
//     objects whose changes aimed faults aim at), not by controller: the
//     controllers of one manager share its informers (package informer's
//     Known gaps), so an unobserved object is one process's, as Sieve's
//     paused controller is its process's.
//   - An operator that retries a failing operation forever by undoing it
//     each time (rukpak's BundleDeployment: install, fail, uninstall, wait
//     for the namespace to terminate, again) is judged by its cycle's
//     pace against the fault-free run's: update-summaries forgives an
//     object the fault-free run made and unmade twice or more (churn.go's
//     cycling), terminates a deletion no older than the fault-free run's
//     deletions of the object took (terminates.go). A cycle that turns
//     once per run, or whose deletions a fault makes slower, is still
//     judged as churn or as stuck (TestARetryCycleTurningMoreOftenIsNotChurn).
//   - The comparing oracles learn nondeterministic fields from two
//     fault-free schedules, not every interleaving as Kamera's exhaustive
//     search does: a field that differs only in rare schedules can still be
//     a false alarm (Options.Nondeterministic names it). Live objects of one
//     generateName prefix and the same owners are numbered in creation
//     order (their content is not compared to order them), so two made
//     concurrently may swap numbers between runs. A resourceVersion copied
//     into a field not named resourceVersion, or a time in a form other than
//     RFC 3339 or Go's time.Time String (unix seconds outside the text of
//     an error at rest), is compared as a value
//     (operatortest/canon.TestATimeInAnotherLayoutIsComparedAsItIs). A
//     field learned as nondeterministic for an object is free whatever
//     value the faulted run gives it
//     (operatortest/canon.TestAFieldTheFaultFreeRunsDisagreeOnIsNotHeldAgainstAFaultedRun).
//   - A checksum an operator computes itself is named by its content only
//     when that content is a string or a JSON node the run stored, hashed
//     whole by MD5, SHA-1, SHA-256 or SHA-512 into lowercase hex (whole or
//     cut to 16 characters or more). A checksum of key=value lines, of a
//     desired spec before the apiserver's defaults (cass-operator's
//     resource-hash), in base64 or by another hash is opaque: when its
//     content holds a time or a uid, it differs between two schedules, and
//     only converges learns it (where the two fault-free runs differ);
//     interleavings-agree reports it. The digest of the built-in
//     controllers' hash names masks times and uids, not the run's
//     generated names inside the content (TestAChecksumInBase64IsOpaque).
//   - The status fields frozen while a reconcile fails by design are read
//     from the status writes made inside the controller's reconciles of
//     the object (each write's content against the object's previous
//     version in the watch log): a field the operator writes in a
//     separate write made outside a reconcile (a Runnable's) is not read
//     (TestAStatusWriteMadeOutsideAReconcileIsNotRead). They are the
//     writes of every controller whose reconcile request names the failing
//     object's namespace and name (a request carries no kind): an object of
//     another kind and the same name, reconciled by another controller of
//     the operator, has its status frozen with the failing one's
//     (TestTheStatusAnotherControllerCompletedIsFrozenWhileTheObjectFailsByDesign).
//   - Frozen outputs (converges and interleavings-agree, frozen.go) are the
//     writes made inside a controller's reconciles of the failing object;
//     what a Runnable or
//     another controller derived from it is compared as usual (but the
//     failing object's status fields another controller wrote only in
//     reconciles that returned nil: frozen-status). The object
//     itself is told from its outputs by its controller's name being its
//     kind (controller-runtime's default) or by a status write; a
//     controller Named otherwise has its own object's spec and metadata
//     writes (a finalizer) left uncompared too while it fails by design
//     (TestAControllerNamedOtherThanItsKindHasItsObjectAmongItsOutputs).
//   - Churn both ways (churn.go) reads the workload's deletions from its
//     landed "action" steps: a deletion the operator's own code makes
//     (cleanup it starts itself) is no race with a user and does not open
//     the rule (TestADeletionTheOperatorMakesIsNoRaceWithTheUser).
//   - ShowsTheBug's rule (blame.go) needs an owner reference on the object
//     (in either run); for an object with none that is not being deleted at
//     either end it does not tell. It finds the owner at the end by its
//     name: an owner with a generated name, named apart in the two runs, is
//     not matched across them (TestTheBlameRuleNeedsAnOwnerMatchedByName).
//   - interleavings-agree compares the two fault-free runs strictly (it has
//     no third run to learn from): an environment draw that is not of the
//     shared seed (a model of the test's own drawing from cluster.Stream, a
//     pod's durations when two pods of one generateName are created
//     concurrently and swap places) is reported as a disagreement
//     (TestInterleavingsAgreeComparesTheTwoFaultFreeRunsStrictly).
//   - The collector's rule applies to the watch log's owners: a dependent
//     whose owner is of a kind the log never shows (made before the run) is
//     taken as created for a gone owner
//     (TestADependentOfAnOwnerTheLogNeverShowsIsTakenAsMadeForAGoneOwner).
//     A stall storm is recognised by
//     holds and stale restarts (until the view catches up: at its end or the
//     heal) only: a long informer lag (up to the generator's MaxLag) drives
//     the same storm for a few seconds, below the hot-loop bound's ten.
//   - no-orphans judges the judged kinds that the collector collects (the
//     CRDs', the seed objects', common children's and, with the workload
//     models, theirs): a child of another kind (a Role, an Ingress) is
//     compared by converges but not collected
//     (TestNoOrphansJudgesTheCollectedKindsOnly).
//   - writes-at-rest (atrest.go): an idle write that follows another
//     object's change is taken for an answer to it, so a heartbeat in a
//     world where something else changes between two beats (a schedule's
//     Jobs running) is not seen (TestWritesAtRestThatAreWorkHold, its
//     answers). It counts what each write stored, not why: a
//     write at rest that stores something new every time (a counter of
//     polls, a message with the poll's number) is not idle, and is caught
//     only when the fault-free runs do not make it too. A heartbeat slower
//     than one write in HealBudget/6 is not seen (a longer HealBudget
//     widens rest: TestAHeartbeatSlowerThanRestsBoundIsNotSeen). Times are told by their text (RFC 3339, Go's form), as
//     canon/equivalence.go masks them: one in Unix seconds is a change. A no-op
//     write is told by its resourceVersion: the first write that names a
//     resourceVersion is taken for the one that committed it.
package verdict
