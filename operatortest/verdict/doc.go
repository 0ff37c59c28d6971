// Package verdict judges a run of a plan: the generic oracles, on by
// default for every operator, over the snapshot of the run's end that they
// compare (Snapshot: the judged kinds' objects in the equivalence of package
// canon, the errors at rest, the writes at rest, what each controller's
// reconciles wrote). The comparing oracles judge a faulted run against the
// fault-free runs of package reference; the rule of which fault-free runs
// those are, and why each stands for something a correct operator may do on
// a real cluster, is in that package's doc. Where converges learns
// nondeterministic fields: learned (oracles.go), the fields the two
// schedules differ in, after canon's equivalence.
//
// # What a verdict excuses
//
// Excuses (excuses.go) is the single statement of what a verdict excuses:
// a table of named cases, each a case of one of the three principles of
// package reference's doc (1: what a real cluster leaves open is learned;
// 2: a correct operator may be slowed; 3: what it does to itself is never
// excused), or of none (0: a rule of the cluster or of the oracles'
// division of work, each a finding about the principles), with the oracles
// that apply it, its rule in one sentence and the fault-free runs it adds.
// A verdict that holds by a case names it in check.Verdict.Excused (a test
// asserts which applied; the false-alarm suite counts them); a violated
// verdict names only the case of principle 3 that withdrew an excuse. The
// table's cases, by principle:
//
//   - 1: other-schedule (converges, update-summaries), random-draws
//     (converges, interleavings-agree, update-summaries), learned-field
//     (converges); shared-error, error-met (no-error-at-rest);
//     user-deletion-race, cycle-pace (update-summaries);
//     deletion-in-progress (terminates).
//   - 2: late-start, same-downtime, same-blind-time, stop-after-cut
//     (converges, update-summaries); user-edit-race (update-summaries);
//     frozen-status (converges, interleavings-agree); delayed-work
//     (writes-at-rest).
//   - 3: same-restarts (withdraws same-downtime, same-blind-time and
//     stop-after-cut); quiet-workload (withdraws shared-error and
//     error-met).
//   - 0: frozen-outputs (converges, interleavings-agree,
//     update-summaries); collector-churn, lifetime-end (update-summaries);
//     stall-storm (the kernel's hot-loop).
//
// Each oracle below is excused by the table and nothing else; what the
// paragraphs add is how each case is read from the runs. What is compared
// at all (canon's equivalence, Options.Nondeterministic) is no case.
//
// # The generic oracles
//
// On by default, named in Options.Disable to turn one off (the kernel's
// verdicts and the test's own properties too; Oracles lists the names, and
// an unknown name is an error): converges,
// update-summaries, interleavings-agree, terminates, no-orphans,
// no-error-at-rest, writes-at-rest; and the kernel's hot-loop, livelock and
// reconcile-panic.
// A correct operator passes them with default options: a finding counts only
// if a real cluster could produce it and a correct operator would not.
//
// A run that does more work than a run may (sim/cluster's work bound: 200,000
// task steps, 20,000 writes, or 2,000 objects in the apiserver; a storm a
// stalled watch drives) is cut and not judged, nor is a plan judged against a fault-free
// run that was: the plan tested nothing and held nothing (reference/cut.go). Result.Cut
// counts such plans and the pass and failure lines say how many there were
// and why the first was cut; an exploration whose every plan was cut fails.
//
// Every comparing oracle is differential: it blames the faults only for what
// the fault-free runs of the same workload (under two schedules: the plan's
// seed and seed+2048 mod 4096, cached by seed and workload) do not also show.
// Which of two runs that differ did what a correct operator does is not
// known in general (a fault-free run that made a child twice, or never made
// one its owner calls for, is as wrong as a faulted run that did); which run
// made the creates and deletes of the object that the other did not is, and
// converges (on an object's existence) and update-summaries say it in their
// detail: "created 2 times, deleted 1 time there, created 1 time, deleted 1
// time here: the extra create is in the fault-free run of the same workload"
// (extra.go). The failure's story starts from the run that made them.
//
//   - converges (excused by the table: other-schedule, learned-field,
//     random-draws, late-start, same-downtime, same-blind-time,
//     stop-after-cut, frozen-outputs, frozen-status; withdrawn by
//     same-restarts): the end state of the judged kinds is judged against the set
//     of fault-free end states. An object must exist where every fault-free
//     run has it and not where none has; its fields must equal theirs where
//     they agree. A field, or an object's existence, that differs between
//     the two fault-free runs is learned as nondeterministic and not held
//     against the faulted run (Sieve compares two reference runs so). When
//     an object matches neither, a third, late reference is run (once per
//     workload, cached): the fault-free run in which the operator's
//     processes start only after the workload's last step. Every fault that
//     delays an operator moves its run towards that one, and a correct
//     level-triggered operator may end there (it never made what depended
//     on an object the workload deleted before it looked); it is one more
//     candidate end state, not a source of learned fields. A fault also
//     delays an operator past some of the workload's steps and not the
//     rest (a crash and its back-off bring up an incarnation that sees the
//     world as it is then): when the late reference does not match either,
//     the fault-free runs whose operator starts right after each earlier
//     step's instant are run (one at a time, until one matches; cached) and
//     are candidates too (reference/late.go). What a
//     controller's reconciles of an object wrote (but the object itself) is
//     not compared when its last reconcile of that object ends in an error
//     that a fault-free run also ends in (no-error-at-rest forgives it): a
//     reconcile that fails says its outputs are not what its inputs call
//     for, and they keep what the last reconcile that got through saw,
//     which raced the user's steps (an edit just before the deletion of a
//     dependency is published or not depending on which the operator saw
//     first; informers of two kinds promise no order). An operator that
//     gives up on the same dependency with no error claims its outputs
//     converged, and is judged on them (frozen.go). interleavings-agree
//     does not compare them either between two fault-free runs that both
//     end in that error. The reconciled object's own status is frozen in
//     part by the same rule: a reconcile that returns nil records in
//     status what it has made (a binding to the Secret it made, a Ready
//     condition that is True), one that fails records at most why. When
//     the user's own value (one the CRD accepts and a child's validation
//     refuses) makes every reconcile fail from some instant on, whether
//     one reconcile got through and recorded what it made before the
//     value landed is decided by how the user's edit raced the operator's
//     first complete reconcile: on a real cluster a kubectl edit made a
//     moment after the kubectl apply reaches the operator before or after
//     its first pass, and an operator slowed by anything (a restart, a
//     lagging watch, a slow apiserver) ends where this one ends, failing
//     on the value with no record. So in a run that ends failing on an
//     object in the error (by its cause) a fault-free run also ends in,
//     the object's status fields that only the controller's reconciles
//     that returned nil wrote (in either run; a field a failing reconcile
//     writes, the error's condition, is compared) are not compared by
//     converges, nor by interleavings-agree between two fault-free runs
//     that both end so; and update-summaries does not count a frozen output made
//     once more and kept (the operator made the child before the value
//     landed, the fault-free run met the value first), while one made
//     twice or unmade still counts.
//   - interleavings-agree (excused by the table: random-draws,
//     frozen-outputs, frozen-status): the two fault-free runs end alike (Kamera's
//     check); a violation is a race with no fault. When they disagree, the
//     report names the suspect: the run that shows the bug by the verdicts'
//     rules (ShowsTheBug, blame.go: a deletion completes; a child follows
//     its owner, once per owner incarnation, present exactly while its
//     owner is), read from the two runs' watch logs; when those rules do
//     not tell and the faulted run ends as one of them, the other. Converges
//     does not blame the faulted run.
//   - update-summaries (excused by the table: the references' cases that
//     raise a count, user-deletion-race, user-edit-race, lifetime-end,
//     frozen-outputs, cycle-pace, collector-churn; withdrawn by
//     same-restarts): no object is created or deleted more often than in
//     the fault-free run that did so most, each run counted over its whole
//     length (the fault phase and the heal budget: the verdict states it) (fewer is no violation: a delayed
//     operator may miss making what the workload deleted first). The same
//     race counts the other way too: when the fault-free runs lost it (the
//     user's deletion came before the operator's first write) and the
//     faulted run won it, the faulted run makes the object once and unmakes
//     it once it sees the deletion (a finalizer's external record). An
//     object no fault-free run made, made once and deleted once, at or
//     after the workload's first deletion, is a note, not churn; unless it
//     is a generated name past its prefix's first, live or deleted
//     (nightly-*2, nightly-*deleted2: one object more than the fault-free
//     runs made is a duplicate, not the race) (churn.go). The race's third
//     side is forgiven too: the user deletes an object the operator keeps
//     (revokes its RoleBinding) while the owner's deletion is under way,
//     and the operator, its cache behind, makes it once more and unmakes
//     it: one lifetime more than the fault-free runs made, ended at or
//     after the user's first deletion (a workload, domain or scripted
//     step's). And one deletion more with no creation more is the end of
//     a lifetime, not a lifetime more: a deletion the fault-free run left
//     stuck that finishes here, a child the faulted run's cleanup reached
//     (the end state is converges' and terminates' to judge). The user's
//     edit races the same way: an object no fault-free run made, made once
//     and deleted once, at or after the workload's first edit that landed
//     (a mutation, an admin's patch or update), is a note too (the
//     operator, a fault holding it on the old value, wrote a StatefulSet of
//     the old size and a built-in controller made the pod and claim the old
//     size calls for; once it saw the user's scale-down it removed them),
//     with the same exception for a generated name's second or later.
//   - no-error-at-rest (excused by the table: shared-error, error-met;
//     withdrawn by quiet-workload): no controller's last reconcile of an object ends in
//     an error, unless a fault-free run also ends in that error on that
//     object (a dependency the user deleted: the operator fails and retries
//     with back-off until the user fixes it, by design), or ends failing on
//     it too and met that error on the way (an operator retrying a failing
//     operation cycles through its errors: the cause, then "still cleaning
//     up the last attempt"). The results of an
//     incarnation that crashed since are forgotten (its queue died with it).
//     Errors are compared by their cause, not their text: a validation's
//     refusal (kube-apiserver's, or a webhook's that answers with field
//     errors: "<Kind>.<group> "<name>" is invalid: <causes>") is the object
//     refused and its causes' field paths, types and values, what the
//     operator wrapped around it aside. kube-apiserver validates a create
//     by the object's own rules and an update by those and the
//     transition's (an immutable field changed), so the same invalid value
//     of the user's met by a create in one run (its operator slowed past
//     the edit) and by an update in another (its operator made the child
//     first) is one error with two texts. A differing cause (another
//     field, another value, a cause more, another object) is another
//     error; an error that is no such refusal is its text. The rule is
//     the equivalence's (below): a refusal carried into a status
//     condition's message is compared by its cause too. kube-apiserver
//     does not always refuse one value with one reason: a Service's
//     clusterIP goes to its IP allocator before validation on a create,
//     which answers "Internal error occurred: failed to parse service IP
//     "ac"" (a 500, no field), and to validation on an update, which
//     answers with field errors on spec.clusterIP and spec.clusterIPs. So
//     an error at rest that refuses a write (a validation's refusal, or an
//     internal error of the write) and quotes only values the reconciled
//     object holds, each at exactly one field path of what it asks for
//     (its metadata and status aside; in any version of it the run's log
//     holds, which the operator's cache may have shown), is compared by
//     the user's value: those paths and values (canon.UserValueCause).
//     Both runs end failing, for good, on the value the user wrote; which
//     call met it raced the user's edit. A refusal that also quotes a
//     value the user did not set (the operator's own), and an error that
//     refuses no write (not found, forbidden: the user's Secret name is
//     quoted in both), are compared as before.
//   - terminates: nothing still deleting at the end, excused by the table
//     (deletion-in-progress: its deletion has lasted no longer than a
//     fault-free run of the same workload took to delete the same object,
//     plus a second; the end fell mid-deletion of a retry cycle;
//     terminates.go). One a fault-free run never finished deleting
//     counts. no-orphans judges the end state alone.
//   - update-summaries also forgives the pace of a cycle (cycle-pace): an
//     object the fault-free run made and unmade twice or more, made and
//     unmade a different number of times (churn.go); whether it ends made
//     is the end state's, converges' to judge.
//   - writes-at-rest (Kamera's no-op and liveness class; atrest.go;
//     excused by the table: delayed-work): at
//     rest a correct operator writes nothing it would not write on a real
//     cluster at rest. Rest is the second half of the heal budget, counted
//     from the later of the heal and the last start of an operator's
//     process (the workload and every fault are over, caches have caught
//     up, a restarted incarnation has made its first pass, the fault
//     phase's back-offs have run out). A write at rest is idle when it
//     stores nothing new: it changes nothing stored (kube-apiserver, and
//     the model, answer such an update with the stored object, its
//     resourceVersion unchanged, and no event), or it changes only times
//     (a lastSyncTime refreshed by every reconcile: the API conventions keep
//     heartbeats out of status, and a condition's lastTransitionTime moves
//     with a transition only), or it sets the object back to its state two
//     changes before, times aside (a condition flipping between two values,
//     a field two writers fight over). It counts when the operator's clock
//     alone made it: no other object changed, by another writer, since the
//     controller's last write to this one (an unchanged status written at
//     each change of the Jobs a CronJob owns, as the kubebuilder tutorial
//     does, answers a change); nor does a write of a reconcile that ended
//     in an error (a controller still failing is not at rest:
//     no-error-at-rest judges it; the rukpak cycle of Known gaps writes its
//     two alternating errors at every retry). Three idle writes at rest by one controller
//     to one object violate, in the faulted run or in a fault-free
//     reference (there a bug with no fault): the reconcile that a correct
//     operator's last write wakes may write once more unchanged, and rest
//     begins long after the last change; three are a cadence.
//     A time-driven operator (a schedule, a RequeueAfter poll) writes at
//     rest at its own pace, and its writes change what it manages (the next
//     run, its list of active runs): they are judged against the fault-free
//     runs' over the same window only: at least three more and twice as
//     many as every reference violate (the faults left it writing; a fault
//     moves the phase of a cadence, one write in or out of the window, not
//     its pace). The manager's Leases and Events are not judged. Below
//     three idle writes in half the heal budget (a heartbeat slower than
//     HealBudget/6, 20 s by default) nothing is seen; the kernel's hot-loop
//     judges the fast storms.
//
// Equivalence (canon/equivalence.go) comes from what a real cluster makes
// nondeterministic, wherever it appears: a uid becomes a token named by its
// object ("<uid:Job shop/nightly>") in every place it occurs (ownerReferences,
// a Job's selector and template labels, annotations, names built from it); a
// generated name becomes its prefix and the place of the object it names
// among the live objects of that prefix, ordered by their owners
// ("nightly-*", "nightly-*2"), or among the deleted ones
// ("nightly-*deleted"), in every reference to it (status.jobName, an owner
// reference, data): the suffix is the apiserver's draw, but which object a
// reference names is not, while how many objects of the prefix were made
// before the live one races with the user's steps (canon/generated.go); a name a
// built-in controller made from a hash of what the object holds (a
// ReplicaSet's "<deployment>-<pod-template-hash>", a ControllerRevision's)
// becomes its prefix and a digest of what it holds ("web-*[1a2b3c4d]"):
// which templates were written, and so how many such objects a set keeps,
// races with the user's edits, which template the current one holds does
// not. A value derived from content is as nondeterministic as that
// content, so it is compared by what it digests after this same
// equivalence: a pod template stamped with a restart time (kubectl rollout
// restart's restartedAt, an operator's restart on a config change) is
// hashed, time and all, into its ControllerRevision's name, its pods'
// controller-revision-hash label and its set's currentRevision, and the
// digest that names them is taken with the time masked (and uids), so two
// schedules that stamped one template at two instants name the revision
// alike; of several live objects of one content (a restart stamped twice)
// the newest is named first, as the one a reference at rest names. The
// built-in controllers' hash labels say what their hash covers; a checksum
// an operator computes itself (lowercase hex of a hash's length, or its
// leading 16 characters or more) is named by the value the run stored that
// it is the digest of (a string, or the JSON of an object or list inside
// an object: the data of a ConfigMap stamped with the time of its change),
// canonical, so that two schedules' checksums of one content stamped at
// two instants agree (canon/digests.go). The rule follows the content, not
// the look of the value: a checksum of an earlier content (stale) reads as
// that content and is caught, and one whose content the run never stored
// (another serialisation, a Go map's order) is compared as it is (Known
// gaps).
// A validation's refusal is compared by its cause wherever its text
// appears (an error at rest, a condition's message; see
// no-error-at-rest);
// resourceVersions, generations and
// observedGenerations are dropped, and so are the apps controllers' counts of
// templates rolled out (a Deployment's deployment.kubernetes.io/revision); times (RFC 3339, and Go's time.Time form,
// also inside longer strings, and in an error at rest's text Unix seconds of an
// instant of the run) are masked; the node the scheduler bound a pod
// to (spec.nodeName, status.hostIP and hostIPs of a pod created with no
// node) becomes "<node of Pod ns/name>"; a pod's address becomes a token
// named by the pod it was first given to ("<ip:Pod shop/cache-0>"), wherever
// it appears (the network plugin allocates addresses in the order pods
// start). Lists compare as their schema
// says: x-kubernetes-list-type map (by its keys) or set have no order, for
// CRDs from their OpenAPI schema and for built-in kinds from client-go's
// structured-merge-diff schema, the listType markers server-side apply
// merges by (a Service's ports, keyed by port and protocol); a list named
// conditions whose items have distinct types is keyed by type, as the API
// conventions have it. Options.Nondeterministic names a field the author
// knows is nondeterministic in their domain (a counter of attempts): a last
// resort, for what neither the cluster's rules nor the two fault-free runs
// show.
//
// The judged kinds are the CRDs' kinds, the seed objects' kinds, and every
// kind an operator process read or wrote in any of the compared runs (its own
// calls in the trace), but Leases and Events (the manager's leader election
// and recorder, not its reconcilers).
//
// Churn is judged by the rules of the cluster it stands on (the table's
// collector-churn and stall-storm, cases of no principle):
//
//   - A dependent created while each of its owners was gone or being deleted,
//     and then deleted, before the heal (plus one second of grace), is not
//     counted by update-summaries: an operator whose cache lags behind its
//     owner's deletion re-creates the child, and the garbage collector
//     deletes a dependent whose owners are all absent (upstream's
//     attemptToDeleteItem), as on a real cluster with correct code. The
//     verdict notes their count. The grace is one second plus the longest
//     informer lag or API latency the plan draws (a deletion committed just
//     before the heal is delivered that much later). One made after the
//     grace counts, and one never collected counts (no-orphans judges it). An
//     owner that was itself created for a gone owner and not yet collected
//     counts as gone: the collector takes the whole subtree (a StatefulSet
//     made for a deleted custom resource, and the Pod the statefulset
//     controller made for it). A live dependent re-owned to a gone owner
//     before the grace ended is doomed the same way: a restart onto a
//     watch cache that still shows the owner the user deleted and
//     re-created writes the old uid into the new owner's child
//     (controllerutil.SetControllerReference tells owners apart by kind
//     and name), and the collector deletes it; its lifetime counts only
//     if it is never collected or is re-owned to a present owner first.
//   - A storm of reconciles or writes in seconds during which a watch of the
//     cluster is stalled (a hold) is a note, not a hot loop (the kernel's
//     hot-loop verdict holds and says its count): a controller's cache that
//     lacks a deletion makes it fight the collector at the API's pace until
//     the watch delivers it, as a real informer's stalled watch does. The
//     same storm going on HotLoopSeconds after the stall ends (at the heal at
//     the latest) is a hot loop.
//
// A time-driven operator (a CronJob-like schedule whose missed runs are
// skipped by design, startingDeadlineSeconds) does what the clock asks when
// it is up. Two rules make it pass with default Options (the environment
// two schedules share, and the table's same-downtime, same-blind-time and
// stop-after-cut, withdrawn by same-restarts):
//
//   - interleavings-agree compares two schedules in one environment. What the
//     world outside the operator's schedule draws at random is drawn from a
//     seed a plan's seed and its partner (seed+2048) share (reference/random.go): the
//     randomness in the processes, the apiserver's suffixes of generated
//     names, and the kubelet's durations of each pod (its binding, its start,
//     how long its containers run), drawn per pod (its namespace, its name or
//     generateName, and how many pods of that name came before it), whatever
//     order the kubelet meets pods in. What the two keep apart is the
//     interleaving alone: which task runs next, each API call's latency, each
//     event's delivery, when a CRD is Established, when a replica retries
//     for its leader Lease (the jitter moves the retry, no value). A Job that ran 7 s in one
//     schedule and 29 s in the other made the two end with different Jobs
//     kept in a history; now they run alike.
//   - A fault that takes its controller down across a scheduled instant
//     legitimately changes what it creates: the run is skipped or starts
//     late, so the faulted run may lack a Job both fault-free runs made. When
//     converges or update-summaries still fires after the other references,
//     and an operator's process was down in the faulted run, one more
//     reference is run (reference/downtime.go, cached as the others): the fault-free
//     run of the same downtime, the faulted run's process-down windows (each
//     crash, exit or stale restart to the process's next start) replayed as
//     clean stops (plan.Stop: the process stops between reconciles, before
//     the reconcile a crash cut short began, and starts again when the
//     faulted run's did), with no crash mid-reconcile and no other fault,
//     and with the same blind time (reference/blind.go): a process can be up and not
//     see the world as it is (a held or lagging watch, a restart onto an
//     apiserver that is behind), and then does what it would on a cluster
//     whose user made those changes later (skips a run it does not see, runs
//     one by the version it sees). The reference keeps the faulted run's
//     views behind the world's writes (the same stale start, without the
//     crash, caught up at the heal as the faulted run's was; the same holds
//     and lags) but never behind the operator's own
//     writes, every incarnation's, which it shows the process at once
//     (plan.Blind): a view behind the operator's own writes is stale data,
//     which a correct operator does not trust (the canary's child made twice
//     because its cache does not show the first; a run made again because
//     the cache shows a status from before its record), and acting on it is
//     still caught. Blind time is a time-driven process's only (one of its
//     reconciles returned "requeue after" a time, reference/blind.go clockDriven): an
//     operator that acts on events alone reconciles on the world as it is
//     once its view has caught up, and the order in which it saw the user's
//     writes excuses nothing (operatortest/verdict/frozen_test.go's operator that gives up on a
//     deleted dependency with no error, having seen the deletion before the
//     edit made first, is caught). Like the late reference it is one more candidate
//     end state and one more bound on creates and deletes, not a source of
//     learned fields; a verdict it turns to holding says so in its detail.
//     It excuses what the time down explains, not what the restart does: a
//     difference it shows is forgiven only when the fault-free run of the
//     same restarts with no time down (each stop followed by a start at
//     once; run then, cached) does not show it too, so that an operator
//     that "starts clean" and re-creates what it made is still caught. A
//     missed run shows in it too and is not blamed. A crash that cut a
//     reconcile is bounded by two clean stops: the one before that reconcile
//     (none of its writes) and the one after it (a graceful shutdown, as
//     controller-runtime's manager does, lets the reconcile in hand finish:
//     all of its writes); the faulted run may end as either, and the stop
//     after is run (and its own no-time-down twin) only when the stop
//     before does not excuse the difference. It stands on kube-apiserver
//     committing a write whose response the dead client never read: the
//     schedule's Job made just before the crash has run, and a restart past
//     the run's deadline rightly does not make it again, though its status
//     record was never written. A crash between two writes whose
//     intermediate state the operator never completes ends as neither stop
//     (none or both of the writes), and is still caught; a run created
//     twice is more creates of one name (the Job of a scheduled time) than any
//     reference makes, and an overlap under Forbid is the domain property's to
//     judge.
//
// The namespace controller, the garbage
// collector and the replicaset, deployment, job, statefulset and
// endpointslice controllers (models/kube) run in every world as
// kube-controller-manager, and the kubelet model as process kubelet
// (operatortest/kubeworld): Deployments and StatefulSets roll out, Jobs
// complete, Services get EndpointSlices. A controller that none of its
// watched kinds' objects ever reaches reconciles nothing, so a run starts
// only those of the kinds its world may hold (package builtins): the workload
// models whose watched kinds, the kubelet when Pods, and the collector's
// controller of a kind when objects of it (or ownerReferences naming it) may
// appear; the namespace controller always. The kinds held at first are the
// CRDs', the seed objects', the script's and those a probe made (the
// fault-free run of the seed objects alone, once per world, with every
// controller); a run in which another such kind appears is run again with
// its controllers, so each run is the run with every controller that acts in
// it, a function of its plan alone (only the idle controllers' start-up
// lines and the picks among their starting workers are missing).
// NoWorkloadModels leaves the workload models out; WorkloadFaults also draws
// pods that are not ready, crash-loop or fail, and a lost node, until the
// heal (a real fault stops: the pod becomes ready, the container runs again
// after its back-off, the node comes back; a failed pod stays failed).
//
// Exec (world/exec.go) gives the handlers of the commands the operator execs in
// containers (pods/exec and attach through mgr.GetConfig(), with client-go's
// remotecommand SPDY executor, unchanged), by container name or image: fakes
// of the operands' CLIs, which keep their state in the container's files
// (ExecRequest.Files, for the pod's life) and which a property reads back
// (History.ContainerFiles). Each exec is one call of the process (trace,
// crash points, RBAC on create pods/exec); with Exec the plans also draw
// exec failures (a 500 before the command runs) and timeouts (the command
// ran, the client sees a 504). An exec into a container that does not run
// answers the kubelet's `container not found`; one with no handler fails
// with an error naming the pod, the container and the command
// (examples/execop).
//
// # Known gaps
//
//   - Which run made the writes the other did not is said of an object's
//     creates and deletes (converges on its existence, update-summaries;
//     extra_test.go), not of writes to its fields: a converges verdict on
//     a field names the two values, not which run wrote the field. And
//     update-summaries counts against the most of each count over the
//     fault-free runs, which may be two runs' (the creates of one, the
//     deletes of another), named together as "the fault-free run of the
//     same workload".
//   - Domain steps are the author's: the fault-free run "with no generated
//     workload" (no-error-at-rest) drops the domain steps with the other
//     drawn ones. A system's faults are events (steps): nothing tells a
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
//     judged as churn or as stuck.
//   - The comparing oracles learn nondeterministic fields from two
//     fault-free schedules, not every interleaving as Kamera's exhaustive
//     search does: a field that differs only in rare schedules can still be
//     a false alarm (Options.Nondeterministic names it). Live objects of one
//     generateName prefix and the same owners are numbered in creation
//     order (their content is not compared to order them), so two made
//     concurrently may swap numbers between runs. A resourceVersion copied
//     into a field not named resourceVersion, or a time in a form other than
//     RFC 3339 or Go's time.Time String (unix seconds outside the text of
//     an error at rest), is compared as a value. A field learned as nondeterministic for an object is free
//     whatever value the faulted run gives it.
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
//     generated names inside the content.
//   - Errors are compared by their cause when they are a validation's
//     refusal with field causes (apierrors.NewInvalid's text), and by the
//     user's value when they refuse a write for a string the reconciled
//     object holds at one field path: an internal error that quotes no
//     such value, a user value that is a number or is held at two paths,
//     and a condition's message that carries an internal error are
//     compared by their text. A cause's detail (which rule the value
//     broke) is not compared, nor, for the user's value, which child field
//     refused it.
//   - The status fields frozen while a reconcile fails by design are read
//     from the status writes made inside the controller's reconciles of
//     the object (each write's content against the object's previous
//     version in the watch log): a field the operator writes in a
//     separate write made outside a reconcile (a Runnable's) is not read.
//   - Frozen outputs (converges and interleavings-agree, frozen.go) are the writes made inside a
//     controller's reconciles of the failing object; what a Runnable or
//     another controller derived from it is compared as usual. The object
//     itself is told from its outputs by its controller's name being its
//     kind (controller-runtime's default) or by a status write; a
//     controller Named otherwise has its own object's spec and metadata
//     writes (a finalizer) left uncompared too while it fails by design.
//   - Churn both ways (churn.go) reads the workload's deletions from its
//     landed "action" steps: a deletion the operator's own code makes
//     (cleanup it starts itself) is no race with a user and does not open
//     the rule.
//   - ShowsTheBug's rule (blame.go) needs an owner reference on the object
//     (in either run); for an object with none that is not being deleted at
//     either end it does not tell. It finds the owner at the end by its
//     name: an owner with a generated name, named apart in the two runs, is
//     not matched across them.
//   - interleavings-agree compares the two fault-free runs strictly (it has
//     no third run to learn from): an environment draw that is not of the
//     shared seed (a model of the test's own drawing from cluster.Stream, a
//     pod's durations when two pods of one generateName are created
//     concurrently and swap places) is reported as a disagreement.
//   - The collector's rule applies to the watch log's owners: a dependent
//     whose owner is of a kind the log never shows (made before the run) is
//     taken as created for a gone owner. A stall storm is recognised by
//     holds and stale restarts (until the view catches up: at its end or the
//     heal) only: a long informer lag (up to the generator's MaxLag) drives
//     the same storm for a few seconds, below the hot-loop bound's ten.
//   - no-orphans judges the judged kinds that the collector collects (the
//     CRDs', the seed objects', common children's and, with the workload
//     models, theirs): a child of another kind (a Role, an Ingress) is
//     compared by converges but not collected.
//   - writes-at-rest (atrest.go): an idle write that follows another
//     object's change is taken for an answer to it, so a heartbeat in a
//     world where something else changes between two beats (a schedule's
//     Jobs running) is not seen. It counts what each write stored, not why: a
//     write at rest that stores something new every time (a counter of
//     polls, a message with the poll's number) is not idle, and is caught
//     only when the fault-free runs do not make it too. A heartbeat slower
//     than one write in HealBudget/6 is not seen (a longer HealBudget
//     widens rest). Times are told by their text (RFC 3339, Go's form), as
//     canon/equivalence.go masks them: one in Unix seconds is a change. A no-op
//     write is told by its resourceVersion: the first write that names a
//     resourceVersion is taken for the one that committed it.
package verdict
