// Package v1 is the example CronJob operator's admission webhooks, built with
// ctrl.NewWebhookManagedBy: a CustomDefaulter (CronJobDefaulter: Allow,
// suspend false, history limits 3 and 1 where left out) and a CustomValidator
// (CronJobValidator: a schedule robfig/cron parses, a name short enough for
// the Jobs named after it). Its kubebuilder:webhook markers generate
// ../../testdata/webhook-manifests.yaml (controller-gen webhook).
//
// # Known gaps
//
//   - No envtest suite of its own: the simulator's apiserver calls the
//     webhooks, package cronjob checks them
//     (examples/cronjob.TestTheWebhooksDefaultAndValidate).
//   - Updates are validated as creates are: no field is immutable
//     (TestAnUpdateIsValidatedAsACreateIs).
package v1
