// Package controller is the kubebuilder book's CronJob tutorial controller,
// copied unmodified from kubernetes-sigs/kubebuilder (see ../../SOURCE.md for
// the commit and the one changed import line). This doc.go is the only file
// added; cronjob_controller.go is the tutorial's.
//
// # Known gaps
//
// The tutorial's envtest suite (suite_test.go, cronjob_controller_test.go) is
// not copied: the simulator runs the controller, package cronjob checks it.
// Its webhooks are in ../webhook/v1.
package controller
