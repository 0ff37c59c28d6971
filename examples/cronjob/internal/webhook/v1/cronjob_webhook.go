package v1

import (
	"context"

	"github.com/robfig/cron"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"
)

// Defaults are the values the defaulting webhook gives the fields a CronJob
// leaves out.
var Defaults = CronJobDefaulter{
	ConcurrencyPolicy:          batchv1.AllowConcurrent,
	Suspend:                    false,
	SuccessfulJobsHistoryLimit: 3,
	FailedJobsHistoryLimit:     1,
}

// SetupCronJobWebhookWithManager serves the defaulting and the validating
// webhook of CronJobs on mgr's webhook server (the paths controller-runtime
// derives from the kind: /mutate-batch-ctrlsim-dev-v1-cronjob and
// /validate-batch-ctrlsim-dev-v1-cronjob).
func SetupCronJobWebhookWithManager(mgr ctrl.Manager) error {
	d := Defaults
	return ctrl.NewWebhookManagedBy(mgr, &batchv1.CronJob{}).
		WithDefaulter(&d).
		WithValidator(&CronJobValidator{}).
		Complete()
}

// The webhooks' configurations (testdata/webhook-manifests.yaml) are
// generated from these markers by controller-gen webhook:
// +kubebuilder:webhook:path=/mutate-batch-ctrlsim-dev-v1-cronjob,mutating=true,failurePolicy=fail,sideEffects=None,groups=batch.ctrlsim.dev,resources=cronjobs,verbs=create;update,versions=v1,name=mcronjob-v1.batch.ctrlsim.dev,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-batch-ctrlsim-dev-v1-cronjob,mutating=false,failurePolicy=fail,sideEffects=None,groups=batch.ctrlsim.dev,resources=cronjobs,verbs=create;update,versions=v1,name=vcronjob-v1.batch.ctrlsim.dev,admissionReviewVersions=v1

// CronJobDefaulter fills the optional fields a CronJob leaves out.
type CronJobDefaulter struct {
	ConcurrencyPolicy          batchv1.ConcurrencyPolicy
	Suspend                    bool
	SuccessfulJobsHistoryLimit int32
	FailedJobsHistoryLimit     int32
}

// Default sets the concurrency policy, suspend and the history limits where
// cj has none.
func (d *CronJobDefaulter) Default(_ context.Context, cj *batchv1.CronJob) error {
	s := &cj.Spec
	if s.ConcurrencyPolicy == "" {
		s.ConcurrencyPolicy = d.ConcurrencyPolicy
	}
	if s.Suspend == nil {
		s.Suspend = ptr.To(d.Suspend)
	}
	if s.SuccessfulJobsHistoryLimit == nil {
		s.SuccessfulJobsHistoryLimit = ptr.To(d.SuccessfulJobsHistoryLimit)
	}
	if s.FailedJobsHistoryLimit == nil {
		s.FailedJobsHistoryLimit = ptr.To(d.FailedJobsHistoryLimit)
	}
	return nil
}

// CronJobValidator refuses what the CRD's schema cannot: a schedule cron
// cannot parse, and a name too long for the Jobs named after it.
type CronJobValidator struct{}

// ValidateCreate validates a new CronJob.
func (CronJobValidator) ValidateCreate(_ context.Context, cj *batchv1.CronJob) (admission.Warnings, error) {
	return nil, validate(cj)
}

// ValidateUpdate validates the CronJob an update makes.
func (CronJobValidator) ValidateUpdate(_ context.Context, _, cj *batchv1.CronJob) (admission.Warnings, error) {
	return nil, validate(cj)
}

// ValidateDelete allows every deletion.
func (CronJobValidator) ValidateDelete(context.Context, *batchv1.CronJob) (admission.Warnings, error) {
	return nil, nil
}

// jobNameSuffix is the longest suffix the controller adds to a CronJob's
// name to name a Job: "-" and a Unix time in seconds (ten digits until 2286).
const jobNameSuffix = 11

func validate(cj *batchv1.CronJob) error {
	var errs field.ErrorList
	// A Job's name is also the value of its pods' job-name label: at most
	// 63 characters (a DNS-1035 label's length).
	if max := validation.DNS1035LabelMaxLength - jobNameSuffix; len(cj.Name) > max {
		errs = append(errs, field.TooLong(field.NewPath("metadata", "name"), cj.Name, max))
	}
	if _, err := cron.ParseStandard(cj.Spec.Schedule); err != nil {
		errs = append(errs, field.Invalid(field.NewPath("spec", "schedule"), cj.Spec.Schedule, err.Error()))
	}
	if len(errs) == 0 {
		return nil
	}
	return apierrors.NewInvalid(batchv1.GroupVersion.WithKind("CronJob").GroupKind(), cj.Name, errs)
}
