// Package v1 is the kubebuilder book's CronJob tutorial webhooks (a
// defaulter and a validator built with ctrl.NewWebhookManagedBy), copied
// unmodified from kubernetes-sigs/kubebuilder (see ../../../SOURCE.md for the
// commit and the one changed import line). This doc.go is the only file
// added; cronjob_webhook.go is the tutorial's.
//
// # Known gaps
//
// The tutorial's webhook envtest suite (webhook_suite_test.go,
// cronjob_webhook_test.go) is not copied: the simulator's apiserver calls the
// webhooks, package cronjob checks them.
package v1
