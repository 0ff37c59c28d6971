// Package operatortest tests an operator's controllers under faults from one
// go test call: its own SetupWithManager functions, its CRD manifests and a few
// seed objects are all it asks for. It explores plans of a workload (the seed
// objects mutated, deleted and re-created, with mutations drawn from the CRDs'
// schemas, valid and invalid: workload.go, schemadraw.go) and of faults (informer lag and stalled watches,
// crashes at any client call or right after a write, restarts onto a lagging
// apiserver, API errors, latency, more workers), runs each as a fault phase, a heal and a heal budget, judges the
// generic oracles and the test's own properties, shrinks a violation to a
// minimal plan, saves it under testdata/ctrlsim/, and fails the test with the
// violated property, what it saw, what each fault stands for on a real
// cluster and the steps from it to the violation, a replay command and the
// timeline (the controllers' log lines and Events included; the built-in
// processes' start-up and their steps on objects the operator never touched
// folded, -ctrlsim.timeline=full keeps them). Beside the plan it writes the
// run's picture (.svg), inspector (.html) and a markdown report for an
// upstream issue (.md): failure.go; `ctrlsim report PLAN` replays a saved plan
// and prints that report.
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
// the explorer's seed, and -ctrlsim.plan=FILE replays one plan.
// -ctrlsim.shard=i/n explores one shard of the plans (n CI jobs, or an Indexed
// Job's pods) and -ctrlsim.json=FILE writes what it found; `ctrlsim merge` of
// the n files prints the unsharded exploration's result (see shard.go). A saved plan is
// replayed first on every later run until it holds. examples/twowrites is a
// working example (a crash between two dependent writes, caught by the
// converges oracle).
//
// # Generic oracles
//
// On by default, named in Options.Disable to turn one off: converges (the end
// state equals the fault-free run of the same workload, modulo uids,
// resourceVersions, generations, timestamps, generated-name suffixes and the
// order of status conditions),
// update-summaries (no object created or deleted more often than in that run),
// interleavings-agree (the fault-free runs of two schedules end alike),
// terminates, no-orphans, no-error-at-rest; and the kernel's hot-loop,
// livelock and reconcile-panic. The namespace controller, the garbage
// collector and the replicaset, deployment, job, statefulset and
// endpointslice controllers (models/kube) run in every world as
// kube-controller-manager, and the kubelet model as process kubelet
// (operatortest/kubeworld): Deployments and StatefulSets roll out, Jobs
// complete, Services get EndpointSlices.
// NoWorkloadModels leaves the workload models out; WorkloadFaults also draws
// pods that are not ready, crash-loop or fail, and a lost node, until the
// heal (a real fault stops: the pod becomes ready, the container runs again
// after its back-off, the node comes back; a failed pod stays failed).
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
// # Sieve's three patterns, aimed
//
// Each plan's seed and workload first run without faults (the reference run,
// kept for converges and update-summaries). Its writes, and its operators'
// live reads, in the fault phase are the targets: a drawn crash at a time or a
// stale restart lands either anywhere or 1 ms after a target, and a hold (a
// stalled watch) starts either anywhere or 1 ms before one. The three
// patterns: a crash right after a process's k-th write (intermediate state),
// a watch held across a write the operator should see before it acts
// (unobserved state), and a restart onto an apiserver up to half the fault
// phase behind, whose lists show the past (stale state).
//
// Each plan runs in a testing/synctest bubble (package wallclock): the
// operator's time.Now, metav1.Now and timers follow the virtual clock.
//
// # Known gaps
//
//   - A failure's "from the fault to the violation" (failure.go) is a
//     selection, not a causal slice: the operator's steps from the plan's
//     first fault that shows in the run (a crash, a stale restart, a held
//     watch, an API fault), the workload's, and the built-in processes' on
//     the objects the violation's text names. A lag, latency or workers
//     fault shapes every step and has no step of its own to start from.
//   - The workload (workload.go, schemadraw.go) changes the seed objects
//     only, at most MaxSteps steps a plan: under spec of a seed custom
//     resource, it sets a field (scalars; nested objects, lists and maps as a
//     whole), appends, replaces or removes a list item, or sets or removes a
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
//   - Converges, update-summaries and interleavings-agree compare the judged
//     kinds only: the CRD kinds, the seed objects' kinds and common children
//     (ConfigMap, Secret, Service, ServiceAccount, Deployment, StatefulSet,
//     Job). interleavings-agree compares two schedules (the plan's seed and
//     seed+2048 mod 4096), not every interleaving as Kamera's exhaustive
//     search does. A field that legitimately differs between two runs and is
//     not a timestamp, uid or resourceVersion (a counter of attempts, a random
//     token) makes them false alarms: disable them, or give the field a
//     deterministic value.
//   - Targets cost a fault-free run per drawn plan, also for the plans a shard
//     does not run (the generator needs them to draw); references are cached
//     by seed and workload (64 at most).
//   - A stale restart models a lagging apiserver as a fixed age that ends at
//     once when it has caught up; a real watch cache catches up gradually.
//   - Replicas elect their leader with client-go's algorithm run by the
//     simulator (sim/process elect.go), not with client-go's LeaderElector
//     itself; its Known gaps apply. A Lease's renewals are not targets
//     (every RetryPeriod, they would crowd the operator's own writes out).
//   - With the workload's deletions, an owner deleted while an operator's watch
//     of it stalls makes the operator re-create children the garbage collector
//     deletes, as fast as the API serves them, until the watch catches up; a
//     stall of ten seconds or more is then judged a hot loop. A real cluster
//     does the same, but any operator that owns children does it: set
//     NoWorkload, or Disable nothing and read the timeline, to tell it from
//     a bug of your own.
//   - The garbage collector and namespace controller know only the judged
//     kinds, and Pods, ReplicaSets, EndpointSlices, ControllerRevisions and
//     PersistentVolumeClaims when the workload models run.
package operatortest
