package reposync

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/controllers/reposync"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// gapReplay replays text on the world of o for d, with no heal to speak of.
func gapReplay(t *testing.T, o Options, d time.Duration, text string) *operatortest.Replayed {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	r, err := operatortest.Replay(t, catalogue.ForSpecs(Test(o, d, time.Millisecond)), p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestTheNsReconcilerRunsTwoSecondsAfterItsDeploymentAndStopsWhenItGoes(t *testing.T) {
	r := gapReplay(t, Options{Variant: variant.Fixed}, 30*time.Second, "seed 1\nat 10s delete-reposync ns="+Namespace+"\n")
	proc := ReconcilerProcess(Namespace)
	deployment := "Deployment " + reposync.ControllerNamespace + "/" + proc
	var created, deleted, started, stopped []time.Duration
	for _, s := range r.Steps {
		switch {
		case s.Process == ReconcilerManager && s.Object == deployment && s.Result == "ok" && s.Op == "create":
			created = append(created, s.At)
		case s.Process == ReconcilerManager && s.Object == deployment && s.Result == "ok" && s.Op == "delete":
			deleted = append(deleted, s.At)
		case s.Process == proc && (s.Op == "start" || s.Op == "restart"):
			started = append(started, s.At)
		case s.Process == proc && s.Op == "crash":
			stopped = append(stopped, s.At)
		}
	}
	if len(created) != 1 || len(started) != 1 || started[0] != created[0]+2*time.Second {
		t.Fatalf("Deployment made at %v, ns-reconciler started at %v: want one start 2s after", created, started)
	}
	if len(deleted) != 1 || len(stopped) != 1 || stopped[0] < deleted[0] || stopped[0] > deleted[0]+time.Second {
		t.Errorf("Deployment deleted at %v, ns-reconciler stopped at %v: want it stopped as the Deployment goes", deleted, stopped)
	}
	var pods corev1.PodList
	if err := r.Final.List(&pods); err != nil || len(pods.Items) != 0 {
		t.Errorf("%d pods (%v), want none: no scheduler, no kubelet", len(pods.Items), err)
	}
}

func TestTheNamespaceControllerDiscoversOnlyTheListedKinds(t *testing.T) {
	var kinds []string
	for _, l := range content() {
		gvk, err := apiutil.GVKForObject(l, sharedScheme())
		if err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, gvk.Kind)
	}
	want := []string{"ConfigMapList", "SecretList", "ServiceAccountList", "RoleList", "RoleBindingList", "DeploymentList", "RepoSyncList"}
	if !slices.Equal(kinds, want) {
		t.Errorf("the namespace controller deletes %v, want %v only (no Pods, Services ...)", kinds, want)
	}
}

func TestTheEntriesDrawNoCrashes(t *testing.T) {
	for _, e := range OnOperatortest() {
		for _, v := range e.Variants() {
			if slices.Contains(e.Test(v).Faults.Classes, plan.Crash) {
				t.Errorf("%s (%s) draws crashes", e.ID, v)
			}
		}
	}
}

// A lag on the reconciler-manager's Namespace cache alone does not catch
// the fixed variant: its first cached Get of a Namespace, after the
// deletion, starts the informer with a fresh list that shows it Terminating.
func TestAColdNamespaceCacheListsFreshSoALagAloneDoesNotCatchFixed(t *testing.T) {
	r := gapReplay(t, Options{Variant: variant.Fixed}, time.Minute,
		"seed 1\nlag process=reconciler-manager kind=/v1/Namespace min=1m max=1m\nat 30s delete-namespace ns="+Namespace+" first=RoleBinding,RepoSync pace=1s\n")
	var reads []trace.Step
	for _, s := range r.Steps {
		if s.Process == ReconcilerManager && s.Op == "cached-get" && s.Object == "Namespace "+Namespace {
			reads = append(reads, s)
		}
	}
	if len(reads) == 0 || reads[0].At < 30*time.Second {
		t.Fatalf("the manager's cached reads of the namespace %v: want the first after the deletion", reads)
	}
	if err := r.Final.Get(types.NamespacedName{Name: Namespace}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace %s: %v, want it gone within the minute", Namespace, err)
	}
}
