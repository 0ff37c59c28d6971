package differential

import (
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// WorkloadStatefulSet is a StatefulSet with every default kube-apiserver v1.37 sets
// (pkg/apis/apps/v1/defaults.go SetDefaults_StatefulSet, MaxUnavailableStatefulSet
// on: partition 0 and maxUnavailable 1), so that both sides store the same template
// and the statefulset controller hashes the same ControllerRevision data.
func WorkloadStatefulSet(ns, name string, replicas int32, image string, policy appsv1.PodManagementPolicyType) *appsv1.StatefulSet {
	labels := map[string]string{"app": name}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.StatefulSetSpec{
			Replicas:    ptr.To(replicas),
			ServiceName: name,
			Selector:    &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       WorkloadPodSpec(image, corev1.RestartPolicyAlways),
			},
			PodManagementPolicy: policy,
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{
				Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{
					Partition: ptr.To[int32](0), MaxUnavailable: ptr.To(intstr.FromInt32(1)),
				},
			},
			RevisionHistoryLimit: ptr.To[int32](10),
			PersistentVolumeClaimRetentionPolicy: &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
				WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
				WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
			},
		},
	}
}

// WorkloadClaimTemplate is a volumeClaimTemplate with the defaults kube-apiserver
// sets (pkg/apis/core/v1/defaults.go SetDefaults_PersistentVolumeClaimSpec: the
// Filesystem volume mode; SetDefaults_PersistentVolumeClaim: the Pending phase).
func WorkloadClaimTemplate(name string) corev1.PersistentVolumeClaim {
	fs := corev1.PersistentVolumeFilesystem
	return corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			VolumeMode:  &fs,
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
		},
		Status: corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending},
	}
}

// gapNoPVCProtection: kube-apiserver's StorageObjectInUseProtection admission
// plugin (plugin/pkg/admission/storage/storageobjectinuseprotection) adds the
// kubernetes.io/pvc-protection finalizer to every PersistentVolumeClaim it creates,
// which kube-controller-manager's pvc-protection controller removes once a deleting
// claim is used by no pod. The apiserver model has no such admission (and the
// simulator no such controller: were the finalizer added, a deleted claim would stay
// Terminating), so the model's claims have no finalizer (sim/apiserver/doc.go).
// Normalised by dropping the finalizer from the claims' records.
var gapNoPVCProtection = WorkloadGap{
	Name: "claims get no pvc-protection finalizer (sim/apiserver)",
	Normalise: perLine(editLine("PersistentVolumeClaim", func(obj map[string]any) {
		m, ok := obj["metadata"].(map[string]any)
		if !ok {
			return
		}
		fs, _ := m["finalizers"].([]any)
		var kept []any
		for _, f := range fs {
			if f != "kubernetes.io/pvc-protection" {
				kept = append(kept, f)
			}
		}
		if len(kept) == 0 {
			delete(m, "finalizers")
		} else {
			m["finalizers"] = kept
		}
	})),
}

func init() { workloadGaps = append(workloadGaps, gapNoPVCProtection) }
