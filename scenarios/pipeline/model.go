package pipeline

import (
	"context"
	"fmt"
	"sync"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	pipelinectrl "github.com/ctrlsim/ctrlsim/controllers/pipeline"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/promotion"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// The world's names.
const (
	ProcessName  = "pipeline-controller" // the operator pod
	Namespace    = "default"             // where pipelines live
	PipelineName = "podinfo"             // the pipeline created at the start
	AppName      = "podinfo"             // the HelmRelease in every target namespace
	FirstVersion = "v1"                  // what every environment runs at the start
	// PromotionProcess is the name the promotion system's steps carry in the trace.
	PromotionProcess = "promotion"
)

// Environments are the pipeline's environments in promotion order; each has one
// target, the namespace of the same name.
var Environments = []string{"dev", "staging", "prod"}

// Scheme returns client-go's scheme with the pipeline and HelmRelease types.
func Scheme() *runtime.Scheme { return catalogue.NewScheme(pipelinectrl.AddToScheme) }

// sharedScheme is one Scheme for every world: schemes are read-only once
// built, and explorations build thousands of worlds.
var sharedScheme = sync.OnceValue(Scheme)

// Options choose the controller and tune the promotion system.
type Options struct {
	Variant variant.Variant
	// PreRecord runs the buggy variant as it was before PR #214 (no record).
	PreRecord bool
	// PromotionLag bounds the trigger-to-effect lag, drawn per effect from the
	// plan's seed (the system's Rand). Zero: promotion.DefaultLag.
	PromotionLagMin, PromotionLagMax time.Duration
	// PromoteCallTime is how long one Promote call takes. Zero: 2s.
	PromoteCallTime time.Duration
}

// NewPipeline is a pipeline of the app through Environments, promoted by pull
// request.
func NewPipeline(name string) *pipelinectrl.Pipeline {
	p := &pipelinectrl.Pipeline{
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name},
		Spec: pipelinectrl.PipelineSpec{
			AppRef:    pipelinectrl.LocalAppReference{APIVersion: pipelinectrl.HelmGroupVersion.String(), Kind: "HelmRelease", Name: AppName},
			Promotion: &pipelinectrl.Promotion{PullRequest: &pipelinectrl.PullRequestPromotion{URL: "https://github.com/example/podinfo-deploy", Branch: "main"}},
		},
	}
	for _, env := range Environments {
		p.Spec.Environments = append(p.Spec.Environments, pipelinectrl.Environment{Name: env, Targets: []pipelinectrl.Target{{Namespace: env}}})
	}
	return p
}

// SetAppVersion is Flux deploying version to env: the HelmRelease's chart version,
// then its status (Ready, lastAppliedRevision), as helm-controller reports a
// successful upgrade.
func SetAppVersion(ctx context.Context, c client.Client, env, version string) error {
	if version == "" {
		return fmt.Errorf("no version")
	}
	var hr pipelinectrl.HelmRelease
	if err := c.Get(ctx, client.ObjectKey{Namespace: env, Name: AppName}, &hr); err != nil {
		return err
	}
	if hr.Spec.Chart.Spec.Version != version {
		hr.Spec.Chart.Spec.Version = version
		if err := c.Update(ctx, &hr); err != nil {
			return err
		}
	}
	hr.Status.ObservedGeneration = hr.Generation
	hr.Status.LastAppliedRevision = version
	apimeta.SetStatusCondition(&hr.Status.Conditions, metav1.Condition{Type: pipelinectrl.ReadyCondition, Status: metav1.ConditionTrue,
		Reason: "UpgradeSucceeded", Message: "Helm upgrade succeeded for " + version, LastTransitionTime: hr.CreationTimestamp})
	return c.Status().Update(ctx, &hr)
}

// ApplyPromotion is the effect of a promotion: the environment's targets run the
// version (the pull request is merged and Flux applies it). The simulated
// promotion system applies it in this world, and cmd/ctrlsim/internal/promobench's on envtest.
func ApplyPromotion(ctx context.Context, c client.Client, k promotion.Key) error {
	var p pipelinectrl.Pipeline
	if err := c.Get(ctx, k.Pipeline, &p); err != nil {
		return err
	}
	for _, env := range p.Spec.Environments {
		if env.Name != k.Environment {
			continue
		}
		for _, t := range env.Targets {
			if err := SetAppVersion(ctx, c, t.Namespace, k.Version); err != nil {
				return err
			}
		}
	}
	return nil
}
