package apiserver_test

import (
	"maps"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A Job created without a selector gets one on its uid, its template the job-name
// and controller-uid labels, and itself the template's labels
// (pkg/registry/batch/job/strategy.go generateSelector; pkg/apis/batch/v1
// SetDefaults_Job, also for completions, parallelism, backoffLimit and the rest).
func TestAJobGetsItsSelectorLabelsAndDefaults(t *testing.T) {
	w := newWorld(t)
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "pi"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "pi", Image: "perl"}}}}}}
	w.must(w.s.Create(admin, job))
	var got batchv1.Job
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(job), &got))
	uid := string(got.UID)
	want := map[string]string{"job-name": "pi", "batch.kubernetes.io/job-name": "pi",
		"controller-uid": uid, "batch.kubernetes.io/controller-uid": uid}
	if !maps.Equal(got.Spec.Template.Labels, want) {
		t.Errorf("template labels %v, want %v", got.Spec.Template.Labels, want)
	}
	if !maps.Equal(got.Labels, want) {
		t.Errorf("labels %v, want the template's %v", got.Labels, want)
	}
	if got.Spec.Selector == nil || !maps.Equal(got.Spec.Selector.MatchLabels, map[string]string{"batch.kubernetes.io/controller-uid": uid}) ||
		len(got.Spec.Selector.MatchExpressions) != 0 {
		t.Errorf("selector %v, want batch.kubernetes.io/controller-uid=%s", got.Spec.Selector, uid)
	}
	s := got.Spec
	if ptr.Deref(s.Completions, 0) != 1 || ptr.Deref(s.Parallelism, 0) != 1 || ptr.Deref(s.BackoffLimit, 0) != 6 ||
		ptr.Deref(s.CompletionMode, "") != batchv1.NonIndexedCompletion || s.Suspend == nil || *s.Suspend ||
		ptr.Deref(s.PodReplacementPolicy, "") != batchv1.TerminatingOrFailed || s.ManualSelector == nil || *s.ManualSelector {
		t.Errorf("spec not defaulted as SetDefaults_Job: %+v", s)
	}

	// A Job with its own labels keeps them; manualSelector keeps the selector and
	// template as given; completions alone leave parallelism 1.
	manual := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "manual", Labels: map[string]string{"team": "a"}},
		Spec: batchv1.JobSpec{ManualSelector: ptr.To(true), Completions: ptr.To[int32](3),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "m"}},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "m"}}, Spec: corev1.PodSpec{
				RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "pi", Image: "perl"}}}}}}
	w.must(w.s.Create(admin, manual))
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(manual), &got))
	if !maps.Equal(got.Labels, map[string]string{"team": "a"}) || !maps.Equal(got.Spec.Template.Labels, map[string]string{"app": "m"}) ||
		!maps.Equal(got.Spec.Selector.MatchLabels, map[string]string{"app": "m"}) || ptr.Deref(got.Spec.Parallelism, 0) != 1 ||
		ptr.Deref(got.Spec.Completions, 0) != 3 {
		t.Errorf("manual selector Job: labels %v, template labels %v, selector %v, parallelism %v",
			got.Labels, got.Spec.Template.Labels, got.Spec.Selector, got.Spec.Parallelism)
	}

	// An update whose body drops the Job's labels gets the template's again (the
	// body is defaulted as it is decoded).
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(job), &got))
	got.Labels = nil
	w.must(w.s.Update(admin, &got, ""))
	if !maps.Equal(got.Labels, want) {
		t.Errorf("labels after an update without them %v, want %v", got.Labels, want)
	}
}
