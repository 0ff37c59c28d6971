package kopf_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestKopf(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Seed 3 (002): kopf, throttling and crashing on unrecoverable errors")
}
