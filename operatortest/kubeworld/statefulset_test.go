package kubeworld_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

func statefulSet(name string, replicas int32, image string) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    ptr.To(replicas),
			ServiceName: name,
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app", Image: image}}},
			},
		},
	}
}

func revisions(t *testing.T, c *cluster.Cluster) []appsv1.ControllerRevision {
	t.Helper()
	var l appsv1.ControllerRevisionList
	if err := c.List(&l, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(l.Items, func(a, b appsv1.ControllerRevision) int { return int(a.Revision - b.Revision) })
	return l.Items
}

// podsByName are the pods of the namespace as "name=revision" in name order.
func podsByName(t *testing.T, c *cluster.Cluster) []string {
	t.Helper()
	var out []string
	for _, p := range pods(t, c) {
		out = append(out, p.Name+"="+p.Labels[appsv1.StatefulSetRevisionLabel])
	}
	slices.Sort(out)
	return out
}

func stsStatus(st appsv1.StatefulSetStatus) string {
	return fmt.Sprintf("gen %d replicas %d ready %d available %d current %d updated %d collisions %d",
		st.ObservedGeneration, st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.CurrentReplicas, st.UpdatedReplicas, ptr.Deref(st.CollisionCount, -1))
}

func events(t *testing.T, c *cluster.Cluster, reason string) []string {
	t.Helper()
	var l corev1.EventList
	if err := c.List(&l, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range l.Items {
		if e.Reason == reason && e.InvolvedObject.Kind == "StatefulSet" {
			out = append(out, fmt.Sprintf("%s %s: %s (%s)", e.Type, e.Reason, e.Message, e.Source.Component))
		}
	}
	slices.Sort(out)
	return out
}

func update[T client.Object](t *testing.T, c *cluster.Cluster, obj T, mutate func(T)) {
	t.Helper()
	obj = get(t, c, obj)
	mutate(obj)
	if err := c.Admin().Update(ctx, obj); err != nil {
		t.Fatal(err)
	}
}

// An OrderedReady StatefulSet of 3 (pkg/controller/statefulset,
// stateful_set_control.go updateStatefulSet, processReplica): its pods are
// created one at a time in ordinal order, each once its predecessor is Running
// and Ready, named <set>-<ordinal> with the identity labels, hostname and
// subdomain, the controller reference and the revision's hash; one
// ControllerRevision (revision 1, "<set>-<hash>", the template's labels and
// controller.kubernetes.io/hash) is current and update revision; the events are
// StatefulPodControl's. Scaled to 1, the pods go from the highest ordinal down;
// a new image makes revision 2, and the rolling update replaces the pod.
func TestStatefulSetOrderedReady(t *testing.T) {
	c := world(t, "seed 21\n")
	set := statefulSet("db", 3, "db:1")
	if err := c.Admin().Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	set = get(t, c, set)
	revs := revisions(t, c)
	if len(revs) != 1 {
		t.Fatalf("want one ControllerRevision, got %d", len(revs))
	}
	rev := revs[0]
	hash := rev.Labels[kube.ControllerRevisionHashLabel]
	eq(t, "revision name", rev.Name, "db-"+hash)
	eq(t, "revision", rev.Revision, 1)
	eq(t, "revision labels", fmt.Sprint(rev.Labels), fmt.Sprintf("map[app:db %s:%s]", kube.ControllerRevisionHashLabel, hash))
	if ref := metav1.GetControllerOf(&rev); ref == nil || ref.UID != set.UID || ref.Kind != "StatefulSet" || !ptr.Deref(ref.BlockOwnerDeletion, false) {
		t.Errorf("revision controller reference %+v", ref)
	}
	eq(t, "status", stsStatus(set.Status), "gen 1 replicas 3 ready 3 available 3 current 3 updated 3 collisions 0")
	eq(t, "current revision", set.Status.CurrentRevision, rev.Name)
	eq(t, "update revision", set.Status.UpdateRevision, rev.Name)
	ps := pods(t, c)
	if len(ps) != 3 {
		t.Fatalf("want 3 pods, got %d", len(ps))
	}
	slices.SortFunc(ps, func(a, b corev1.Pod) int { return strings.Compare(a.Name, b.Name) })
	for i, p := range ps {
		name := fmt.Sprintf("db-%d", i)
		eq(t, "pod name", p.Name, name)
		eq(t, name+" generateName", p.GenerateName, "db-")
		eq(t, name+" labels", fmt.Sprint(p.Labels), fmt.Sprintf("map[app:db apps.kubernetes.io/pod-index:%d controller-revision-hash:%s statefulset.kubernetes.io/pod-name:%s]", i, rev.Name, name))
		eq(t, name+" hostname", p.Spec.Hostname, name)
		eq(t, name+" subdomain", p.Spec.Subdomain, "db")
		if ref := metav1.GetControllerOf(&p); ref == nil || ref.UID != set.UID || !ptr.Deref(ref.BlockOwnerDeletion, false) {
			t.Errorf("%s controller reference %+v", name, ref)
		}
		if i > 0 {
			// OrderedReady: created only once its predecessor was Ready.
			prev := ps[i-1]
			ready := prev.Status.Conditions[slices.IndexFunc(prev.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.PodReady })]
			if p.CreationTimestamp.Before(&ready.LastTransitionTime) {
				t.Errorf("%s created at %v, before %s was Ready at %v", name, p.CreationTimestamp, prev.Name, ready.LastTransitionTime)
			}
		}
	}
	eq(t, "create events", fmt.Sprint(events(t, c, "SuccessfulCreate")), fmt.Sprint([]string{
		"Normal SuccessfulCreate: Create Pod db-0 in StatefulSet db successful (statefulset-controller)",
		"Normal SuccessfulCreate: Create Pod db-1 in StatefulSet db successful (statefulset-controller)",
		"Normal SuccessfulCreate: Create Pod db-2 in StatefulSet db successful (statefulset-controller)",
	}))

	// Scale down to 1: db-2, then db-1 (processCondemned, descending ordinals).
	// OrderedReady waits for each condemned pod to be gone, and each takes up
	// to its 30s grace period to terminate: 2 minutes, not the 30s of
	// instant deletion.
	update(t, c, set, func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](1) })
	c.RunFor(2 * time.Minute)
	set = get(t, c, set)
	eq(t, "scaled pods", fmt.Sprint(podsByName(t, c)), fmt.Sprint([]string{"db-0=" + rev.Name}))
	eq(t, "scaled status", stsStatus(set.Status), "gen 2 replicas 1 ready 1 available 1 current 1 updated 1 collisions 0")
	eq(t, "delete events", fmt.Sprint(events(t, c, "SuccessfulDelete")), fmt.Sprint([]string{
		"Normal SuccessfulDelete: Delete Pod db-1 in StatefulSet db successful (statefulset-controller)",
		"Normal SuccessfulDelete: Delete Pod db-2 in StatefulSet db successful (statefulset-controller)",
	}))

	// A new image: revision 2, db-0 deleted and created again from it.
	update(t, c, set, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "db:2" })
	c.RunFor(time.Minute)
	set = get(t, c, set)
	revs = revisions(t, c)
	if len(revs) != 2 {
		t.Fatalf("want two ControllerRevisions, got %d", len(revs))
	}
	rev2 := revs[1]
	eq(t, "revision 2", rev2.Revision, 2)
	eq(t, "rolled pods", fmt.Sprint(podsByName(t, c)), fmt.Sprint([]string{"db-0=" + rev2.Name}))
	eq(t, "rolled status", stsStatus(set.Status), "gen 3 replicas 1 ready 1 available 1 current 1 updated 1 collisions 0")
	eq(t, "rolled revisions", set.Status.CurrentRevision+" "+set.Status.UpdateRevision, rev2.Name+" "+rev2.Name)
	eq(t, "rolled image", get(t, c, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db-0"}}).Spec.Containers[0].Image, "db:2")

	// Back to db:1: the first revision is rolled forward to revision 3
	// (getStatefulSetRevisions, UpdateControllerRevision), no new one is made.
	update(t, c, set, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "db:1" })
	c.RunFor(time.Minute)
	set = get(t, c, set)
	revs = revisions(t, c)
	eq(t, "revisions after rollback", fmt.Sprint(len(revs), " ", revs[0].Name, "=", revs[0].Revision, " ", revs[1].Name, "=", revs[1].Revision),
		fmt.Sprint(2, " ", rev2.Name, "=", 2, " ", rev.Name, "=", 3))
	eq(t, "rolled back pods", fmt.Sprint(podsByName(t, c)), fmt.Sprint([]string{"db-0=" + rev.Name}))
	eq(t, "rolled back revisions", set.Status.CurrentRevision+" "+set.Status.UpdateRevision, rev.Name+" "+rev.Name)
}

// A Parallel StatefulSet creates all its pods at once (allowsBurst,
// runForAll's slow-start batches), before any is Ready; a partition of 2 keeps
// db-0 and db-1 at the current revision while db-2 is updated
// (newVersionedStatefulSetPod, updateStatefulSetAfterInvariantEstablished).
func TestStatefulSetParallelPartition(t *testing.T) {
	c := world(t, "seed 22\n")
	set := statefulSet("db", 3, "db:1")
	set.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	set.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}}
	if err := c.Admin().Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	c.RunFor(200 * time.Millisecond)
	ps := pods(t, c)
	eq(t, "pods created at once", len(ps), 3)
	for _, p := range ps {
		if isReady(p) {
			t.Errorf("%s is already Ready: the test does not show the pods were made in parallel", p.Name)
		}
	}
	c.RunFor(time.Minute)
	rev1 := get(t, c, set).Status.UpdateRevision
	update(t, c, set, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "db:2" })
	c.RunFor(time.Minute)
	set = get(t, c, set)
	rev2 := set.Status.UpdateRevision
	if rev2 == rev1 {
		t.Fatalf("no new revision: %s", rev2)
	}
	eq(t, "partitioned pods", fmt.Sprint(podsByName(t, c)), fmt.Sprint([]string{"db-0=" + rev1, "db-1=" + rev1, "db-2=" + rev2}))
	eq(t, "partitioned status", stsStatus(set.Status), "gen 2 replicas 3 ready 3 available 3 current 2 updated 1 collisions 0")
	eq(t, "current revision", set.Status.CurrentRevision, rev1)

	// Partition 0: the rest follow, and the update completes.
	update(t, c, set, func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0) })
	c.RunFor(2 * time.Minute)
	set = get(t, c, set)
	eq(t, "updated pods", fmt.Sprint(podsByName(t, c)), fmt.Sprint([]string{"db-0=" + rev2, "db-1=" + rev2, "db-2=" + rev2}))
	eq(t, "updated status", stsStatus(set.Status), "gen 3 replicas 3 ready 3 available 3 current 3 updated 3 collisions 0")
	eq(t, "current revision after the update", set.Status.CurrentRevision, rev2)
}

func isReady(p corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// OnDelete: a new template changes no pod until one is deleted; the pod made
// again has the update revision.
func TestStatefulSetOnDelete(t *testing.T) {
	c := world(t, "seed 23\n")
	set := statefulSet("db", 2, "db:1")
	set.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
	if err := c.Admin().Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	rev1 := get(t, c, set).Status.UpdateRevision
	update(t, c, set, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "db:2" })
	c.RunFor(time.Minute)
	set = get(t, c, set)
	rev2 := set.Status.UpdateRevision
	eq(t, "untouched pods", fmt.Sprint(podsByName(t, c)), fmt.Sprint([]string{"db-0=" + rev1, "db-1=" + rev1}))
	eq(t, "OnDelete status", stsStatus(set.Status), "gen 2 replicas 2 ready 2 available 2 current 2 updated 0 collisions 0")
	if err := c.Admin().Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db-1"}}); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	set = get(t, c, set)
	eq(t, "pods after a deletion", fmt.Sprint(podsByName(t, c)), fmt.Sprint([]string{"db-0=" + rev1, "db-1=" + rev2}))
	eq(t, "status after a deletion", stsStatus(set.Status), "gen 2 replicas 2 ready 2 available 2 current 1 updated 1 collisions 0")
}

// A StatefulSet world runs twice to the same trace, under cache lag and a pod
// that never becomes Ready (which holds an OrderedReady set at that ordinal).
func TestStatefulSetDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 24\nnotready pod=3\nlag process=kube-controller-manager kind=* min=0s max=300ms\n")
	if err != nil {
		t.Fatal(err)
	}
	err = cluster.CheckDeterminism(p, options(p), func(c *cluster.Cluster) {
		if err := c.Admin().Create(ctx, statefulSet("db", 3, "db:1")); err != nil {
			t.Fatal(err)
		}
		par := statefulSet("cache", 3, "cache:1")
		par.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
		if err := c.Admin().Create(ctx, par); err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Minute)
		for _, name := range []string{"db", "cache"} {
			s := &appsv1.StatefulSet{}
			if err := c.Get(client.ObjectKey{Namespace: "default", Name: name}, s); err != nil {
				t.Fatal(err)
			}
			s.Spec.Template.Spec.Containers[0].Image = name + ":2"
			if err := c.Admin().Update(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		c.RunFor(3 * time.Minute)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func claims(t *testing.T, c *cluster.Cluster) []string {
	t.Helper()
	var l corev1.PersistentVolumeClaimList
	if err := c.List(&l, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, pvc := range l.Items {
		owners := ""
		for _, r := range pvc.OwnerReferences {
			owners += fmt.Sprintf(" %s/%s controller=%v", r.Kind, r.Name, ptr.Deref(r.Controller, false))
		}
		out = append(out, fmt.Sprintf("%s app=%s%s", pvc.Name, pvc.Labels["app"], owners))
	}
	slices.Sort(out)
	return out
}

// volumeClaimTemplates (stateful_pod_control.go createPersistentVolumeClaims,
// UpdatePodClaimForRetentionPolicy; stateful_set_utils.go
// getPersistentVolumeClaims, updateStorage, updateClaimOwnerRefForSetAndPod):
// each pod gets a claim "<template>-<set>-<ordinal>" with the selector's labels
// and a volume naming it. With whenScaled and whenDeleted Delete, a claim is
// controlled by the set while its pod is in range, by its pod once scaled down
// (so the collector deletes it with the pod); deleting the set deletes the rest.
// With the default Retain, claims have no owner and outlive their pods.
func TestStatefulSetClaims(t *testing.T) {
	c := world(t, "seed 25\n")
	template := corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "data"}, Spec: corev1.PersistentVolumeClaimSpec{
		AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
		Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}
	del := statefulSet("db", 3, "db:1")
	del.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{template}
	del.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.DeletePersistentVolumeClaimRetentionPolicyType, WhenScaled: appsv1.DeletePersistentVolumeClaimRetentionPolicyType}
	keep := statefulSet("kv", 2, "kv:1")
	keep.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{template}
	for _, s := range []*appsv1.StatefulSet{del, keep} {
		if err := c.Admin().Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	c.RunFor(time.Minute)
	eq(t, "claims", fmt.Sprint(claims(t, c)), fmt.Sprint([]string{
		"data-db-0 app=db StatefulSet/db controller=true", "data-db-1 app=db StatefulSet/db controller=true", "data-db-2 app=db StatefulSet/db controller=true",
		"data-kv-0 app=kv", "data-kv-1 app=kv",
	}))
	p := get(t, c, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db-1"}})
	if len(p.Spec.Volumes) != 1 || p.Spec.Volumes[0].Name != "data" || p.Spec.Volumes[0].PersistentVolumeClaim == nil || p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "data-db-1" {
		t.Errorf("db-1 volumes %+v", p.Spec.Volumes)
	}
	var claimEvents []string
	for _, e := range events(t, c, "SuccessfulCreate") {
		if strings.Contains(e, "Claim") && strings.Contains(e, "db") {
			claimEvents = append(claimEvents, e)
		}
	}
	eq(t, "claim events", fmt.Sprint(claimEvents), fmt.Sprint([]string{
		"Normal SuccessfulCreate: Create Claim data-db-0 Pod db-0 in StatefulSet db success (statefulset-controller)",
		"Normal SuccessfulCreate: Create Claim data-db-1 Pod db-1 in StatefulSet db success (statefulset-controller)",
		"Normal SuccessfulCreate: Create Claim data-db-2 Pod db-2 in StatefulSet db success (statefulset-controller)",
	}))

	for _, s := range []*appsv1.StatefulSet{del, keep} {
		update(t, c, s, func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](1) })
	}
	c.RunFor(time.Minute)
	eq(t, "claims after scaling down", fmt.Sprint(claims(t, c)), fmt.Sprint([]string{
		"data-db-0 app=db StatefulSet/db controller=true", "data-kv-0 app=kv", "data-kv-1 app=kv",
	}))

	if err := c.Admin().Delete(ctx, get(t, c, del), client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	eq(t, "claims after deleting db", fmt.Sprint(claims(t, c)), fmt.Sprint([]string{"data-kv-0 app=kv", "data-kv-1 app=kv"}))
	// The collector deletes db's pods and ControllerRevisions with it.
	var left []string
	for _, r := range revisions(t, c) {
		left = append(left, r.Labels["app"])
	}
	eq(t, "revisions after deleting db", fmt.Sprint(left), "[kv]")
	eq(t, "pods after deleting db", fmt.Sprint(podsByName(t, c)), fmt.Sprint([]string{"kv-0=" + get(t, c, keep).Status.UpdateRevision}))
}

// notready: the second pod never becomes Ready, so an OrderedReady set never
// makes the third (processReplica waits for each predecessor), while a Parallel
// one makes all three (allowsBurst).
func TestStatefulSetFaultNotReady(t *testing.T) {
	c := world(t, "seed 26\nnotready pod=2\n")
	if err := c.Admin().Create(ctx, statefulSet("db", 3, "db:1")); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Minute)
	set := get(t, c, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db"}})
	rev := set.Status.UpdateRevision
	eq(t, "pods", fmt.Sprint(podsByName(t, c)), fmt.Sprint([]string{"db-0=" + rev, "db-1=" + rev}))
	eq(t, "status", stsStatus(set.Status), "gen 1 replicas 2 ready 1 available 1 current 2 updated 2 collisions 0")

	par := statefulSet("cache", 3, "cache:1")
	par.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	if err := c.Admin().Create(ctx, par); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	eq(t, "parallel status", stsStatus(get(t, c, par).Status), "gen 1 replicas 3 ready 3 available 3 current 3 updated 3 collisions 0")
}

// nodelost: the pods on the lost node turn not ready and are evicted after the
// not-ready toleration; an evicted pod stays Terminating while its node is
// lost (no kubelet stops it), and the set does not make it again until it is
// gone: a StatefulSet's at-most-one pod per identity, as on a real cluster
// (before graceful deletion the set made it again on the node left).
func TestStatefulSetFaultNodeLost(t *testing.T) {
	c := world(t, "seed 27\nnodelost node=node-1 at=30s\n")
	set := statefulSet("db", 2, "db:1")
	if err := c.Admin().Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	c.RunFor(30 * time.Second)
	nodes := map[string]string{}
	for _, p := range pods(t, c) {
		nodes[p.Name] = p.Spec.NodeName
	}
	eq(t, "placement", fmt.Sprint(nodes), "map[db-0:node-1 db-1:node-2]")
	c.RunFor(55 * time.Second)
	eq(t, "status while lost", stsStatus(get(t, c, set).Status), "gen 1 replicas 2 ready 1 available 1 current 2 updated 2 collisions 0")
	c.RunFor(5 * time.Minute)
	nodes = map[string]string{}
	for _, p := range pods(t, c) {
		nodes[p.Name] = p.Spec.NodeName
	}
	eq(t, "placement after eviction", fmt.Sprint(nodes), "map[db-0:node-1 db-1:node-2]")
	eq(t, "db-0 terminating", get(t, c, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db-0"}}).DeletionTimestamp != nil, true)
	eq(t, "status after eviction", stsStatus(get(t, c, set).Status), "gen 1 replicas 2 ready 1 available 1 current 1 updated 1 collisions 0")
}

// truncateHistory: revisions that are neither current, update nor a pod's are
// deleted from the oldest down to revisionHistoryLimit.
func TestStatefulSetRevisionHistoryLimit(t *testing.T) {
	c := world(t, "seed 28\n")
	set := statefulSet("db", 1, "db:1")
	set.Spec.RevisionHistoryLimit = ptr.To[int32](1)
	if err := c.Admin().Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	var names []string
	for _, image := range []string{"db:2", "db:3", "db:4"} {
		names = append(names, get(t, c, set).Status.UpdateRevision)
		update(t, c, set, func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = image })
		c.RunFor(time.Minute)
	}
	names = append(names, get(t, c, set).Status.UpdateRevision)
	var left []string
	for _, r := range revisions(t, c) {
		left = append(left, fmt.Sprintf("%s=%d", r.Name, r.Revision))
	}
	eq(t, "revisions left", fmt.Sprint(left), fmt.Sprint([]string{names[2] + "=3", names[3] + "=4"}))
}

// adoptOrphanRevisions: a ControllerRevision no one controls that the set's
// selector matches is adopted (AdoptControllerRevision) and counts in the
// history: the set's own revision comes after it.
func TestStatefulSetAdoptsOrphanRevisions(t *testing.T) {
	c := world(t, "seed 29\n")
	orphan := &appsv1.ControllerRevision{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db-orphan", Labels: map[string]string{"app": "db"}},
		Data:       runtime.RawExtension{Raw: []byte(`{"spec":{"template":{"$patch":"replace"}}}`)},
		Revision:   5,
	}
	if err := c.Admin().Create(ctx, orphan); err != nil {
		t.Fatal(err)
	}
	set := statefulSet("db", 1, "db:1")
	if err := c.Admin().Create(ctx, set); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	set = get(t, c, set)
	orphan = get(t, c, orphan)
	if ref := metav1.GetControllerOf(orphan); ref == nil || ref.UID != set.UID || !ptr.Deref(ref.BlockOwnerDeletion, false) {
		t.Errorf("orphan's controller %+v", ref)
	}
	var left []string
	for _, r := range revisions(t, c) {
		left = append(left, fmt.Sprintf("%s=%d", r.Name, r.Revision))
	}
	eq(t, "revisions", fmt.Sprint(left), fmt.Sprint([]string{"db-orphan=5", set.Status.UpdateRevision + "=6"}))
}
