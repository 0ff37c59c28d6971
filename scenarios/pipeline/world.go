package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	pipelinectrl "github.com/ctrlsim/ctrlsim/controllers/pipeline"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/promotion"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
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

// Kinds as plans name them (for lag and hold faults).
var (
	PipelineKind       = cluster.KindName(pipelinectrl.PipelineGVK)
	HelmReleaseKind    = cluster.KindName(pipelinectrl.HelmReleaseGVK)
	PromotionClaimKind = cluster.KindName(pipelinectrl.PromotionClaimGVK)
)

// CRDs are the custom resources the world serves.
var CRDs = []apiserver.CRD{
	{GVK: pipelinectrl.PipelineGVK, Namespaced: true, Status: true, Plural: "pipelines"},
	{GVK: pipelinectrl.PromotionClaimGVK, Namespaced: true, Status: true, Plural: "promotionclaims"},
	{GVK: pipelinectrl.HelmReleaseGVK, Namespaced: true, Status: true, Plural: "helmreleases"},
}

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
	// plan's seed (stream "promotion/lag"). Zero: promotion.DefaultLag.
	PromotionLagMin, PromotionLagMax time.Duration
	// PromoteCallTime is how long one Promote call takes. Zero: 2s.
	PromoteCallTime time.Duration
	// Promotion, if not nil, is the world's promotion system, for a caller that
	// reads its ledger (Effects, Duplicates) or hooks its effects; World sets
	// its call time, effect and hooks. Nil: a system of the world's own. One
	// system serves one run.
	Promotion *promotion.System
}

// world is one run's world: its options and its promotion system.
type world struct{ Options }

var ctx = context.Background()

// World is the world of o: the pipeline controller of o.Variant in process
// ProcessName, the apps of three environments and the pipeline, and the
// promotion system. Build one for every run (its promotion system is the run's).
func World(o Options) cluster.Options {
	if o.PromotionLagMin == 0 && o.PromotionLagMax == 0 {
		o.PromotionLagMin, o.PromotionLagMax = promotion.DefaultLag, promotion.DefaultLag
	}
	if o.PromoteCallTime == 0 {
		o.PromoteCallTime = 2 * time.Second
	}
	if o.Promotion == nil {
		o.Promotion = &promotion.System{}
	}
	o.Promotion.CallTime, o.Promotion.Apply = o.PromoteCallTime, ApplyPromotion
	w := &world{Options: o}
	return cluster.Options{
		Scheme:    sharedScheme(),
		CRDs:      CRDs,
		Processes: []process.Spec{{Name: ProcessName, Setup: w.setupController}},
		Setup:     w.setup,
		Actions: map[string]cluster.Action{
			// Example: at 1s create-pipeline name=other
			"create-pipeline": cluster.Act(func(c *cluster.Cluster, a plan.Args) error {
				return c.Admin().Create(ctx, NewPipeline(orDefault(a.Get("name"), PipelineName)))
			}, "name"),
			// Example: at 10s publish version=v2 (the first environment's app now runs v2)
			"publish": cluster.Act(func(c *cluster.Cluster, a plan.Args) error {
				return SetAppVersion(ctx, c.Admin(), orDefault(a.Get("env"), Environments[0]), a.Get("version"))
			}, "env", "version"),
			// Example: at 12s app-event env=dev (helm-controller reconciles the app again; same revision)
			"app-event": cluster.Act(func(c *cluster.Cluster, a plan.Args) error {
				return touchApp(c, orDefault(a.Get("env"), Environments[0]))
			}, "env"),
			// Example: at 12s app-ready env=staging ready=false
			"app-ready": cluster.Act(func(c *cluster.Cluster, a plan.Args) error {
				return setAppReady(c, orDefault(a.Get("env"), Environments[0]), a.Get("ready") != "false")
			}, "env", "ready"),
			// Example: at 0s promotion-fails env=staging version=v2 count=1
			"promotion-fails": cluster.Act(func(c *cluster.Cluster, a plan.Args) error {
				n, err := strconv.Atoi(orDefault(a.Get("count"), "1"))
				if err != nil {
					return err
				}
				w.Promotion.FailNext(promotion.Key{Pipeline: types.NamespacedName{Namespace: Namespace, Name: orDefault(a.Get("pipeline"), PipelineName)},
					Environment: a.Get("env"), Version: a.Get("version")}, n)
				return nil
			}, "count", "pipeline", "env", "version"),
			// Example: at 11s edit-pipeline branch=release (a spec change: generation bump)
			"edit-pipeline": cluster.Act(func(c *cluster.Cluster, a plan.Args) error {
				var p pipelinectrl.Pipeline
				if err := c.Get(client.ObjectKey{Namespace: Namespace, Name: orDefault(a.Get("name"), PipelineName)}, &p); err != nil {
					return err
				}
				p.Spec.Promotion.PullRequest.Branch = orDefault(a.Get("branch"), "release")
				return c.Admin().Update(ctx, &p)
			}, "name", "branch"),
		},
	}
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// setupController is the controller's main: its own SetupWithManager on the
// process's manager.
func (w *world) setupController(p *process.Process) error {
	mgr := p.Manager()
	r := &pipelinectrl.Reconciler{Client: mgr.GetClient(), Promoter: w.Promotion, Clock: p.Clock(),
		Variant: w.Variant, PreRecord: w.PreRecord}
	return r.SetupWithManager(mgr)
}

// setup creates the namespaces, the apps at FirstVersion and the pipeline, and
// binds the promotion system to the cluster.
func (w *world) setup(c *cluster.Cluster) error {
	s := w.Promotion
	s.Client, s.Clock = c.Admin(), c.Clock
	lag := c.Stream("promotion/lag")
	s.Lag = func(promotion.Key, int) time.Duration { return lag.Duration(w.PromotionLagMin, w.PromotionLagMax) }
	s.OnAttempt = func(a promotion.Attempt) {
		res := "ok"
		if a.Err != nil {
			res = "error: " + a.Err.Error()
		}
		c.Trace.Add(trace.Step{At: c.Now(), Process: PromotionProcess, Op: "promote", Object: a.Key.String(), Result: res})
	}
	s.OnApply = func(e promotion.Effect) {
		res := "ok"
		if e.ApplyErr != nil {
			res = "error: " + e.ApplyErr.Error()
		}
		c.Trace.Add(trace.Step{At: c.Now(), Process: PromotionProcess, Op: "promotion-applied", Object: e.Key.String(), Result: res})
	}
	for _, env := range Environments {
		if err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: env}}); err != nil {
			return err
		}
		hr := &pipelinectrl.HelmRelease{ObjectMeta: metav1.ObjectMeta{Namespace: env, Name: AppName},
			Spec: pipelinectrl.HelmReleaseSpec{Chart: pipelinectrl.HelmChartTemplate{Spec: pipelinectrl.HelmChartTemplateSpec{Chart: AppName}}}}
		if err := c.Admin().Create(ctx, hr); err != nil {
			return err
		}
		if err := SetAppVersion(ctx, c.Admin(), env, FirstVersion); err != nil {
			return err
		}
	}
	return c.Admin().Create(ctx, NewPipeline(PipelineName))
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
// promotion system applies it in this world, and internal/promobench's on envtest.
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

// touchApp is helm-controller reconciling the app again without a new revision:
// a status write (an app event for the pipeline) that changes nothing it reads.
func touchApp(c *cluster.Cluster, env string) error {
	var hr pipelinectrl.HelmRelease
	if err := c.Get(client.ObjectKey{Namespace: env, Name: AppName}, &hr); err != nil {
		return err
	}
	if cond := apimeta.FindStatusCondition(hr.Status.Conditions, pipelinectrl.ReadyCondition); cond != nil {
		cond.Message = "Release reconciled at " + c.Now().String()
	}
	return c.Admin().Status().Update(ctx, &hr)
}

func setAppReady(c *cluster.Cluster, env string, ready bool) error {
	var hr pipelinectrl.HelmRelease
	if err := c.Get(client.ObjectKey{Namespace: env, Name: AppName}, &hr); err != nil {
		return err
	}
	st := metav1.ConditionTrue
	if !ready {
		st = metav1.ConditionFalse
	}
	apimeta.SetStatusCondition(&hr.Status.Conditions, metav1.Condition{Type: pipelinectrl.ReadyCondition, Status: st,
		Reason: "Reconciling", Message: "set by the plan", LastTransitionTime: metav1.NewTime(c.Clock.Now())})
	return c.Admin().Status().Update(ctx, &hr)
}
