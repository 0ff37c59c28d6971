package envtestenv

import (
	pipelinectrl "github.com/ctrlsim/ctrlsim/controllers/pipeline"
)

// PipelineCRDs are the custom resources of controllers/pipeline: Pipeline,
// PromotionClaim and the HelmRelease the pipelines point at.
func PipelineCRDs() []CRD {
	return []CRD{
		{GVK: pipelinectrl.PipelineGVK, Plural: "pipelines", Namespaced: true, Status: true, Type: &pipelinectrl.Pipeline{}},
		{GVK: pipelinectrl.PromotionClaimGVK, Plural: "promotionclaims", Namespaced: true, Status: true, Type: &pipelinectrl.PromotionClaim{}},
		{GVK: pipelinectrl.HelmReleaseGVK, Plural: "helmreleases", Namespaced: true, Status: true, Type: &pipelinectrl.HelmRelease{}},
	}
}
