package pipeline_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

func TestPipelineScenarios(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Seed 5 (004): pipeline-controller promotions")
}
