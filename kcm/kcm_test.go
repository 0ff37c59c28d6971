package kcm_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
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
					Kinds: []client.Object{&corev1.Pod{}, &appsv1.StatefulSet{}, &appsv1.ControllerRevision{}, &corev1.PersistentVolumeClaim{},
						&appsv1.Deployment{}, &appsv1.ReplicaSet{}, &batchv1.Job{}}}
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

func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app", Image: "app:1"}}},
			},
		},
	}
}

// rollOut creates a Deployment of 3 replicas, lets it become available,
// changes its image and scales it to 4, and lets the rollout run.
func rollOut(t *testing.T, c *cluster.Cluster) *appsv1.Deployment {
	t.Helper()
	d := deployment("web", 3)
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	if err := c.Get(client.ObjectKeyFromObject(d), d); err != nil {
		t.Fatal(err)
	}
	d.Spec.Template.Spec.Containers[0].Image = "app:2"
	d.Spec.Replicas = ptr.To[int32](4)
	if err := c.Admin().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Minute)
	return d
}

// A Deployment's rolling update, run by kube-controller-manager's own
// Deployment and ReplicaSet controllers: the new ReplicaSet ends with every
// pod, each of the new image and controlled by it, the old one scaled to 0,
// and the Deployment's status says so.
func TestADeploymentRollsOutThroughItsReplicaSets(t *testing.T) {
	inWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		d := rollOut(t, c)
		if err := c.Get(client.ObjectKeyFromObject(d), d); err != nil {
			t.Fatal(err)
		}
		var sets appsv1.ReplicaSetList
		if err := c.List(&sets, client.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		if len(sets.Items) != 2 {
			t.Fatalf("%d ReplicaSets, want the old and the new", len(sets.Items))
		}
		var newRS *appsv1.ReplicaSet
		for i, rs := range sets.Items {
			if ref := metav1.GetControllerOf(&rs); ref == nil || ref.UID != d.UID {
				t.Errorf("ReplicaSet %s is controlled by %+v, want the Deployment", rs.Name, ref)
			}
			if rs.Spec.Template.Spec.Containers[0].Image == "app:2" {
				newRS = &sets.Items[i]
			} else if *rs.Spec.Replicas != 0 {
				t.Errorf("the old ReplicaSet %s has %d replicas, want 0", rs.Name, *rs.Spec.Replicas)
			}
		}
		if newRS == nil || *newRS.Spec.Replicas != 4 || newRS.Status.ReadyReplicas != 4 {
			t.Fatalf("the new ReplicaSet: %+v, want 4 replicas, 4 ready", newRS)
		}
		ps := pods(t, c)
		if len(ps) != 4 {
			t.Errorf("%d pods, want 4", len(ps))
		}
		for _, p := range ps {
			if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != newRS.UID || p.Spec.Containers[0].Image != "app:2" {
				t.Errorf("pod %s: controller %+v, image %s; want the new ReplicaSet's, app:2", p.Name, ref, p.Spec.Containers[0].Image)
			}
		}
		if d.Status.UpdatedReplicas != 4 || d.Status.AvailableReplicas != 4 || d.Status.ObservedGeneration != d.Generation {
			t.Errorf("the Deployment's status: %+v; want 4 updated and available, generation %d observed", d.Status, d.Generation)
		}
	})
}

// A ReplicaSet adopts a matching pod that has no controller, and releases a
// pod whose labels stop matching (making another in its place):
// kube-controller-manager's ControllerRefManager.ClaimPods.
func TestAReplicaSetAdoptsAndReleasesPods(t *testing.T) {
	inWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "orphan", Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}}}
		if err := c.Admin().Create(ctx, orphan); err != nil {
			t.Fatal(err)
		}
		d := deployment("web", 2)
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](2), Selector: d.Spec.Selector, Template: d.Spec.Template}}
		if err := c.Admin().Create(ctx, rs); err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Minute)
		ps := pods(t, c)
		if len(ps) != 2 {
			t.Fatalf("%d pods, want 2 (the orphan adopted and one made)", len(ps))
		}
		if err := c.Get(client.ObjectKeyFromObject(orphan), orphan); err != nil {
			t.Fatal(err)
		}
		if ref := metav1.GetControllerOf(orphan); ref == nil || ref.UID != rs.UID {
			t.Fatalf("the orphan's controller is %+v, want the ReplicaSet", ref)
		}
		orphan.Labels = map[string]string{"app": "other"}
		if err := c.Admin().Update(ctx, orphan); err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Minute)
		if err := c.Get(client.ObjectKeyFromObject(orphan), orphan); err != nil {
			t.Fatal(err)
		}
		if ref := metav1.GetControllerOf(orphan); ref != nil {
			t.Errorf("the relabelled pod is still controlled by %+v", ref)
		}
		if ps := pods(t, c); len(ps) != 3 {
			t.Errorf("%d pods, want 3 (the released one and two of the set)", len(ps))
		}
	})
}

// A Deployment's rolling update is deterministic with the hosted Deployment
// and ReplicaSet controllers under a crash of kube-controller-manager, a
// lagging ReplicaSet watch and a held pod watch: the same plan gives the
// same trace hash.
func TestADeploymentRolloutDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 13\ncrash process=kube-controller-manager at=70s\nlag process=kube-controller-manager kind=apps/v1/ReplicaSet max=3s\nhold process=kube-controller-manager kind=/v1/Pod from=20s until=40s\n")
	if err != nil {
		t.Fatal(err)
	}
	err = wallclock.CheckDeterminism(t, p, options(p), func(c *cluster.Cluster) { rollOut(t, c) })
	if err != nil {
		t.Fatal(err)
	}
}

// A ReplicaSet scaled up then down (deleting pods from goroutines of its own,
// as upstream's manageReplicas does) is deterministic with the hosted
// ReplicaSet controller alone, under a crash and a lagging pod watch.
func TestAReplicaSetScaleDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 17\ncrash process=kube-controller-manager at=45s\nlag process=kube-controller-manager kind=/v1/Pod max=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	only := func(c kcm.Controller) bool { return c.Name == kcm.ReplicaSet }
	err = wallclock.CheckDeterminism(t, p, optionsFor(p, only), func(c *cluster.Cluster) {
		d := deployment("web", 5)
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
			Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](5), Selector: d.Spec.Selector, Template: d.Spec.Template}}
		if err := c.Admin().Create(ctx, rs); err != nil {
			t.Fatal(err)
		}
		c.RunFor(40 * time.Second)
		if err := c.Get(client.ObjectKeyFromObject(rs), rs); err != nil {
			t.Fatal(err)
		}
		rs.Spec.Replicas = ptr.To[int32](2)
		if err := c.Admin().Update(ctx, rs); err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Minute)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func job(name string, completions, parallelism int32, run string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: batchv1.JobSpec{
			Completions: ptr.To(completions), Parallelism: ptr.To(parallelism), BackoffLimit: ptr.To[int32](6),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{kube.AnnotationRun: run}},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "work", Image: "busybox"}}},
			},
		},
	}
}

// jobs runs a Job of 4 completions, 2 at a time, to its end, and deletes a
// second Job whose pods still run (its pods, with the job-tracking
// finalizer, are released from the Job controller's orphan queue, which
// stays client-go's: kcm's Known gaps).
func jobs(t *testing.T, c *cluster.Cluster) {
	t.Helper()
	// One after the other: two objects that a hosted controller's workers
	// sync at one instant may be synced in either order (kcm's Known gaps).
	short, long := job("short", 4, 2, "5s"), job("long", 2, 2, "10m")
	for _, j := range []*batchv1.Job{short, long} {
		if err := c.Admin().Create(ctx, j); err != nil {
			t.Fatal(err)
		}
		c.RunFor(30 * time.Second)
	}
	if err := c.Get(client.ObjectKeyFromObject(long), long); err != nil {
		t.Fatal(err)
	}
	if err := c.Admin().Delete(ctx, long, client.PropagationPolicy(metav1.DeletePropagationOrphan)); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
}

// kube-controller-manager's own Job controller runs a Job to its end and
// releases the pods of a Job deleted with orphan propagation (their
// job-tracking finalizer removed: the orphan-pod worker).
func TestAJobCompletesAndItsOrphansAreReleased(t *testing.T) {
	inWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		jobs(t, c)
		short := job("short", 4, 2, "5s")
		if err := c.Get(client.ObjectKeyFromObject(short), short); err != nil {
			t.Fatal(err)
		}
		if short.Status.Succeeded != 4 || short.Status.CompletionTime == nil {
			t.Errorf("the short Job: %d succeeded, completion time %v; want 4 and a time", short.Status.Succeeded, short.Status.CompletionTime)
		}
		n := 0
		for _, p := range pods(t, c) {
			if strings.HasPrefix(p.Name, "long-") {
				n++
				if len(p.Finalizers) != 0 || len(p.OwnerReferences) != 0 {
					t.Errorf("orphaned pod %s: finalizers %v, owners %v; want none", p.Name, p.Finalizers, p.OwnerReferences)
				}
			}
		}
		if n != 2 {
			t.Errorf("%d pods of the orphaning-deleted Job left, want its 2", n)
		}
	})
}

// The Job workload is deterministic with the hosted Job controller under a
// crash of kube-controller-manager and a lagging pod watch.
func TestAJobDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 19\ncrash process=kube-controller-manager at=12s\nlag process=kube-controller-manager kind=/v1/Pod max=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	only := func(c kcm.Controller) bool { return c.Name == kcm.Job }
	if err := wallclock.CheckDeterminism(t, p, optionsFor(p, only), func(c *cluster.Cluster) { jobs(t, c) }); err != nil {
		t.Fatal(err)
	}
}

// Objects listed together (created at once, or relisted after a crash) reach
// the hosted controllers' handlers in the same order in every run, so two
// StatefulSets, two ReplicaSets and two Jobs created together are synced in
// the same order: the ordered factories' informers list and then watch
// (client-go's watch-list replaces its store from a Go map). Before, about
// one run pair in three differed at the first pod or revision created.
func TestTwoObjectsListedTogetherDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 19\ncrash process=kube-controller-manager at=20s\n")
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		err = wallclock.CheckDeterminism(t, p, options(p), func(c *cluster.Cluster) {
			for _, n := range []string{"a", "b"} {
				set := statefulSet("set-"+n, 2)
				set.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
				d := deployment("rs-"+n, 2)
				rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "rs-" + n},
					Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](2), Selector: d.Spec.Selector, Template: d.Spec.Template}}
				for _, obj := range []client.Object{set, rs, job("job-"+n, 2, 2, "30s")} {
					if err := c.Admin().Create(ctx, obj); err != nil {
						t.Fatal(err)
					}
				}
			}
			c.RunFor(time.Minute)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func volume(name string) *corev1.PersistentVolume {
	return &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			PersistentVolumeSource: corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/data/" + name}}}}
}

// volumes creates two PersistentVolumes, marks one Bound (as the PV
// controller, which is not hosted, would), deletes both, then marks the
// bound one Released.
func volumes(t *testing.T, c *cluster.Cluster) (free, bound *corev1.PersistentVolume) {
	t.Helper()
	c.RunFor(time.Second) // kube-controller-manager has started
	free, bound = volume("free"), volume("bound")
	for _, pv := range []*corev1.PersistentVolume{free, bound} {
		if err := c.Admin().Create(ctx, pv); err != nil {
			t.Fatal(err)
		}
	}
	bound.Status.Phase = corev1.VolumeBound
	if err := c.Admin().Status().Update(ctx, bound); err != nil {
		t.Fatal(err)
	}
	c.RunFor(10 * time.Second)
	for _, pv := range []*corev1.PersistentVolume{free, bound} {
		if err := c.Admin().Delete(ctx, pv); err != nil {
			t.Fatal(err)
		}
	}
	c.RunFor(30 * time.Second)
	return free, bound
}

// A PersistentVolume gets kube-apiserver's kubernetes.io/pv-protection
// finalizer; deleted while Bound it stays, Terminating, and once it is
// Released kube-controller-manager's pv-protection controller lets it go; an
// unbound one goes at once.
func TestADeletedBoundVolumeStaysUntilReleased(t *testing.T) {
	inWorld(t, "seed 1\n", func(t *testing.T, c *cluster.Cluster) {
		free, bound := volumes(t, c)
		if !slices.Contains(bound.Finalizers, "kubernetes.io/pv-protection") {
			t.Errorf("the created volume's finalizers are %v, want kubernetes.io/pv-protection", bound.Finalizers)
		}
		if err := c.Get(client.ObjectKeyFromObject(free), free); err == nil {
			t.Errorf("the unbound volume is still there: finalizers %v", free.Finalizers)
		}
		if err := c.Get(client.ObjectKeyFromObject(bound), bound); err != nil {
			t.Fatalf("the bound volume went: %v", err)
		}
		if bound.DeletionTimestamp == nil {
			t.Errorf("the bound volume is not Terminating")
		}
		bound.Status.Phase = corev1.VolumeReleased
		if err := c.Admin().Status().Update(ctx, bound); err != nil {
			t.Fatal(err)
		}
		c.RunFor(30 * time.Second)
		if err := c.Get(client.ObjectKeyFromObject(bound), bound); err == nil {
			t.Errorf("the released volume is still there: finalizers %v", bound.Finalizers)
		}
	})
}

// The volumes workload is deterministic with the hosted pv-protection
// controller under a crash and a lagging volume watch.
func TestADeletedVolumeDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 29\ncrash process=kube-controller-manager at=12s\nlag process=kube-controller-manager kind=/v1/PersistentVolume max=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	only := func(c kcm.Controller) bool { return c.Name == kcm.PVProtection }
	if err := wallclock.CheckDeterminism(t, p, optionsFor(p, only), func(c *cluster.Cluster) { volumes(t, c) }); err != nil {
		t.Fatal(err)
	}
}
