package kube

import (
	"bytes"
	"fmt"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The cases of upstream's stateful_set_utils_test.go (v1.37.1)
// TestGetStatefulSetMaxUnavailable, TestIsClaimOwnerUpToDate and
// TestCreateApplyRevision, with their expected values.

func TestStatefulSetMaxUnavailableAsUpstream(t *testing.T) {
	for i, tc := range []struct {
		maxUnavailable *intstr.IntOrString
		replicas, want int
	}{
		{nil, 10, 1},
		{ptr.To(intstr.FromInt32(3)), 10, 3},
		{ptr.To(intstr.FromInt32(3)), 0, 3},
		{ptr.To(intstr.FromInt32(0)), 0, 1},
		{ptr.To(intstr.FromString("10%")), 25, 2},
		{ptr.To(intstr.FromString("100%")), 5, 5},
		{ptr.To(intstr.FromString("50%")), 5, 2},
		{ptr.To(intstr.FromString("10%")), 5, 1},
		{ptr.To(intstr.FromString("1%")), 0, 1},
		{ptr.To(intstr.FromString("0%")), 0, 1},
	} {
		got, err := statefulSetMaxUnavailable(tc.maxUnavailable, tc.replicas)
		if err != nil || got != tc.want {
			t.Errorf("case %d: got %d (%v), want %d", i, got, err, tc.want)
		}
	}
}

func TestIsClaimOwnerUpToDateAsUpstream(t *testing.T) {
	const retain, del = appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	for _, tc := range []struct {
		name                     string
		scaled, deleted          appsv1.PersistentVolumeClaimRetentionPolicyType
		needsPodRef, needsSetRef bool
		replicas                 int32
		ordinal                  int
	}{
		{"retain", retain, retain, false, false, 0, 0},
		{"on SS delete", retain, del, false, true, 0, 0},
		{"on scaledown only, condemned", del, retain, true, false, 2, 2},
		{"on scaledown only, remains", del, retain, false, false, 2, 1},
		{"on both, condemned", del, del, true, false, 2, 2},
		{"on both, remains", del, del, false, true, 2, 1},
	} {
		for _, others := range []bool{false, true} {
			for _, podRef := range []bool{false, true} {
				for _, setRef := range []bool{false, true} {
					claim := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "target-claim"}}
					pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pod-%d", tc.ordinal), UID: "pod-123"}}
					set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "stateful-set", UID: "ss-456"}}
					set.Spec.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{WhenScaled: tc.scaled, WhenDeleted: tc.deleted}
					set.Spec.Replicas = ptr.To(tc.replicas)
					var refs []metav1.OwnerReference
					if podRef {
						refs = addControllerRef(refs, pod, podKind)
					}
					if setRef {
						refs = addControllerRef(refs, set, statefulSetKind)
					}
					if others {
						refs = append(refs,
							metav1.OwnerReference{Name: "rand1", APIVersion: "v1", Kind: "Pod", UID: "rand1-uid"},
							metav1.OwnerReference{Name: "rand2", APIVersion: "v1", Kind: "Pod", UID: "rand2-uid"})
					}
					claim.OwnerReferences = refs
					want := podRef == tc.needsPodRef && setRef == tc.needsSetRef
					if got := isClaimOwnerUpToDate(claim, set, pod); got != want {
						t.Errorf("%s with pod=%v, set=%v, others=%v: got %v", tc.name, podRef, setRef, others, got)
					}
					if !want {
						// updateClaimOwnerRefForSetAndPod makes it so.
						updateClaimOwnerRefForSetAndPod(claim, set, pod)
						if !isClaimOwnerUpToDate(claim, set, pod) {
							t.Errorf("%s with pod=%v, set=%v, others=%v: not up to date after the update: %+v", tc.name, podRef, setRef, others, claim.OwnerReferences)
						}
					}
				}
			}
		}
	}
}

// newTestStatefulSet is upstream's newStatefulSet(1): a "datadir" claim
// template mounted with a "home" host path volume.
func newTestStatefulSet() *appsv1.StatefulSet {
	return &appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{Kind: "StatefulSet", APIVersion: "apps/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: "foo", Namespace: corev1.NamespaceDefault, UID: "test"},
		Spec: appsv1.StatefulSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"foo": "bar"}},
			Replicas: ptr.To[int32](1),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"foo": "bar"}},
				Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "nginx", Image: "nginx", VolumeMounts: []corev1.VolumeMount{
						{Name: "datadir", MountPath: "/tmp/zookeeper"}, {Name: "home", MountPath: "/home"}}}},
					Volumes: []corev1.Volume{{Name: "home", VolumeSource: corev1.VolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: "/tmp/home"}}}},
				},
			},
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "datadir"}}},
			ServiceName:          "governingsvc",
		},
	}
}

func TestCreateApplyRevisionAsUpstream(t *testing.T) {
	set := newTestStatefulSet()
	set.Status.CollisionCount = new(int32)
	revision, err := newStatefulSetRevision(set, 1, set.Status.CollisionCount)
	if err != nil {
		t.Fatal(err)
	}
	set.Spec.Template.Spec.Containers[0].Name = "foo"
	set.Annotations = map[string]string{"foo": "bar"}
	restored, err := applyRevision(set, revision)
	if err != nil {
		t.Fatal(err)
	}
	if restored.Spec.Template.Spec.Containers[0].Name != "nginx" {
		t.Errorf("the revision did not restore the template: container %q", restored.Spec.Template.Spec.Containers[0].Name)
	}
	again, err := newStatefulSetRevision(restored, 2, restored.Status.CollisionCount)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(revision.Data.Raw, again.Data.Raw) {
		t.Errorf("wanted %s got %s", revision.Data.Raw, again.Data.Raw)
	}
	if again.Annotations["foo"] != "bar" {
		t.Errorf("annotations %v, want foo=bar", again.Annotations)
	}
	if again.Name != revision.Name || again.Name != "foo-"+again.Labels[ControllerRevisionHashLabel] {
		t.Errorf("names %s and %s: the name is the set's and the hash of the data", revision.Name, again.Name)
	}
}

// newVersionedStatefulSetPod puts ordinals below the partition at the current
// revision and the others at the update revision, with the identity labels,
// hostname, subdomain and the claims' volumes (stateful_set_utils.go).
func TestNewVersionedStatefulSetPod(t *testing.T) {
	current := newTestStatefulSet()
	current.Spec.UpdateStrategy = appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
		RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2)}}
	update := current.DeepCopy()
	update.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	for ord, want := range []string{"r1 nginx", "r1 nginx", "r2 nginx:2", "r2 nginx:2"} {
		p := newVersionedStatefulSetPod(current, update, "r1", "r2", ord)
		name := fmt.Sprintf("foo-%d", ord)
		if got := p.Labels[appsv1.StatefulSetRevisionLabel] + " " + p.Spec.Containers[0].Image; got != want {
			t.Errorf("ordinal %d: %s, want %s", ord, got, want)
		}
		if p.Name != name || p.GenerateName != "foo-" || p.Labels[appsv1.StatefulSetPodNameLabel] != name || p.Labels[appsv1.PodIndexLabel] != fmt.Sprint(ord) ||
			p.Spec.Hostname != name || p.Spec.Subdomain != "governingsvc" {
			t.Errorf("ordinal %d: identity %s %s %v %s %s", ord, p.Name, p.GenerateName, p.Labels, p.Spec.Hostname, p.Spec.Subdomain)
		}
		if len(p.Spec.Volumes) != 2 || p.Spec.Volumes[0].PersistentVolumeClaim == nil || p.Spec.Volumes[0].PersistentVolumeClaim.ClaimName != "datadir-"+name || p.Spec.Volumes[1].Name != "home" {
			t.Errorf("ordinal %d: volumes %+v", ord, p.Spec.Volumes)
		}
		if !identityMatches(current, p) || !storageMatches(current, p) {
			t.Errorf("ordinal %d: identity or storage does not match", ord)
		}
	}
}
