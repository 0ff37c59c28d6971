package v1

import (
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConcurrencyPolicy says what a CronJob does when a run is due while a Job of
// an earlier run has not finished.
// +kubebuilder:validation:Enum=Allow;Forbid;Replace
type ConcurrencyPolicy string

const (
	// AllowConcurrent starts the new run beside the unfinished ones.
	AllowConcurrent ConcurrencyPolicy = "Allow"
	// ForbidConcurrent holds the new run back until no Job is unfinished
	// (within startingDeadlineSeconds; past it, the run is skipped).
	ForbidConcurrent ConcurrencyPolicy = "Forbid"
	// ReplaceConcurrent deletes the unfinished Jobs, then starts the new run.
	ReplaceConcurrent ConcurrencyPolicy = "Replace"
)

// CronJobSpec is what the user asks for: a Job made from JobTemplate at every
// time of Schedule.
type CronJobSpec struct {
	// Schedule is a standard five-field cron expression ("*/5 * * * *") or
	// a descriptor (@hourly, @daily, @every 90s), in the controller's time
	// zone.
	// +kubebuilder:validation:MinLength=1
	Schedule string `json:"schedule"`

	// StartingDeadlineSeconds is how late a run may start: a scheduled time
	// more than this many seconds in the past is skipped. Unset: no deadline.
	// +kubebuilder:validation:Minimum=0
	// +optional
	StartingDeadlineSeconds *int64 `json:"startingDeadlineSeconds,omitempty"`

	// ConcurrencyPolicy is what to do when a run is due while an earlier Job
	// runs: Allow when left out (the schema's default; the defaulting
	// webhook sets the same).
	// +kubebuilder:default=Allow
	// +optional
	ConcurrencyPolicy ConcurrencyPolicy `json:"concurrencyPolicy,omitempty"`

	// Suspend stops new runs; running Jobs go on.
	// +optional
	Suspend *bool `json:"suspend,omitempty"`

	// JobTemplate is the Job each run creates; the labels and annotations of
	// its metadata are copied to the Job.
	JobTemplate batchv1.JobTemplateSpec `json:"jobTemplate"`

	// SuccessfulJobsHistoryLimit is how many succeeded Jobs to keep; older
	// ones are deleted. Unset: all are kept (the webhook defaults it to 3).
	// +kubebuilder:validation:Minimum=0
	// +optional
	SuccessfulJobsHistoryLimit *int32 `json:"successfulJobsHistoryLimit,omitempty"`

	// FailedJobsHistoryLimit is how many failed Jobs to keep. Unset: all are
	// kept (the webhook defaults it to 1).
	// +kubebuilder:validation:Minimum=0
	// +optional
	FailedJobsHistoryLimit *int32 `json:"failedJobsHistoryLimit,omitempty"`
}

// CronJobStatus is what the controller observed and remembers.
type CronJobStatus struct {
	// Active lists the CronJob's Jobs that have not finished.
	// +optional
	// +listType=atomic
	Active []corev1.ObjectReference `json:"active,omitempty"`

	// LastScheduleTime is the latest scheduled time a Job was created for.
	// The controller never moves it back: a scheduled time at or before it
	// has been run, whether or not its Job still exists.
	// +optional
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
}

// CronJob runs a Job on a schedule.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type CronJob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   CronJobSpec   `json:"spec,omitempty"`
	Status CronJobStatus `json:"status,omitempty"`
}

// CronJobList is a list of CronJobs.
// +kubebuilder:object:root=true
type CronJobList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []CronJob `json:"items"`
}

func init() {
	SchemeBuilder.Register(&CronJob{}, &CronJobList{})
}
