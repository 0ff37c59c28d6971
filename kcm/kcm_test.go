package kcm_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/kcm"
	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

var ctx = context.Background()

func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	return s
}

// options is a world whose kube-controller-manager hosts every controller of
// Controllers (k8s.io/kubernetes's own) beside the garbage collector's model, with the kubelet model running the pods.
func options(p *plan.Plan) func() cluster.Options { return optionsFor(p, nil) }

// optionsFor is options with only the controllers want says hosted (nil: all).
func optionsFor(p *plan.Plan, want func(kcm.Controller) bool) func() cluster.Options {
	return func() cluster.Options {
		return cluster.Options{Scheme: scheme(), Processes: []process.Spec{
			{Name: "kube-controller-manager", Setup: func(pr *process.Process) error {
				if err := kcm.Setup(pr, want); err != nil {
					return err
				}
				mgr := pr.Manager()
				gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(),
					Kinds: []client.Object{&corev1.Pod{}, &appsv1.StatefulSet{}, &appsv1.ControllerRevision{}, &corev1.PersistentVolumeClaim{}}}
				return gc.SetupWithManager(mgr)
			}},
			kubeworld.Kubelet(p, nil, kubeworld.Delays{}),
		}}
	}
}

// inWorld runs f on a world of plan text in a testing/synctest bubble.
func inWorld(t *testing.T, text string, f func(t *testing.T, c *cluster.Cluster)) {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		o := options(p)()
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

func statefulSet(name string, replicas int32) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    ptr.To(replicas),
			ServiceName: name,
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app", Image: "app:1"}}},
			},
		},
	}
}

func pods(t *testing.T, c *cluster.Cluster) []corev1.Pod {
	t.Helper()
	var l corev1.PodList
	if err := c.List(&l, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// orphanAndRecreate is the workload of an operator that resizes its
// StatefulSet's volumes: the set is deleted with orphan propagation (its pods
// stay) and created again with the same selector.
func orphanAndRecreate(t *testing.T, c *cluster.Cluster) (before, after *corev1.Pod, recreated *appsv1.StatefulSet) {
	t.Helper()
	set := statefulSet("web", 1)
	if err := c.Admin().Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	ps := pods(t, c)
	if len(ps) != 1 {
		t.Fatalf("the StatefulSet made %d pods, want 1", len(ps))
	}
	before = &ps[0]
	if err := c.Admin().Delete(ctx, set, client.PropagationPolicy(metav1.DeletePropagationOrphan)); err != nil {
		t.Fatal(err)
	}
	c.RunFor(30 * time.Second)
	if ps := pods(t, c); len(ps) != 1 || len(ps[0].OwnerReferences) != 0 {
		t.Fatalf("after the orphaning deletion, want web-0 without owners, got %+v", ps)
	}
	recreated = statefulSet("web", 1)
	if err := c.Admin().Create(ctx, recreated); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	ps = pods(t, c)
	if len(ps) != 1 {
		t.Fatalf("after the re-creation, %d pods, want 1", len(ps))
	}
	return before, &ps[0], recreated
}

// A StatefulSet deleted with orphan propagation and created again adopts the
// pod it left (kube-controller-manager's ControllerRefManager.ClaimPods): the
// same pod, now controlled by the new set, and the set's status counts it.
func TestARecreatedStatefulSetAdoptsItsOrphanedPod(t *testing.T) {
	inWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		before, after, set := orphanAndRecreate(t, c)
		if after.Name != "web-0" || after.UID != before.UID {
			t.Errorf("want the orphaned pod web-0 (uid %s) kept, got %s (uid %s)", before.UID, after.Name, after.UID)
		}
		if err := c.Get(client.ObjectKeyFromObject(set), set); err != nil {
			t.Fatal(err)
		}
		ref := metav1.GetControllerOf(after)
		if ref == nil || ref.UID != set.UID || ref.Kind != "StatefulSet" {
			t.Errorf("web-0 is controlled by %+v, want the re-created StatefulSet (uid %s)", ref, set.UID)
		}
		if set.Status.Replicas != 1 || set.Status.ReadyReplicas != 1 {
			t.Errorf("the re-created set's status: %d replicas, %d ready; want 1 and 1", set.Status.Replicas, set.Status.ReadyReplicas)
		}
	})
}

// The orphan-and-recreate workload is deterministic with the hosted
// controllers, under a crash of kube-controller-manager and a lagging pod
// watch: the same plan gives the same trace hash.
func TestARecreatedStatefulSetAdoptsItsOrphanedPodDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 7\ncrash process=kube-controller-manager at=40s\nlag process=kube-controller-manager kind=/v1/Pod max=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := wallclock.CheckDeterminism(t, p, options(p), func(c *cluster.Cluster) { orphanAndRecreate(t, c) }); err != nil {
		t.Fatal(err)
	}
}

// A PersistentVolumeClaim gets kube-apiserver's kubernetes.io/pvc-protection
// finalizer when it is created; deleted while a pod uses it, it stays,
// Terminating, until the pod is gone, when kube-controller-manager's
// pvc-protection controller releases it.
func TestADeletedClaimInUseStaysUntilItsPodIsGone(t *testing.T) {
	inWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "user"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}},
				Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}}
		c.RunFor(time.Second) // kube-controller-manager has started
		for _, obj := range []client.Object{claim, pod} {
			if err := c.Admin().Create(ctx, obj); err != nil {
				t.Fatal(err)
			}
		}
		if !slices.Contains(claim.Finalizers, "kubernetes.io/pvc-protection") {
			t.Errorf("the created claim's finalizers are %v, want kubernetes.io/pvc-protection", claim.Finalizers)
		}
		c.RunFor(30 * time.Second)
		if err := c.Admin().Delete(ctx, claim); err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Minute)
		if err := c.Get(client.ObjectKeyFromObject(claim), claim); err != nil {
			t.Fatalf("the claim in use went: %v", err)
		}
		if claim.DeletionTimestamp == nil || !slices.Contains(claim.Finalizers, "kubernetes.io/pvc-protection") {
			t.Errorf("the claim in use: deletionTimestamp %v, finalizers %v; want Terminating with kubernetes.io/pvc-protection", claim.DeletionTimestamp, claim.Finalizers)
		}
		if err := c.Admin().Delete(ctx, pod); err != nil {
			t.Fatal(err)
		}
		c.RunFor(30 * time.Second)
		if err := c.Get(client.ObjectKeyFromObject(claim), claim); err == nil {
			t.Errorf("the claim is still there a minute after its pod went: finalizers %v", claim.Finalizers)
		}
	})
}

// A StatefulSet's rolling update and scale-down are deterministic with the
// hosted controllers under a crash of kube-controller-manager, a lagging
// StatefulSet watch and a held pod watch: the same plan gives the same trace
// hash.
func TestAStatefulSetRollingUpdateDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 9\ncrash process=kube-controller-manager at=3s\nlag process=kube-controller-manager kind=apps/v1/StatefulSet max=3s\nhold process=kube-controller-manager kind=/v1/Pod from=20s until=40s\n")
	if err != nil {
		t.Fatal(err)
	}
	err = wallclock.CheckDeterminism(t, p, options(p), func(c *cluster.Cluster) {
		// Parallel: the controller creates and deletes pods from goroutines
		// of its own (slowStartBatch), which join the process as tasks.
		set := statefulSet("web", 3)
		set.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		if err := c.Admin().Create(ctx, set); err != nil {
			t.Fatal(err)
		}
		c.RunFor(30 * time.Second)
		if err := c.Get(client.ObjectKeyFromObject(set), set); err != nil {
			t.Fatal(err)
		}
		set.Spec.Template.Spec.Containers[0].Image = "app:2"
		set.Spec.Replicas = ptr.To[int32](2)
		if err := c.Admin().Update(ctx, set); err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Minute)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// The claim-in-use workload is deterministic with the hosted PVC-protection
// controller under a crash of kube-controller-manager and a lagging claim
// watch.
func TestADeletedClaimInUseDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 11\ncrash process=kube-controller-manager at=31s\nlag process=kube-controller-manager kind=/v1/PersistentVolumeClaim max=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	only := func(c kcm.Controller) bool { return c.Name == kcm.PVCProtection }
	err = wallclock.CheckDeterminism(t, p, optionsFor(p, only), func(c *cluster.Cluster) {
		claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "data"},
			Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "user"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}},
				Volumes: []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"}}}}}}
		c.RunFor(time.Second)
		for _, obj := range []client.Object{claim, pod} {
			if err := c.Admin().Create(ctx, obj); err != nil {
				t.Fatal(err)
			}
		}
		c.RunFor(30 * time.Second)
		if err := c.Admin().Delete(ctx, claim); err != nil {
			t.Fatal(err)
		}
		c.RunFor(20 * time.Second)
		if err := c.Admin().Delete(ctx, pod); err != nil {
			t.Fatal(err)
		}
		c.RunFor(30 * time.Second)
	})
	if err != nil {
		t.Fatal(err)
	}
}
