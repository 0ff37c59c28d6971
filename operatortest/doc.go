// Package operatortest tests an operator's controllers under faults from one
// go test call: its own SetupWithManager functions, its CRD manifests and a few
// seed objects are all it asks for. It explores plans of a workload (the seed
// objects mutated, deleted and re-created, with mutations drawn from the CRDs'
// schemas, valid and invalid: workload.go, package schemadraw) and of faults (informer lag and stalled watches,
// crashes at any client call or right after a write, restarts onto a lagging
// apiserver, API errors, latency, more workers), runs each as a fault phase, a heal and a heal budget, judges the
// generic oracles and the test's own properties, shrinks a violation to a
// minimal plan, saves it under testdata/ctrlsim/, and fails the test with the
// violated property, what it saw, what each fault stands for on a real
// cluster and the steps from it to the violation, a replay command and the
// timeline (the controllers' log lines and Events included; the built-in
// processes' start-up and their steps on objects the operator never touched
// folded, -ctrlsim.timeline=full keeps them). Commit the saved plan: it is
// the test's regression input, as go fuzzing keeps its corpus in testdata.
// The run's picture (.svg), inspector (.html) and a markdown report for an
// upstream issue (.md) go to the artifacts directory, under the package's
// path in its module (-ctrlsim.artifacts=DIR, else $CTRLSIM_ARTIFACTS, which
// the Makefile sets for every test's artifacts, else a fresh temporary
// directory the failure names): failure.go; a replay with -ctrlsim.plan
// writes them again, and `ctrlsim report PLAN` replays a saved plan and
// prints that report.
//
// A kubebuilder project's test, complete (api/v1 holds the CronJob types,
// internal/controller the reconciler, config/crd/bases the CRD YAML):
//
//	package controller_test
//
//	import (
//		"testing"
//
//		clientgoscheme "k8s.io/client-go/kubernetes/scheme"
//		"k8s.io/apimachinery/pkg/runtime"
//		metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
//		"sigs.k8s.io/controller-runtime/pkg/client"
//		"sigs.k8s.io/controller-runtime/pkg/manager"
//
//		batchv1 "tutorial.kubebuilder.io/project/api/v1"
//		"tutorial.kubebuilder.io/project/internal/controller"
//		"github.com/ctrlsim/ctrlsim/operatortest"
//	)
//
//	func TestCronJobUnderFaults(t *testing.T) {
//		scheme := runtime.NewScheme()
//		_ = clientgoscheme.AddToScheme(scheme)
//		_ = batchv1.AddToScheme(scheme)
//		operatortest.Run(t, operatortest.Options{
//			Scheme:   scheme,
//			CRDFiles: []string{"../../config/crd/bases/*.yaml"},
//			Managers: []operatortest.Manager{{Name: "cronjob-manager", Setup: func(mgr manager.Manager) error {
//				return (&controller.CronJobReconciler{Client: mgr.GetClient(), Scheme: mgr.GetScheme()}).SetupWithManager(mgr)
//			}}},
//			Objects: []client.Object{&batchv1.CronJob{
//				ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "nightly"},
//				Spec:       batchv1.CronJobSpec{Schedule: "*/1 * * * *" /* ... */},
//			}},
//		})
//	}
//
// go test runs it; -ctrlsim.checks=N and -ctrlsim.seed=S change the budget and
// the explorer's seed, -ctrlsim.plan=FILE replays one plan (in Run and
// Explore), and -ctrlsim.keepgoing explores past violations (KeepGoing).
// -ctrlsim.shard=i/n explores one shard of the plans (n CI jobs, or an Indexed
// Job's pods) and -ctrlsim.json=FILE writes what it found; `ctrlsim merge` of
// the n files prints the unsharded exploration's result (see shard.go).
// Plans are explored on every core: Options.Workers (or -ctrlsim.workers;
// default GOMAXPROCS, 1 for the test's own process) workers judge the places
// of the plan sequence, handed out lowest first: the test's process and
// worker processes re-running the test binary on the test (-test.run=<its
// name>, CTRLSIM_WORKER set); the parent takes the
// lowest failing place once every place before it is judged, and shrinks it
// itself, recalling the workers' verdicts: the first failing plan, the
// minimal plan and the trace hashes are those of a run with one worker (see
// parallel.go; every worker draws from the pass's generator, the reference
// run's targets and writes included, so a place's plan is the same in any
// process). A worker that dies fails the exploration with one line; so
// does one that cannot reach it (a test -test.run cannot select again) when
// Workers or -ctrlsim.workers asked for workers, while by default such a test
// is explored in its own process alone (a log line says why), as is every
// exploration run by Outside (no test binary to re-run). While it simulates
// (Run, Explore, Replay, a fuzz input) the process runs on one P and at
// GOGC=400, put back after, unless the environment sets them (cores.go).
// A saved plan is
// replayed first on every later run until it holds. examples/twowrites is a
// working example (a crash between two dependent writes, caught by the
// converges oracle).
//
// # Generic oracles
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
// run that was: the plan tested nothing and held nothing (cut.go). Result.Cut
// counts such plans and the pass and failure lines say how many there were
// and why the first was cut; an exploration whose every plan was cut fails.
//
// Every comparing oracle is differential: it blames the faults only for what
// the fault-free runs of the same workload (under two schedules: the plan's
// seed and seed+2048 mod 4096, cached by seed and workload) do not also show.
//
//   - converges: the end state of the judged kinds is judged against the set
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
//     are candidates too (late.go). What a
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
//   - interleavings-agree: the two fault-free runs end alike (Kamera's
//     check); a violation is a race with no fault. When they disagree and
//     the faulted run ends as one of them, the report names the other as the
//     suspect, and converges does not blame the faulted run.
//   - update-summaries: no object is created or deleted more often than in
//     the fault-free run that did so most (fewer is no violation: a delayed
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
//     (the end state is converges' and terminates' to judge).
//   - no-error-at-rest: no controller's last reconcile of an object ends in
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
//     condition's message is compared by its cause too.
//   - terminates: nothing still deleting at the end, unless its deletion
//     has lasted no longer than a fault-free run of the same workload took
//     to delete the same object (the end fell mid-deletion of a retry
//     cycle; terminates.go). One a fault-free run never finished deleting
//     counts. no-orphans judges the end state alone.
//   - update-summaries also forgives the pace of a cycle: an object the
//     fault-free run made and unmade twice or more, made and unmade a
//     different number of times (churn.go); whether it ends made is the
//     end state's, converges' to judge.
//   - writes-at-rest (Kamera's no-op and liveness class; atrest.go): at
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
// Equivalence (equivalence.go) comes from what a real cluster makes
// nondeterministic, wherever it appears: a uid becomes a token named by its
// object ("<uid:Job shop/nightly>") in every place it occurs (ownerReferences,
// a Job's selector and template labels, annotations, names built from it); a
// generated name becomes its prefix and the place of the object it names
// among the live objects of that prefix, ordered by their owners
// ("nightly-*", "nightly-*2"), or among the deleted ones
// ("nightly-*deleted"), in every reference to it (status.jobName, an owner
// reference, data): the suffix is the apiserver's draw, but which object a
// reference names is not, while how many objects of the prefix were made
// before the live one races with the user's steps (generated.go); a name a
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
// the newest is named first, as the one a reference at rest names. This
// holds for the names the built-in controllers derive (their hash labels
// say what the hash covers); a checksum an operator computes itself over
// content with a time in it is opaque: converges learns it where the two
// fault-free runs differ, and interleavings-agree reports it (Known gaps).
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
// Churn is judged by the rules of the cluster it stands on:
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
// it is up. Two rules make it pass with default Options:
//
//   - interleavings-agree compares two schedules in one environment. What the
//     world outside the operator's schedule draws at random is drawn from a
//     seed a plan's seed and its partner (seed+2048) share (random.go): the
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
//     reference is run (downtime.go, cached as the others): the fault-free
//     run of the same downtime, the faulted run's process-down windows (each
//     crash, exit or stale restart to the process's next start) replayed as
//     clean stops (plan.Stop: the process stops between reconciles, before
//     the reconcile a crash cut short began, and starts again when the
//     faulted run's did), with no crash mid-reconcile and no other fault,
//     and with the same blind time (blind.go): a process can be up and not
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
//     reconciles returned "requeue after" a time, blind.go clockDriven): an
//     operator that acts on events alone reconciles on the world as it is
//     once its view has caught up, and the order in which it saw the user's
//     writes excuses nothing (frozen_test.go's operator that gives up on a
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
// only those of the kinds its world may hold (builtins.go): the workload
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
// Exec (exec.go) gives the handlers of the commands the operator execs in
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
// # No silent pass
//
// Options are validated before anything runs: an unknown name in Disable
// (the error lists the valid ones) or Expect, a negative Checks, FaultPhase,
// HealBudget, ShrinkRuns or Replicas, a Manager without a Name or a Setup
// (or with a Deployment and several Replicas, or a negative StartDelay),
// KeepGoing with a Shard: each fails the test with one line naming the
// field (Explore returns it as an error). So does what the world can never
// do (validate.go): a fault class in Faults.Classes it has no material for
// (stale with no process, the kubelet's faults without WorkloadFaults, api
// with no template, workers), an API fault template whose verb, resource or
// process matches no request, a scripted patch or delete of an object that
// is no seed, not scripted and absent from the fault-free run of the
// script, a Shard out of range, a Property with a nil Check or named like
// an oracle, and a plan file (-ctrlsim.plan, or a saved one) whose step
// names a seed object the test lacks or whose first comment names another
// test. A manager's Setup that does not return within a minute of the
// bubble's (virtual) time fails the test naming the manager
// (validate_setup.go). A manager whose Setup returns an error or panics in
// a run with no fault (a reference run, or the preflight run each
// exploration starts with, whatever the oracles) fails the test with the
// manager's name and the error, or the panic and its stack; the panic is
// recovered, the test binary survives. Under faults the same failure is
// what a pod does (its main exits, it restarts after its back-off), and the
// run goes on.
//
// Every violation found while exploring is replayed from its minimal plan
// before it is reported: a replay that holds, or that gives another trace
// hash, fails the test with both hashes and the first step where the two
// runs differ, saying whose step it is: a write of the operator's whose
// content differs (the operator itself is nondeterministic: a list built by
// ranging over a Go map, an unseeded random value), a log line, or a step
// of the world's own (a determinism bug of ctrlsim). Run and Explore log the
// plans run, the effective seed (0 is 1), the wall time to the first
// violation and the time shrinking took, with the candidates the shrinker
// tried and the runs they cost (Result has them too); meanwhile, every 5 s
// of wall clock, how far the search or the shrink has got (plans judged;
// candidates tried, their runs and the smallest failing plan so far), so
// that a long exploration is never silent under go test -v. A plan
// judged again in one exploration (rapid's shrinker draws one plan from
// many byte strings) is recalled, not run again: a run is a function of its
// plan; the replays above always run. Shrinking keeps the last 256
// reference runs (by seed and workload, the oldest forgotten first), and
// stops judging a candidate once a violation that no later judging revises
// (a property of the test's, a kernel verdict, terminates, no-orphans)
// decides it: the runs that would revise converges, update-summaries,
// no-error-at-rest and interleavings-agree (the late operator, other
// random draws, the same downtime) are not made for it. The minimal plan is
// then judged to the end once, so its report names every violation, with
// the same trace hash (shrink.go). Rapid's shrinker tries candidates one at
// a time, in this process: worker processes judge the places of the
// exploration, not the candidates of a shrink.
//
// # A known bug, and keeping going
//
// Options.Expect names a property the test expects to be violated
// (AnyProperty: any): the regression test of a known bug. Run passes when a
// plan violates it, logging the same report, saved plan and replay line;
// it fails when the budget holds (the bug is no longer caught) and when a
// violation of another property is found.
//
// Options.KeepGoing (-ctrlsim.keepgoing) keeps exploring past violations, as
// a fuzzer keeps going past a crash: violations are told apart by their
// signature (the property, the kinds its report names and, for a panic, the
// function and file:line that panicked, never its goroutine or the object
// it reconciled), and each distinct one is shrunk to its own minimal plan,
// saved as testdata/ctrlsim/<test>.<property-kinds>.<hash>.plan, replayed and
// reported. A pass over the budget looks for one new signature (plans
// already judged are recalled, not run again); the search ends when a pass
// finds none, or at 16 distinct violations. With worker processes, the
// workers judge every place first, and the distinct violations they saw are
// shrunk in parallel, each in a process of its own, to the minimal plans the
// passes would give (shrinkjobs.go); a run's work is bounded (cut.go), so no
// candidate takes minutes. Saved plans of every signature
// are replayed first and their signatures count as known.
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
// # Sieve's three patterns, aimed
//
// Systematic before random (sweep.go): an exploration first runs the
// targeted plans of one workload, the test's script alone on the schedule of
// the explorer's seed, enumerated from that workload's fault-free run
// (plan.Sweep), one fault each, the four classes interleaved so that a
// budget smaller than the sweep covers each class's most interesting plans:
// a crash right after each write of each operator process (the reference
// run's intermediate states first); a stale restart for each pair of
// changes A then B of kinds the process caches (its watch cache of A's kind
// frozen just after A, then just before it, then every kind's; the crash
// 1 ms after B, so that the new incarnation, up the CrashLoopBackOff later
// and before the heal, lists A's past while B is done; A a deletion
// starting, a deletion, a status write, a spec change, a creation, in that
// order; B a creation or deletion, a creation first: the object re-created,
// the member scaled back up); a hold of a kind from just before each of its
// changes until the heal; and every unobserved window (one object's changes
// withheld from the process, its lists included, from its creation or one
// change until its next: plan.UnobservedWindows). The sweep takes at most
// half of Checks (the random plans the rest, numbered after it); every
// targeted plan shares its workload's references, so a sweep costs about
// one run a plan. A targeted plan is not shrunk: it is the workload and one
// fault. Result.Targeted, and the pass and failure lines, say how many of
// each class ran of how many ("targeted plans: crashes after a write 4 of
// 4, stale pairs 32 of 32, holds across a change 3 of 3"). A stale restart
// is drawn, targeted or at random, only where its new incarnation starts
// before the heal (which ends every fault: a view that starts after it is
// fresh and the plan would test nothing).
//
// Then the random plans. Each plan's seed and workload first run without faults (the reference run,
// kept for converges and update-summaries). Its writes, and its operators'
// live reads, in the fault phase are the targets: a drawn crash at a time or a
// stale restart lands either anywhere or 1 ms after a target, and a hold (a
// stalled watch) starts either anywhere or 1 ms before one; a crash right
// after a process's k-th write is drawn either after any of its first ten
// writes or after one of the reference run's intermediate states (a write
// that another write of the same reconcile follows: a crash after a
// reconcile's last write leaves none), so that a bug between two writes of
// a rarer path (a finalizer's removal and its cleanup, after the
// workload's deletion) is reached in tens of plans, not a hundred. The three
// patterns: a crash right after a process's k-th write (intermediate state),
// a watch held across a write the operator should see before it acts
// (unobserved state), and a restart onto an apiserver up to half the fault
// phase behind, whose lists show the past (stale state). A stale restart is
// aimed as sharply: at one of the changes the apiserver committed in the
// reference run to a kind the world collects (its watch log, deletions and
// status writes included), its lagging watch cache at the resourceVersion
// just before or just after that change (rev=), the restart after it; and
// scoped to that change's kind (kind=: one watch cache behind, the others
// fresh, as kube-apiserver's per-resource watch caches can be) or to every
// kind. A bug that needs the restarted operator to see one object just
// before one write is then one draw among the run's writes, not a window of
// milliseconds in a phase of a minute (examples/staleview).
//
// Each plan runs in a testing/synctest bubble (package wallclock): the
// operator's time.Now, metav1.Now and timers follow the virtual clock.
//
// # Profiling a test
//
// Every run labels its goroutines for CPU profiles (profile.go):
// LabelPhase says what it was for (find, shrink, replay, preflight) and
// LabelRun whether it is the plan or one of its fault-free references, so
// that `go test -cpuprofile cpu.prof` and `go tool pprof -tagfocus
// ctrlsim.phase=shrink cpu.prof` show where an exploration spent its time.
// The runtime's work on its own stacks (the collector's background work,
// part of each goroutine switch) carries no label.
//
// # The workload
//
// A plan's workload is the author's script (Options.Workload.Script: Create,
// Patch and Delete at given times, run by the harness as cluster admin,
// never crashed or stalled, never shrunk away, written in the plan's text as
// "script at ..." lines so that a saved plan replays it) and steps drawn over
// the seed objects (workload.go: mutations from the CRD schemas, valid or
// invalid, deletions, re-creations; Options.Workload.Objects and .Steps
// choose which objects and which kinds). One user runs them all, as a person
// with kubectl or a GitOps tool does: the steps on one object in their
// order, each until it has landed. A create or re-creation that meets the old
// object still being deleted (AlreadyExists while a finalizer holds it) is
// retried after 1s, 2s, 4s, ... up to 10s between tries, until it lands or the
// heal budget ends; a scripted step also retries transient errors (429, 500,
// 503, 504, timeouts); later steps on that object wait and run right after
// it. The timeline says each of these ("pending: AlreadyExists: ... is still
// being deleted (finalizers [...]); tried again in 1s", "pending: waits for
// the recreate of ...", "error: given up, ..."). A step the API refuses
// otherwise is a line of the timeline, never a violation.
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
// the fault-free run drew it (random.go says what that gives up).
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
// # An operator built on client-go
//
// A controller written with client-go alone (informer factories, listers, a
// workqueue, workers under wait.Until, an event broadcaster), not with
// controller-runtime, is a Manager whose Setup is ClientGoSetup(start): start
// gets the incarnation's clientset, dynamic and metadata clients and their
// informer factories (clientgo.go), its queue from ClientGoQueue (the
// simulator's client-go queue on virtual time), and runs as the process's
// Runnable; client-go's own reflectors watch over the process's REST config,
// fed from its informers (their lag, holds and stale restarts included), and
// every goroutine it starts is a task of the process. examples/clientgo is
// one, a bug of that style caught and its correct twin holding. An operator
// that builds its own factory or its own workqueue instead is not
// deterministic (the factory starts its informers in map order) or is slow
// (a real workqueue waits on the wall clock: about 5 s a plan):
// sim/process's Known gaps.
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
//   - The fault profile (Options.Faults, faults.go): the classes drawn,
//     the operator processes they fall on, the kinds whose caches lag or
//     are held (no lag of every kind at once then), and API faults of the
//     author's own among the templates (a 422 on one field of a PATCH, as a
//     too-large annotation gets), so that an exploration spends its plans
//     where a bug can be. A name the world does not have is refused with
//     one line; a plan's text replays as written whatever the profile.
//
// Replay runs one plan judged as Run judges it and returns its verdicts,
// trace hash, timeline, story and final state (Replayed.Final, a History:
// the objects at the end and every committed version before): the
// catalogue's pages, `ctrlsim replay`, and a test that pins what one plan
// does in more detail than a property (the scenario packages' specs of
// their seeds). Outside a go test binary (a command such as ctrlsim run),
// Outside runs Explore or Replay as a test of the program.
//
// # Known gaps
//
//   - A Setup that spins without blocking, or blocks while a goroutine of
//     the bubble keeps a timer for ever, is not bounded (the bubble's time
//     does not move, or it never deadlocks): go test's -timeout ends it.
//     After a blocked Setup the world's goroutines stay blocked, and what
//     the bubble's cleanups would restore (KUBECONFIG, http.DefaultTransport
//     routed to the simulated cluster: wallclock) stays set for the rest of
//     the test binary. An API fault template's resource is checked against
//     the scheme's kinds and the CRDs given: a kind whose CRD the operator
//     installs at run time, with no Go type, is refused. Workers faults
//     are never drawn (no controller is offered to the generator; a
//     plan's text can name one): plan.Workers in Faults.Classes is refused.
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
//   - Shrinking is rapid's, one candidate at a time in the test's process,
//     and can cost several times the search: on the CronJob example's
//     tutorial design (explorer seed 1, 2026-11-25, one P at GOGC=400:
//     cores.go) the first failure came after 40 plans in 5.5 s and the
//     shrink took 29 s, 7,024 candidates of which 403 were new plans (536
//     runs with their references), each held candidate run to the end of
//     its 7 virtual minutes (about 40 ms: a CronJob world is never at
//     rest, its schedule always has a timer); its last shrink came at the
//     281st new plan, and a final round that shrinks nothing ran the other
//     122. Lowering the seed costs reference runs (125 of the 536): a new
//     seed is a new fault-free run. A stale fault names a resourceVersion
//     (rev=), so removing a workload step that comes before it renumbers
//     the writes and the step stays until the rev is lowered too.
//     ShrinkRuns bounds it. With worker processes the other cores idle
//     while the parent shrinks. Where a run's time goes (reports/bench.md,
//     "Where the CPU time goes", from these profile labels): on the CronJob
//     example, kube-apiserver's field manager on the Job controller's and
//     the kubelet model's status writes over a quarter of the CPU, the API
//     server's storage and validation a fifth (both upstream code, hosted),
//     the informers an eighth; on a small operator, the scheduler's
//     goroutine switches a quarter, the API server a fifth, starting the
//     managers a twelfth. No part is large enough that removing it alone
//     reaches issue 31's targets (500 plans a second for a small operator,
//     a CronJob bug shrunk in under 10 s).
//   - Outside reaches testing through testing.MainStart with a minimal
//     testDeps (no profiling, fuzzing or coverage) and swaps os.Stdout for
//     the test's output while it runs: one at a time, in a program whose
//     own output does not go through os.Stdout meanwhile. Within a test
//     binary (a command's code under test) the nested run inherits none of
//     the binary's selection (-test.run, -skip, -count, -cpu, -list,
//     -shuffle, -bench, -fuzz) or files: it runs its one test once. testing
//     rebuilds its -test.cpu list in every run, so after Outside that
//     binary's benchmarks run at the GOMAXPROCS of the moment, not its list.
//   - A failure's "from the fault to the violation" (failure.go) is a
//     selection, not a causal slice: the operator's steps from the plan's
//     first fault that shows in the run (a crash, a stale restart, a held
//     watch, an API fault), the workload's, and the built-in processes' on
//     the objects the violation's text names. A lag, latency or workers
//     fault shapes every step and has no step of its own to start from.
//   - The drawn workload (workload.go; the values: package schemadraw) changes the seed
//     objects only, at most MaxSteps steps a plan (the script adds its own):
//     under spec of a seed custom resource, it sets a field (scalars; nested
//     objects, lists and maps as a whole), appends, replaces or removes a list item, or sets or removes a
//     map key; it deletes a seed object or re-creates it. It creates no new
//     objects and changes no status or metadata. Values are drawn from type,
//     enum, pattern (regexp/syntax, repetitions bounded), minLength,
//     maxLength, the formats the apiserver checks (date-time, date, duration,
//     uuid, ipv4, ipv6, cidr, mac, hostname, email, uri, byte, k8s-short-name,
//     k8s-long-name; others are drawn as plain strings and labelled unknown),
//     minimum, maximum and their exclusive forms, multipleOf (integral ones;
//     a fractional one is labelled unknown), int-or-string, required,
//     minItems, maxItems, list-type set and map, minProperties and
//     maxProperties; nesting stops at depth 4, and fields of an object the
//     seed lacks are set with the object as a whole. x-kubernetes-validations
//     (CEL) rules, allOf/anyOf/oneOf/not are not drawn from: a value under one
//     is labelled unknown when valid by the rest (the apiserver model
//     evaluates CEL rules and decides). Embedded resources and fields that
//     preserve unknown fields are left alone. A label holds for the seed as
//     the test gave it, not for the state that earlier steps leave.
//     InvalidMutations alone draws from the places whose drawing can break a
//     constraint (found by drawing each place a few times).
//   - The script's patches are JSON merge patches only (no strategic merge
//     or JSON patch), and it cannot wait for a condition (a rollout), only
//     for a time. A hand-written api fault without process= also fails the
//     script's requests: they are retried while it lasts when transient,
//     refused otherwise. Its retries are a fixed back-off (1s doubling to
//     10s), not a particular GitOps tool's.
//   - Randomness: math/rand/v2's global functions (and Go map order,
//     hash/maphash) read the runtime's per-thread generator, which nothing in
//     the process can seed; an operator that draws from them gives two trace
//     hashes for one plan, which a replay shows (wallclock's
//     TestMathRandV2GlobalsCannotFollowTheSeedAndAreDetected). The process's
//     seeded sources are shared by every process of the world: an operator
//     whose draws interleave with another manager's, or whose number of draws
//     before a value differs between two runs (a Secret re-created after the
//     workload deleted its owner while the cache lagged), writes different
//     values in the two runs; those fields are learned from one more run with
//     other draws (see Randomness), one sample: a field that the other draws
//     happen to leave alone in that run is still compared, and a field whose
//     value the draws change through timing (math/rand's jitter of a retry)
//     is learned as random too. A parallel test (t.Parallel) cannot seed them
//     and fails with one line.
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
//   - A checksum or hash an operator computes itself (an annotation of a
//     pod template over a ConfigMap's content) is opaque: when that
//     content holds a time or a uid, the checksum differs between two
//     schedules, and only converges learns it (where the two fault-free
//     runs differ); interleavings-agree reports it. The digest of the
//     built-in controllers' hash names masks times and uids, not the
//     run's generated names inside the content.
//   - Errors are compared by their cause only when they are a
//     validation's refusal with field causes (apierrors.NewInvalid's
//     text): a refusal with none (kube-apiserver's IP allocator's
//     "Internal error occurred: failed to parse service IP", met on a
//     Service's create before validation, where an update meets the
//     validation's field error) is its text, and the two still differ.
//     A cause's detail (which rule the value broke) is not compared.
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
//   - Time-driven is read from the faulted run: a process that reads the
//     clock but never returned "requeue after" in it (or was blind through
//     all its timed reconciles) gets no blind time, and a process that
//     polls with "requeue after" gets it though its clock only paces a
//     retry.
//   - Time-driven operators: the fault-free run of the same downtime and
//     blind time (see Generic oracles) replays a lag's bounds, not the
//     faulted run's draws of it (the reference draws its own per event), and
//     a view behind the world's writes is excused only where those writes
//     were the world's: a write of the operator that carried a user's change
//     along (a status update of an object the user had edited) shows the
//     process that change at once too. Stale data about objects of the
//     world is blindness by this rule: an operator that acts on a user's
//     deleted object still in its stale cache is judged against a reference
//     that does so too, and only its own properties (or what it makes twice
//     by its own writes) catch it (examples/cronjob's finding 3 is caught by
//     its property). The late reference
//     covers the workload's timing only, not the clock's. The downtime is
//     replayed at the faulted run's instants on the fault-free run's pace: a
//     reconcile that latency or lag made late in the faulted run, and that
//     the crash did not cut (it had not begun), may be done before the stop
//     in the reference. A clean stop that finds a reconcile in flight waits
//     for a moment no worker is reconciling: with several workers busy in
//     turn it may come later than the faulted run's crash. A time-driven
//     operator is never at rest: a Job that finishes within milliseconds of
//     the run's end may be complete in one schedule and running in the
//     other (the interleaving moves it by the API's latencies).
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
//   - Each plan costs two fault-free runs besides its own (its schedule's,
//     whose reads and writes are also the targets, and another's), and a
//     third (the late operator's) when converges would otherwise fire, also for
//     the plans a shard does not run (the generator needs the targets to
//     draw); and one to four more (the same downtime and blind time's, then
//     the same restarts' with no time down or blind, each with the stop
//     before and, when that does not excuse, after a cut reconcile) when converges or
//     update-summaries would still fire and an operator's process was down
//     or its view behind (a stale restart, a hold or lag of its watches);
//     references are cached by seed and workload (64 at most), the
//     downtime's by its windows too (a shrink's replays reuse it).
//   - Worker processes (Options.Workers) re-run the test from its start and
//     explore at its first exploration (Run or Explore) only: a test's later
//     explorations run in its own process (with a log line; an explicit
//     Options.Workers above 1 there is an error), so give each exploration
//     its own subtest to use every core, and let nothing before it depend on
//     what an earlier subtest or test did (the worker's -test.run skips
//     them: it never reaches its exploration, which then fails loudly
//     when workers were asked for and runs in the test's process by
//     default, after the worker's start was spent). A worker
//     costs a process start, the test's body up to the exploration and the
//     preflight run: an exploration of a few fast plans is slower with
//     workers than without. With a shard, a draw rapid rejects at a place
//     of another shard is not seen by the workers (they do not draw those
//     places); one rejected in their share makes the exploration run in the
//     test's process. A worker left behind by a parent that died exits at
//     its next verdict (its pipe is gone), not at once.
//   - A stale restart models a lagging apiserver as a fixed age that ends at
//     once when it has caught up (at the heal at the latest: the heal ends
//     every fault, and the view's held-back events arrive then); a real
//     watch cache catches up gradually.
//   - Replicas elect their leader with client-go's algorithm run by the
//     simulator (sim/process elect.go), not with client-go's LeaderElector
//     itself; its Known gaps apply. A Lease's renewals are not targets
//     (every RetryPeriod, they would crowd the operator's own writes out).
//   - KeepGoing's signatures name kinds as words of a violation's report: two
//     plans of one bug whose reports name different kinds count as two
//     violations, and one report naming no kind (no-error-at-rest of a
//     custom resource's reconcile) merges what differs only in the objects.
//     It is not sharded. Without worker processes its distinct violations
//     are shrunk one after another; with them, those the random plans show
//     are shrunk in processes of their own, as many at once as there are
//     workers (shrinkjobs.go), but the sweep's are judged in the test's
//     process first. Expect judges a violating plan as a whole: a plan that
//     violates the expected property and another passes.
//   - A run with fewer built-in controllers than every one (builtins.go)
//     draws its schedule among fewer starting workers: its trace differs
//     from the all-controller run's of the same plan (its verdicts need
//     not: the idle controllers never act). A kind that appears only in
//     some plans costs those plans a second run.
//   - The garbage collector and namespace controller know only the CRDs',
//     the seed objects' and common children's kinds (ConfigMap, Secret,
//     Service, ServiceAccount, Deployment, StatefulSet, Job), and Pods,
//     ReplicaSets, EndpointSlices, ControllerRevisions and
//     PersistentVolumeClaims when the workload models run.
//     A kind that only a CRD created during the run serves (no Go type, no
//     manifest in Options.CRDs) is collected from the collector's first
//     discovery sync after its CRD is Established (every 30 s from the
//     start of kube-controller-manager, as upstream's GarbageCollector.Sync;
//     models/kube), so a dependent of a deleted owner of that kind waits
//     for that sync as on a real cluster; such a kind is not judged by the
//     generic oracles, nor deleted by the namespace controller.
//   - Every world serves CustomResourceDefinition objects: Run registers
//     apiextensions.k8s.io/v1 in Options.Scheme (once, under a lock) when it
//     lacks it. A scheme shared with code that reads it concurrently while the
//     first Run starts (another test's client, in parallel) races with that
//     registration: register apiextensionsv1 yourself to avoid it.
//   - writes-at-rest (atrest.go): an idle write that follows another
//     object's change is taken for an answer to it, so a heartbeat in a
//     world where something else changes between two beats (a schedule's
//     Jobs running) is not seen. It counts what each write stored, not why: a
//     write at rest that stores something new every time (a counter of
//     polls, a message with the poll's number) is not idle, and is caught
//     only when the fault-free runs do not make it too. A heartbeat slower
//     than one write in HealBudget/6 is not seen (a longer HealBudget
//     widens rest). Times are told by their text (RFC 3339, Go's form), as
//     equivalence.go masks them: one in Unix seconds is a change. A no-op
//     write is told by its resourceVersion: the first write that names a
//     resourceVersion is taken for the one that committed it.
package operatortest
