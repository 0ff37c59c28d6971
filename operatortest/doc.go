// Package operatortest tests an operator's controllers under faults from one
// go test call: its own SetupWithManager functions, its CRD manifests and a few
// seed objects are all it asks for. It explores plans of faults (informer lag
// and stalled watches, crashes at any client call, API errors, latency, more
// workers), runs each as a fault phase, a heal and a heal budget, judges the
// generic oracles and the test's own properties, shrinks a violation to a
// minimal plan, saves it under testdata/ctrlsim/, and fails the test with the
// violated property, what it saw, a replay command and the timeline (the
// controllers' log lines and Events included).
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
// resourceVersions, generations, timestamps and generated-name suffixes),
// terminates, no-orphans, no-error-at-rest; and the kernel's hot-loop,
// livelock and reconcile-panic. The namespace controller and the garbage
// collector (models/kube) run in every world as kube-controller-manager.
//
// Each plan runs in a testing/synctest bubble (package wallclock): the
// operator's time.Now, metav1.Now and timers follow the virtual clock.
//
// # Known gaps
//
//   - The workload (workload.go) changes the seed objects only: it sets one
//     scalar field under spec of a seed custom resource (valid or invalid by
//     its schema's enum, minimum and maximum), deletes a seed object or
//     re-creates it, at most MaxSteps steps a plan. It creates no new objects,
//     and changes no status, metadata, list or map field. Of Sieve's targeted
//     faults, crashes right after each of the first 10 writes are drawn; a
//     cache held exactly across a read that precedes a write, or a restart
//     timed to relist stale state, comes only by chance from the holds and
//     crashes drawn at calls and times.
//   - Converges compares the judged kinds only: the CRD kinds, the seed
//     objects' kinds and common children (ConfigMap, Secret, Service,
//     ServiceAccount, Deployment, StatefulSet, Job), and it compares one
//     faulty run with one fault-free run, not converged states across
//     interleavings (Kamera's). A field that legitimately differs between two
//     runs and is not a timestamp (a counter of attempts, a random token) makes
//     it a false alarm: disable it, or give the field a deterministic value.
//   - One replica per manager; no leader election.
//   - With the workload's deletions, an owner deleted while an operator's watch
//     of it stalls makes the operator re-create children the garbage collector
//     deletes, as fast as the API serves them, until the watch catches up; a
//     stall of ten seconds or more is then judged a hot loop. A real cluster
//     does the same, but any operator that owns children does it: set
//     NoWorkload, or Disable nothing and read the timeline, to tell it from
//     a bug of your own.
//   - The garbage collector and namespace controller know only the judged
//     kinds.
package operatortest
