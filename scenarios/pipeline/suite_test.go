package pipeline_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// suiteT is the test the specs run in: operatortest.Replay runs each plan
// in a testing/synctest bubble of it.
var suiteT *testing.T

func TestPipelineScenarios(t *testing.T) {
	suiteT = t
	RegisterFailHandler(Fail)
	RunSpecs(t, "Seed 5 (004): pipeline-controller promotions")
}
