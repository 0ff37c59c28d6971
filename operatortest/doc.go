// Package operatortest tests an operator's controllers under faults from one
// go test call: its own SetupWithManager functions, its CRD manifests and a few
// seed objects are all it asks for. It explores plans of a workload (the
// operator's own seed objects, its custom resources and the seeds they own,
// mutated, deleted and re-created, with mutations drawn from the CRDs'
// schemas, valid and invalid: workload.go, package schemadraw; the seeds of
// built-in kinds besides, a Namespace or a ConfigMap an install made, are
// the cluster's set-up, touched only where Workload.Objects names them) and of faults (informer lag and stalled watches,
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
// Explore), -ctrlsim.keepgoing explores past violations (Options.KeepGoing),
// -ctrlsim.shard=i/n explores one shard of the plans and -ctrlsim.workers=N
// sets the worker processes (default: every core). A saved plan is replayed
// first on every later run until it holds. Explore returns what an
// exploration found without failing the test; Replay runs one plan and
// returns its History; Fuzz makes a fuzz test of the same plans.
// examples/twowrites is a working example (a crash between two dependent
// writes, caught by the converges oracle).
//
// # An operator built on client-go
//
// A controller written with client-go alone (informer factories, listers, a
// workqueue, workers under wait.Until, an event broadcaster), not with
// controller-runtime, is a Manager whose Setup is package
// operatortest/clientgo's Setup(start): start gets the incarnation's
// clientset, dynamic and metadata clients and their informer factories (a
// clientgo.Env), its queue from clientgo.Queue (the simulator's client-go
// queue on virtual time), and runs as the process's
// Runnable; client-go's own reflectors watch over the process's REST config,
// fed from its informers (their lag, holds and stale restarts included), and
// every goroutine it starts is a task of the process. examples/clientgo is
// one, a bug of that style caught and its correct twin holding. What such an
// operator must not build itself is the first of the Known gaps below.
//
// # Where things are
//
// Each part is a package with its own doc and Known gaps; read those
// before trusting a result. The parts import only downward, floor by floor
// as docs/design.md states the order ("Floors inside sim/ and
// operatortest/"), and internal/lint holds every import to it:
//
//   - operatortest/world: the Options and the types they take (each alias
//     here is one of world's), the world built from them, one run of a plan,
//     domain steps, systems, properties, replicas, randomness.
//   - operatortest/faults: the fault profile (Options.Faults) narrowed
//     into the plan space, checked against the world, and the API errors
//     drawn by default, aimed at a fault-free run's writes.
//   - operatortest/builtins: which built-in controllers a run starts (the
//     kinds it may hold), the garbage collector and namespace
//     controller set up over them, and every namespace's default
//     ServiceAccount and kube-root-ca.crt ConfigMap (kcm's hosted
//     controllers; the cluster's own namespaces' from its bootstrap).
//   - operatortest/workload: the drawn workload and the user's steps
//     (operatortest/schemadraw: values drawn from CRD schemas).
//   - operatortest/verdict: the generic oracles (converges, update-summaries,
//     interleavings-agree, terminates, no-orphans, no-error-at-rest,
//     writes-at-rest), what they compare (operatortest/canon: the
//     equivalence of two runs), and which of two runs that disagree shows
//     the bug (the blame rule).
//   - operatortest/cause: the errors a run's reconciles end in, by their
//     cause (the value the user wrote that an error quotes, a validation's
//     causes), as no-error-at-rest compares and excuses them.
//   - operatortest/reference: the fault-free runs a faulted run is judged
//     against, the rule that says which and why, and where faults are aimed.
//   - operatortest/search: the exploration (the sweep, random plans, worker
//     processes, shards, shrinking, keeping going, no silent pass).
//   - operatortest/workers: an exploration spread over processes: worker
//     processes on every core, shrink jobs, shards and their merge.
//   - operatortest/rundiff: where two runs of one plan differ (a run that
//     is not a function of its plan, a replay that does not agree).
//   - operatortest/failure: what a failing test prints and writes.
//   - operatortest/rootcause: where a finding's run first goes wrong, and
//     which findings are one root cause (what KeepGoing lists under one).
//   - operatortest/story: a run laid out for a reader: the picture (.svg),
//     the run inspector (.html) and the story of a violation, the steps
//     that led to it (read by failure, Replay and the catalogue).
//   - operatortest/clientgo: the Setup and the queue of an operator built on
//     client-go alone (above).
//   - operatortest/kubeworld: the workload models of models/kube (and
//     kube-controller-manager's own controllers, package kcm, where a world
//     may hold their kinds) and the kubelet wired into a world.
//
// Each part's tests are its specification, one file per rule (frozen
// outputs: operatortest/verdict/frozen_test.go), over the small test
// operators of operatortest/internal/optest.
//
// # Known gaps
//
//   - An operator on client-go that builds its own informer factory is
//     deterministic only with one informer type on it (the factory starts
//     its informers in map order;
//     sim/process.TestAClientGoInformerFactoryDeterminism runs one), and
//     nothing tells it apart from Setup's factories
//     (wallclock.TestTheCensusDoesNotTellAnOperatorsInformerFactoryApart);
//     one that builds its own workqueue runs it on virtual time, unchanged
//     (examples/traps.TestAClientGoOperatorWithItsOwnWorkqueueHolds).
//     A goroutine that outlives the world (a library's janitor) fails
//     nothing: it is abandoned with the world and named once in the test's
//     output (examples/traps.TestALibrarysJanitorThatNeverExitsIsAbandonedAndNamed).
//   - Replayed.WriteStory writes a replayed plan's picture and inspector,
//     not the markdown report a failing test writes beside them (that
//     report tells how to replay the plan with go test)
//     (TestWriteStoryWritesNoMarkdownReport).
package operatortest
