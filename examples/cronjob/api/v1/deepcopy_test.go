package v1

import (
	"reflect"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func full() *CronJob {
	return &CronJob{
		TypeMeta:   metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "CronJob"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello", Labels: map[string]string{"a": "b"}},
		Spec: CronJobSpec{
			Schedule:                   "*/1 * * * *",
			StartingDeadlineSeconds:    ptr.To[int64](60),
			ConcurrencyPolicy:          ForbidConcurrent,
			Suspend:                    ptr.To(false),
			SuccessfulJobsHistoryLimit: ptr.To[int32](3),
			FailedJobsHistoryLimit:     ptr.To[int32](1),
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"team": "batch"}},
				Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					Containers: []corev1.Container{{Name: "c", Args: []string{"sleep", "1"}}},
				}}},
			},
		},
		Status: CronJobStatus{
			Active:           []corev1.ObjectReference{{Name: "hello-1", UID: "u"}},
			LastScheduleTime: &metav1.Time{Time: time.Unix(60, 0)},
		},
	}
}

// A deep copy equals its original and shares no memory with it: changing
// every pointer, slice and map of the copy leaves the original as it was.
func TestADeepCopySharesNoMemory(t *testing.T) {
	in := full()
	out := in.DeepCopy()
	if !reflect.DeepEqual(in, out) {
		t.Fatalf("the copy differs:\n%+v\n%+v", in, out)
	}
	*out.Spec.StartingDeadlineSeconds = 1
	*out.Spec.Suspend = true
	*out.Spec.SuccessfulJobsHistoryLimit = 0
	*out.Spec.FailedJobsHistoryLimit = 0
	out.Spec.JobTemplate.Labels["team"] = "other"
	out.Spec.JobTemplate.Spec.Template.Spec.Containers[0].Args[1] = "2"
	out.Status.Active[0].Name = "other"
	out.Status.LastScheduleTime.Time = time.Unix(0, 0)
	out.Labels["a"] = "c"
	if !reflect.DeepEqual(in, full()) {
		t.Errorf("changing the copy changed the original: %+v", in)
	}

	list := &CronJobList{Items: []CronJob{*full()}}
	lc := list.DeepCopyObject().(*CronJobList)
	*lc.Items[0].Spec.Suspend = true
	if *list.Items[0].Spec.Suspend {
		t.Error("changing a list's copy changed the original")
	}
	if (*CronJob)(nil).DeepCopy() != nil || (*CronJobList)(nil).DeepCopy() != nil {
		t.Error("the copy of nil is not nil")
	}
}
