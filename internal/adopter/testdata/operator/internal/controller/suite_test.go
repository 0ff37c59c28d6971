package controller

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// The project's ginkgo suite, as kubebuilder scaffolds it (its envtest
// BeforeSuite left out here: the specs use controller-runtime's fake client,
// so that the suite needs no kube-apiserver binary).
func TestControllers(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Controller Suite")
}
