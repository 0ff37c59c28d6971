package differential

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The StatefulSet scripts join workloadScripts here, to keep them in one place.
func init() {
	workloadScripts["statefulset"] = []WorkloadStep{
		{Name: "create 3 replicas of web:1, OrderedReady", Do: createStep(func(ns string) client.Object {
			return WorkloadStatefulSet(ns, "web", 3, "web:1", appsv1.OrderedReadyPodManagement)
		}), Settled: statefulSetSettled("web", 3)},
		{Name: "scale down to 1", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](1) }),
			Settled: statefulSetSettled("web", 1)},
		{Name: "image web:2 (rolling update)", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "web:2" }),
			Settled: statefulSetSettled("web", 1)},
		{Name: "scale up to 3", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](3) }),
			Settled: statefulSetSettled("web", 3)},
		// Back to the first template: its ControllerRevision takes revision 3
		// (getStatefulSetRevisions, UpdateControllerRevision), none is created.
		{Name: "image web:1 again (rollback)", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "web:1" }),
			Settled: statefulSetSettled("web", 3)},
	}
	// Claims from a volumeClaimTemplate, controlled by the set (whenDeleted Delete),
	// kept when scaled down (whenScaled Retain) and used again when scaled up.
	workloadScripts["statefulset-claims"] = []WorkloadStep{
		{Name: "create 3 replicas with a claim each, whenDeleted Delete", Do: createStep(func(ns string) client.Object {
			s := WorkloadStatefulSet(ns, "web", 3, "web:1", appsv1.OrderedReadyPodManagement)
			s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{WorkloadClaimTemplate("data")}
			s.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.DeletePersistentVolumeClaimRetentionPolicyType
			return s
		}), Settled: statefulSetSettled("web", 3)},
		{Name: "scale down to 1 (the claims stay)", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](1) }),
			Settled: statefulSetSettled("web", 1)},
		{Name: "scale up to 2 (web-1 gets its claim back)", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](2) }),
			Settled: statefulSetSettled("web", 2)},
	}
	// spec.ordinals (StatefulSetStartOrdinal, GA): the replicas are numbered from
	// start; moving start makes new pods and condemns the old ones.
	workloadScripts["statefulset-ordinals"] = []WorkloadStep{
		{Name: "create 2 replicas numbered from 3", Do: createStep(func(ns string) client.Object {
			s := WorkloadStatefulSet(ns, "web", 2, "web:1", appsv1.OrderedReadyPodManagement)
			s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: 3}
			return s
		}), Settled: statefulSetSettled("web", 2)},
		{Name: "number them from 0", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.Ordinals.Start = 0 }),
			Settled: statefulSetSettled("web", 2)},
	}
	workloadScripts["statefulset-ondelete"] = []WorkloadStep{
		{Name: "create 2 replicas of web:1, OnDelete, minReadySeconds 1", Do: createStep(func(ns string) client.Object {
			s := WorkloadStatefulSet(ns, "web", 2, "web:1", appsv1.OrderedReadyPodManagement)
			s.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.OnDeleteStatefulSetStrategyType}
			s.Spec.MinReadySeconds = 1
			return s
		}), Settled: statefulSetSettled("web", 2)},
		{Name: "image web:2 (no pod changes)", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "web:2" }),
			Settled: statefulSetSettled("web", 0)},
		{Name: "delete web-1 (made again from the update revision)", Do: func(ctx context.Context, c client.Client, ns string) error {
			return c.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web-1"}})
		}, Settled: statefulSetSettled("web", 1)},
	}
	workloadScripts["statefulset-parallel"] = []WorkloadStep{
		{Name: "create 3 replicas of web:1, Parallel, partition 2", Do: createStep(func(ns string) client.Object {
			s := WorkloadStatefulSet(ns, "web", 3, "web:1", appsv1.ParallelPodManagement)
			s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](2)
			return s
		}), Settled: statefulSetSettled("web", 3)},
		{Name: "image web:2 (only web-2 is updated)", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.Template.Spec.Containers[0].Image = "web:2" }),
			Settled: statefulSetSettled("web", 1)},
		{Name: "partition 0 (the rest follow)", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](0) }),
			Settled: statefulSetSettled("web", 3)},
	}
}

func patchStatefulSet(name string, mutate func(*appsv1.StatefulSet)) func(context.Context, client.Client, string) error {
	return func(ctx context.Context, c client.Client, ns string) error {
		s := &appsv1.StatefulSet{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, s); err != nil {
			return err
		}
		base := s.DeepCopy()
		mutate(s)
		return c.Patch(ctx, s, client.MergeFrom(base))
	}
}

// statefulSetSettled: the controller has observed the latest generation; every
// replica is Running, ready and available; updated of them are at the update
// revision (the others, below the partition, at the current one), and when all are,
// the update is complete (currentRevision is the update revision); the pods are
// exactly the replicas, none being deleted.
func statefulSetSettled(name string, updated int32) func(*Snapshot) bool {
	return func(s *Snapshot) bool {
		var set *appsv1.StatefulSet
		for i := range s.StatefulSets {
			if s.StatefulSets[i].Name == name {
				set = &s.StatefulSets[i]
			}
		}
		if set == nil || set.Spec.Replicas == nil {
			return false
		}
		want, st := *set.Spec.Replicas, set.Status
		if st.ObservedGeneration != set.Generation || st.Replicas != want || st.ReadyReplicas != want ||
			st.AvailableReplicas != want || st.UpdatedReplicas != updated || st.CurrentReplicas != want-updated && updated != want {
			return false
		}
		if updated == want && st.CurrentRevision != st.UpdateRevision {
			return false
		}
		running := int32(0)
		for _, p := range s.Pods {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				running++
			}
		}
		return running == want && int32(len(s.Pods)) == want
	}
}

// TestKubeControllerManagerStatefulSetWorkloads checks what upstream's statefulset
// controller documents of the StatefulSet scripts' steps on the real
// kube-controller-manager (pkg/controller/statefulset: stateful_set_utils.go's
// identity labels and revision label, stateful_pod_control.go's events,
// history.NewControllerRevision's names and labels, the status).
func TestKubeControllerManagerStatefulSetWorkloads(t *testing.T) {
	recs := needKubeControllerManagerRecords(t)
	expect := func(script string, step int, wants ...string) {
		t.Helper()
		r := recs[script][step]
		all := strings.Join(r.Lines, "\n")
		for _, w := range wants {
			if !strings.Contains(all, w) {
				t.Errorf("%s / %s: no %s in\n  %s", script, r.Step, w, strings.Join(r.Lines, "\n  "))
			}
		}
	}
	count := func(script string, step int, prefix, sub string) int {
		n := 0
		for _, l := range recs[script][step].Lines {
			if strings.HasPrefix(l, prefix) && strings.Contains(l, sub) {
				n++
			}
		}
		return n
	}
	expect("statefulset", 0,
		`"name":"web-0"`, `"name":"web-1"`, `"name":"web-2"`,
		`"statefulset.kubernetes.io/pod-name":"web-2"`, `"apps.kubernetes.io/pod-index":"2"`, `"controller-revision-hash":"web-`,
		`"controller.kubernetes.io/hash":`, `"revision":1`, `"kind":"StatefulSet"`, `"blockOwnerDeletion":true`, `"uid":"uid(StatefulSet/web)"`,
		`"reason":"SuccessfulCreate"`, `"message":"Create Pod web-0 in StatefulSet web successful"`, `"source":"statefulset-controller"`,
		`"collisionCount":0`, `"currentReplicas":3`, `"updatedReplicas":3`, `"availableReplicas":3`)
	expect("statefulset", 1, `"reason":"SuccessfulDelete"`, `"message":"Delete Pod web-2 in StatefulSet web successful"`,
		`"message":"Delete Pod web-1 in StatefulSet web successful"`)
	expect("statefulset", 2, `"revision":2`, `"image":"web:2"`)
	if n := count("statefulset", 3, "Pod ", `"image":"web:2"`); n != 3 {
		t.Errorf("statefulset after scaling up: %d pods of web:2, want 3", n)
	}
	if n := count("statefulset", 3, "ControllerRevision ", `"revision"`); n != 2 {
		t.Errorf("statefulset: %d ControllerRevisions, want 2", n)
	}
	expect("statefulset", 4, `"controller.kubernetes.io/hash":"`+hashOf(recs["statefulset"][0].Lines)+`"},"name":"web-`+hashOf(recs["statefulset"][0].Lines)+`"`)
	if n := count("statefulset", 4, "ControllerRevision ", `"revision":3`); n != 1 {
		t.Errorf("statefulset after the rollback: %d ControllerRevisions of revision 3, want the first one", n)
	}
	if n := count("statefulset-ondelete", 1, "Pod ", `"image":"web:1"`); n != 2 {
		t.Errorf("statefulset-ondelete after the new image: %d pods of web:1, want 2 (OnDelete)", n)
	}
	expect("statefulset-ondelete", 2, `"currentReplicas":1`, `"updatedReplicas":1`)
	expect("statefulset-claims", 0, `"message":"Create Claim data-web-2 Pod web-2 in StatefulSet web success"`,
		`"labels":{"app":"web"},"name":"data-web-0","ownerReferences":[{"apiVersion":"apps/v1","blockOwnerDeletion":true,"controller":true,"kind":"StatefulSet","name":"web","uid":"uid(StatefulSet/web)"}]}`)
	// kube-apiserver's StorageObjectInUseProtection admission (gapNoPVCProtection).
	if n := count("statefulset-claims", 0, "PersistentVolumeClaim ", `"finalizers":["kubernetes.io/pvc-protection"]`); n != 3 {
		t.Errorf("statefulset-claims: %d claims with the pvc-protection finalizer, want 3", n)
	}
	if n := count("statefulset-claims", 2, "PersistentVolumeClaim ", `"uid(StatefulSet/web)"`); n != 3 {
		t.Errorf("statefulset-claims after scaling up: %d claims of the set, want 3 (none deleted on scale-down)", n)
	}
	if n := count("statefulset-claims", 2, "Event ", `Create Claim data-web-1`); n != 1 {
		t.Errorf("statefulset-claims: %d events of data-web-1's creation, want 1 (it is used again)", n)
	}
	expect("statefulset-ordinals", 0, `"name":"web-3"`, `"name":"web-4"`, `"apps.kubernetes.io/pod-index":"4"`)
	expect("statefulset-ordinals", 1, `"name":"web-0"`, `"name":"web-1"`, `"message":"Delete Pod web-3 in StatefulSet web successful"`)
	if n := count("statefulset-ordinals", 1, "Pod ", `"name":"web-`); n != 2 {
		t.Errorf("statefulset-ordinals after moving start: %d pods, want 2", n)
	}
	if n := count("statefulset-parallel", 1, "Pod ", `"image":"web:1"`); n != 2 {
		t.Errorf("statefulset-parallel with partition 2: %d pods of web:1, want 2 (web-0, web-1)", n)
	}
	expect("statefulset-parallel", 1, `"currentReplicas":2`, `"updatedReplicas":1`)
	if n := count("statefulset-parallel", 2, "Pod ", `"image":"web:2"`); n != 3 {
		t.Errorf("statefulset-parallel with partition 0: %d pods of web:2, want 3", n)
	}
}

// hashOf is the controller.kubernetes.io/hash of the only ControllerRevision in lines.
func hashOf(lines []string) string {
	for _, l := range lines {
		if _, rest, ok := strings.Cut(l, `"controller.kubernetes.io/hash":"`); ok && strings.HasPrefix(l, "ControllerRevision ") {
			h, _, _ := strings.Cut(rest, `"`)
			return h
		}
	}
	return "(none)"
}

func TestKnownGapWorkloadNoPVCProtection(t *testing.T) {
	knownWorkloadGap(t, gapNoPVCProtection, "statefulset-claims")
}
