package kcm_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/kcm"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// gcOptions is a world whose kube-controller-manager hosts only the
// garbage collector (k8s.io/kubernetes's own), collecting ConfigMaps and
// Secrets.
func gcOptions() cluster.Options {
	return cluster.Options{Scheme: scheme(), Processes: []process.Spec{
		{Name: "kube-controller-manager", Setup: func(pr *process.Process) error {
			return kcm.SetupGarbageCollector(pr, func(gvk schema.GroupVersionKind) bool {
				return gvk.Group == "" && (gvk.Kind == "ConfigMap" || gvk.Kind == "Secret")
			})
		}},
	}}
}

// inGCWorld runs f on a gcOptions world of plan text in a bubble.
func inGCWorld(t *testing.T, text string, f func(t *testing.T, c *cluster.Cluster)) {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		o := gcOptions()
		o.Wall = wall
		c, err := cluster.New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		f(t, c)
		if t.Failed() {
			var b strings.Builder
			_ = c.Trace.WriteTimeline(&b)
			t.Log(b.String())
		}
	})
}

// family creates ConfigMap owner and, once the collector has seen it, its
// dependents a (a ConfigMap) and b (a Secret; only when two), each with an
// owner reference to it that blocks its deletion.
func family(t *testing.T, c *cluster.Cluster, two bool) (owner *corev1.ConfigMap, deps []client.Object) {
	t.Helper()
	owner = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "owner"}}
	if err := c.Admin().Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Second)
	ref := func() []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, BlockOwnerDeletion: new(true)}}
	}
	deps = []client.Object{
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a", OwnerReferences: ref()}},
	}
	if two {
		deps = append(deps, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "b", OwnerReferences: ref()}})
	}
	for _, d := range deps {
		if err := c.Admin().Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	c.RunFor(10 * time.Second)
	return owner, deps
}

func gone(c *cluster.Cluster, obj client.Object) bool {
	return apierrors.IsNotFound(c.Get(client.ObjectKeyFromObject(obj), obj.DeepCopyObject().(client.Object)))
}

// Deleted in the background, the owner goes at once and the collector
// deletes its dependents.
func TestTheHostedCollectorDeletesTheDependentsOfAnOwnerDeletedInTheBackground(t *testing.T) {
	inGCWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		owner, deps := family(t, c, true)
		if err := c.Admin().Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
			t.Fatal(err)
		}
		if !gone(c, owner) {
			t.Error("the owner deleted in the background is still there")
		}
		c.RunFor(30 * time.Second)
		for _, d := range deps {
			if !gone(c, d) {
				t.Errorf("dependent %s/%s is still there", d.GetObjectKind().GroupVersionKind().Kind, d.GetName())
			}
		}
	})
}

// Deleted in the foreground, the owner stays, with the foregroundDeletion
// finalizer, until the collector has deleted its blocking dependents; then
// the collector removes the finalizer and the owner goes.
func TestTheHostedCollectorDeletesAForegroundOwnerAfterItsDependents(t *testing.T) {
	inGCWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		owner, deps := family(t, c, true)
		if err := c.Admin().Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationForeground)); err != nil {
			t.Fatal(err)
		}
		var held corev1.ConfigMap
		if err := c.Get(client.ObjectKeyFromObject(owner), &held); err != nil || !slices.Contains(held.Finalizers, metav1.FinalizerDeleteDependents) {
			t.Fatalf("right after the foreground deletion the owner is %v (err %v), want it there with %s", held.Finalizers, err, metav1.FinalizerDeleteDependents)
		}
		c.RunFor(30 * time.Second)
		for _, d := range deps {
			if !gone(c, d) {
				t.Errorf("dependent %s is still there", d.GetName())
			}
		}
		if !gone(c, owner) {
			t.Error("the owner is still there after its dependents")
		}
		// The owner went last: after every dependent.
		var order []string
		for _, e := range c.Server.Log() {
			if e.Type == watch.Deleted {
				order = append(order, e.Object.GetName())
			}
		}
		if len(order) != 3 || order[2] != "owner" {
			t.Errorf("deleted in the order %v, want a and b before owner", order)
		}
	})
}

// Deleted with orphan propagation, the owner goes once the collector has
// removed its owner reference from every dependent; the dependents stay.
func TestTheHostedCollectorOrphansTheDependents(t *testing.T) {
	inGCWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		owner, deps := family(t, c, true)
		if err := c.Admin().Delete(ctx, owner, client.PropagationPolicy(metav1.DeletePropagationOrphan)); err != nil {
			t.Fatal(err)
		}
		c.RunFor(30 * time.Second)
		if !gone(c, owner) {
			t.Error("the orphaning owner is still there")
		}
		for _, d := range deps {
			got := d.DeepCopyObject().(client.Object)
			if err := c.Get(client.ObjectKeyFromObject(d), got); err != nil {
				t.Errorf("dependent %s: %v", d.GetName(), err)
				continue
			}
			if len(got.GetOwnerReferences()) != 0 {
				t.Errorf("dependent %s still has owners %+v", d.GetName(), got.GetOwnerReferences())
			}
		}
	})
}

// A dependent created with an owner reference to an owner that no longer
// exists is collected: the collector looks the owner up, finds it absent,
// and deletes the dependent.
func TestTheHostedCollectorDeletesADependentOfADeletedOwner(t *testing.T) {
	inGCWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "owner"}}
		if err := c.Admin().Create(ctx, owner); err != nil {
			t.Fatal(err)
		}
		uid := owner.UID
		if err := c.Admin().Delete(ctx, owner); err != nil {
			t.Fatal(err)
		}
		c.RunFor(5 * time.Second)
		late := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "late",
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: uid}}}}
		if err := c.Admin().Create(ctx, late); err != nil {
			t.Fatal(err)
		}
		c.RunFor(30 * time.Second)
		if !gone(c, late) {
			t.Error("the dependent of a deleted owner is still there")
		}
	})
}

// Each propagation, under a crash of kube-controller-manager (its restart
// builds the graph from relists of several objects) and a lagging ConfigMap
// watch, gives the same trace hash for the same plan (orphaning two
// dependents: their patches take turns, gc_orphan.go).
func TestTheHostedCollectorDeterminism(t *testing.T) {
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan} {
		t.Run(string(policy), func(t *testing.T) {
			p, err := plan.Parse("seed 7\ncrash process=kube-controller-manager at=12s\nlag process=kube-controller-manager kind=/v1/ConfigMap max=2s\n")
			if err != nil {
				t.Fatal(err)
			}
			err = wallclock.CheckDeterminism(t, p, gcOptions, func(c *cluster.Cluster) {
				owner, _ := family(t, c, true)
				if err := c.Admin().Delete(ctx, owner, client.PropagationPolicy(policy)); err != nil {
					t.Fatal(err)
				}
				c.RunFor(time.Minute)
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
