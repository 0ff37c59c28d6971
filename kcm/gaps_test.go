package kcm_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/kcm"
	"github.com/ctrlsim/ctrlsim/operatortest/builtins"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// kernelWorld is a world of one kube-controller-manager process set up by
// setup, outside a testing/synctest bubble.
func kernelWorld(t *testing.T, setup func(*process.Process) error) (*cluster.Cluster, error) {
	t.Helper()
	p, err := plan.Parse("seed 1\n")
	if err != nil {
		t.Fatal(err)
	}
	return cluster.New(p, cluster.Options{Scheme: scheme(), Processes: []process.Spec{{Name: "kube-controller-manager", Setup: setup}}})
}

func TestSetupRefusesAProcessOutsideABubble(t *testing.T) {
	available, called := true, false
	var setupErr error
	c, err := kernelWorld(t, func(p *process.Process) error {
		available, called = kcm.Available(p), true
		setupErr = kcm.Setup(p, nil)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Second)
	if !called || available || setupErr == nil || !strings.Contains(setupErr.Error(), "need a testing/synctest bubble") {
		t.Fatalf("Setup outside a bubble: available %v, error %v; want it refused", available, setupErr)
	}
}

func TestOutsideABubbleTheCollectorIsTheModel(t *testing.T) {
	var hostedErr error
	hc, err := kernelWorld(t, func(p *process.Process) error {
		hostedErr = kcm.SetupGarbageCollector(p, func(schema.GroupVersionKind) bool { return true })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	hc.RunFor(time.Second)
	hc.Close()
	if hostedErr == nil || !strings.Contains(hostedErr.Error(), "needs a testing/synctest bubble") {
		t.Fatalf("the hosted collector outside a bubble: %v, want it refused", hostedErr)
	}
	c, err := kernelWorld(t, func(p *process.Process) error {
		return builtins.SetupCollectors(p, builtins.World{Scheme: scheme(),
			Collected: []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}}}, nil)
	})
	if err != nil {
		t.Fatalf("operatortest's collectors outside a bubble: %v", err)
	}
	defer c.Close()
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "owner"}}
	if err := c.Admin().Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "dep",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}}}
	if err := c.Admin().Create(ctx, dep); err != nil {
		t.Fatal(err)
	}
	if err := c.Admin().Delete(ctx, owner); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	if !gone(c, dep) {
		t.Error("the dependent of a deleted owner is still there: operatortest's world collects nothing")
	}
}

func TestOrphaningPatchesTheDependentsOneAfterTheOtherByName(t *testing.T) {
	inGCWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "owner"}}
		if err := c.Admin().Create(ctx, owner); err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Second)
		for _, name := range []string{"d", "c", "b", "a"} { // created against name order
			dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name,
				OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}}}
			if err := c.Admin().Create(ctx, dep); err != nil {
				t.Fatal(err)
			}
		}
		c.RunFor(10 * time.Second)
		if err := c.Admin().Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationOrphan)); err != nil {
			t.Fatal(err)
		}
		c.RunFor(30 * time.Second)
		var patched []string
		for _, s := range c.Trace.Steps() {
			if s.Process == "kube-controller-manager" && s.Op == "patch" && strings.HasPrefix(s.Object, "ConfigMap default/") && s.Object != "ConfigMap default/owner" {
				patched = append(patched, strings.TrimPrefix(s.Object, "ConfigMap default/"))
			}
		}
		if want := []string{"a", "b", "c", "d"}; !slices.Equal(patched, want) {
			t.Errorf("orphaning patched %v, want %v (one after the other, by name)", patched, want)
		}
	})
}

func TestControllersHostNeitherTheNamespaceNorTheEndpointSliceController(t *testing.T) {
	var names []string
	for _, c := range kcm.Controllers() {
		names = append(names, c.Name)
	}
	want := []string{kcm.ReplicaSet, kcm.Deployment, kcm.Job, kcm.StatefulSet, kcm.PVCProtection, kcm.PVProtection, kcm.ServiceAccount, kcm.RootCACertPublisher}
	if !slices.Equal(names, want) {
		t.Errorf("Controllers are %v, want %v (no namespace-controller, no endpointslice-controller)", names, want)
	}
}

func TestHandleErrorHasNoBackoffOnceDropped(t *testing.T) {
	process.DropErrorBackoff() // as Setup does
	if n := len(utilruntime.ErrorHandlers); n != 1 {
		t.Errorf("%d error handlers, want the logger alone (client-go's second one is the 1 ms backoff)", n)
	}
}

// TestAWorldNotGivenItsKindsRunsTheModels: since a hosted controller's
// WaitForCacheSync keeps a bubble whose kernel stopped from deadlocking,
// kubeworld hosts the controllers only when given the kinds a world holds;
// its probe of those kinds (holds nil) runs the models.
func TestAWorldNotGivenItsKindsRunsTheModels(t *testing.T) {
	const started = "Starting controller logger=replicaset-controller"
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		for _, tc := range []struct {
			holds  func(schema.GroupKind) bool
			hosted bool
		}{{nil, false}, {func(schema.GroupKind) bool { return true }, true}} {
			p, err := plan.Parse("seed 1\n")
			if err != nil {
				t.Fatal(err)
			}
			c, err := cluster.New(p, cluster.Options{Scheme: scheme(), Wall: wall, Processes: []process.Spec{
				{Name: "kube-controller-manager", Setup: func(pr *process.Process) error { return kubeworld.SetupControllersFor(pr, tc.holds) }}}})
			if err != nil {
				t.Fatal(err)
			}
			c.RunFor(time.Second)
			hosted := slices.ContainsFunc(c.Trace.Steps(), func(s trace.Step) bool { return s.Op == "log" && strings.Contains(s.Result, started) })
			c.Close()
			if hosted != tc.hosted {
				t.Errorf("holds given %v: the ReplicaSet controller hosted %v, want %v", tc.holds != nil, hosted, tc.hosted)
			}
		}
	})
}
