package kopf_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// suiteT is the test the specs run in: operatortest.Replay runs each plan
// in a testing/synctest bubble of it.
var suiteT *testing.T

func TestKopf(t *testing.T) {
	suiteT = t
	RegisterFailHandler(Fail)
	RunSpecs(t, "Seed 3 (002): kopf, throttling and crashing on unrecoverable errors")
}
