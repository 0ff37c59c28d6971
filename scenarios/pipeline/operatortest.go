package pipeline

import (
	"context"
	"strconv"
	"sync"
	"time"

	otworld "github.com/ctrlsim/ctrlsim/operatortest/world"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	kclock "k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	pipelinectrl "github.com/ctrlsim/ctrlsim/controllers/pipeline"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/models/promotion"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The pipeline entries as operatortest tests of the pipeline controller's
// variants, written with the public API. The
// promotion target is an outside system (the System named
// PromotionProcess, models/promotion, whose attempts and effects are traced
// as "promote" and "promotion-applied" steps, so that Properties judge them
// as on the kernel); publishing a version and helm-controller's app events
// are domain steps; the apps start Ready at FirstVersion (seed objects with
// their status). The generated workload is off: the seed's bug is in the
// promotion, not in edits of the Pipeline's spec.

// SelfStatusRace is pipeline/self-status-race as an operatortest test of v's
// controller: v2 published within 30 s, informer lag, holds and latency on
// the controller's caches of the three kinds.
func SelfStatusRace(v variant.Variant) operatortest.Options {
	return pipelineOptions(v, []plan.FaultKind{plan.Lag, plan.Hold, plan.Latency})
}

// AppEventRace is pipeline/app-event-race: SelfStatusRace's, and 1-3 app
// events (helm-controller reconciling an environment's app again at the
// same revision) within the first minute.
func AppEventRace(v variant.Variant) operatortest.Options {
	o := SelfStatusRace(v)
	o.Workload.Domain = append(o.Workload.Domain, appEventStep)
	return o
}

// PromotionFailsOnce is pipeline/promotion-fails-once: SelfStatusRace's
// faults, and the promotion target's own fault promotion-fails: its first
// attempt to promote v2 into staging or prod fails with no effect.
func PromotionFailsOnce(v variant.Variant) operatortest.Options {
	o := SelfStatusRace(v)
	o.Systems[0].Faults = []operatortest.DomainStep{promotionFailsStep}
	return o
}

// CrashAfterPromote is pipeline/crash-after-promote: v2 published, crashes
// of the controller (at any call or right after a write) and informer lag.
func CrashAfterPromote(v variant.Variant) operatortest.Options {
	return pipelineOptions(v, []plan.FaultKind{plan.Crash, plan.Lag})
}

// appEventStep is helm-controller reconciling env's app again at the same
// revision (1-3 within the first minute). Example: at 11s app-event env=dev
var appEventStep = operatortest.DomainStep{
	Name:   "app-event",
	Params: []operatortest.Param{{Key: "env", Values: Environments}},
	Within: time.Minute, Min: 1, Max: 3,
	Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
		return touchAppAs(ctx, env.Client, a.Get("env"), env.Now)
	},
}

// promotionFailsStep is the promotion target's fault: its next count
// attempts to promote version into env fail with no effect. Example: at 0s
// promotion-fails env=staging version=v2 count=1
var promotionFailsStep = operatortest.DomainStep{
	Name: "promotion-fails",
	Params: []operatortest.Param{
		{Key: "env", Values: Environments[1:]}, {Key: "version", Values: []string{"v2"}}, {Key: "count", Values: []string{"1"}},
	},
	Within: time.Millisecond, Min: 1, Max: 1,
	Do: func(_ context.Context, env operatortest.StepEnv, a operatortest.Args) error {
		n, err := strconv.Atoi(a.Get("count"))
		if err != nil {
			return err
		}
		env.System(PromotionProcess).(*promotion.System).FailNext(promotion.Key{
			Pipeline:    types.NamespacedName{Namespace: Namespace, Name: PipelineName},
			Environment: a.Get("env"), Version: a.Get("version")}, n)
		return nil
	},
}

// Test is the world of cfg as an operatortest test over faultPhase, with
// every step of the world declared (publish, app-event, promotion-fails)
// and no fault class drawn: the world the package's specs replay their
// plans on (operatortest.Replay) and cmd/ctrlsim/internal/promobench times, as the
// entries' tests are built.
func Test(cfg Options, faultPhase time.Duration) operatortest.Options {
	o := world(cfg, nil)
	o.Workload.Domain = append(o.Workload.Domain, appEventStep)
	o.Systems[0].Faults = []operatortest.DomainStep{promotionFailsStep}
	o.FaultPhase = faultPhase
	return o
}

// pipelineOptions are the options every pipeline entry shares: the CRDs, the
// apps at FirstVersion and the pipeline, v's controller talking to the
// promotion target, the publish step and the fault classes given.
func pipelineOptions(v variant.Variant, classes []plan.FaultKind) operatortest.Options {
	return world(Options{Variant: v}, classes)
}

// world is pipelineOptions for the world of cfg.
func world(cfg Options, classes []plan.FaultKind) operatortest.Options {
	v := cfg.Variant
	objects := []client.Object{}
	for _, env := range Environments {
		objects = append(objects, readyApp(env, FirstVersion))
	}
	objects = append(objects, NewPipeline(PipelineName))
	return operatortest.Options{
		Scheme: sharedScheme(),
		CRDs:   crds(),
		Managers: []operatortest.Manager{{Name: ProcessName, SetupWithSystems: func(mgr manager.Manager, s operatortest.Systems) error {
			r := &pipelinectrl.Reconciler{Client: mgr.GetClient(), Promoter: s[PromotionProcess].(*promotion.System), Clock: catalogue.ClockOf(mgr),
				Variant: v, PreRecord: cfg.PreRecord}
			return r.SetupWithManager(mgr)
		}}},
		Objects: objects,
		Systems: []operatortest.System{promotionSystem(cfg)},
		Workload: operatortest.Workload{
			Steps: []operatortest.StepKind{},
			Domain: []operatortest.DomainStep{{
				Name:   "publish",
				Params: []operatortest.Param{{Key: "version", Values: []string{"v2"}}},
				Within: 30 * time.Second, Min: 1, Max: 1,
				Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
					return SetAppVersion(ctx, env.Client, Environments[0], a.Get("version"))
				},
			}},
		},
		Faults: operatortest.Faults{
			Classes: classes,
			Kinds:   []schema.GroupVersionKind{pipelinectrl.PipelineGVK, pipelinectrl.HelmReleaseGVK, pipelinectrl.PromotionClaimGVK},
			MaxLag:  5 * time.Second,
		},
		Properties: []operatortest.Property{otworld.FromCheck(Properties()[0]), otworld.FromCheck(Properties()[1])},
		// The robust controller's claim counts its attempts: a crash between
		// the claim and the promotion leaves it in doubt, and settling it is
		// an attempt more. The count is the run's history, not a state the
		// controller converges to.
		Nondeterministic: []operatortest.NondeterministicField{{Kind: "PromotionClaim", Path: "status.attempts"}},
		FaultPhase:       2 * time.Minute, HealBudget: 30 * time.Minute,
		NoWorkloadModels: true,
	}
}

// promotionSystem is the promotion target: a Promote call takes
// cfg.PromoteCallTime (default 2 s), and its effect (the environment's apps
// run the version, ApplyPromotion) lands cfg's promotion lag later (default
// promotion.DefaultLag, drawn between min and max from the Rand
// of the system); every attempt and effect is traced.
func promotionSystem(cfg Options) operatortest.System {
	call := cfg.PromoteCallTime
	if call == 0 {
		call = 2 * time.Second
	}
	return operatortest.System{
		Name: PromotionProcess,
		New: func(env operatortest.SystemEnv) (any, error) {
			s := &promotion.System{Client: env.Client, Clock: env.Clock.(kclock.WithDelayedExecution), CallTime: call, Apply: ApplyPromotion}
			if cfg.PromotionLagMin != 0 || cfg.PromotionLagMax != 0 {
				lo, hi := cfg.PromotionLagMin, max(cfg.PromotionLagMin, cfg.PromotionLagMax)
				s.Lag = func(promotion.Key, int) time.Duration { return lo + time.Duration(env.Rand.Int64N(int64(hi-lo)+1)) }
			}
			s.OnAttempt = func(a promotion.Attempt) { env.Trace(OpPromote, a.Key.String(), resultOf(a.Err)) }
			s.OnApply = func(e promotion.Effect) { env.Trace(OpApplied, e.Key.String(), resultOf(e.ApplyErr)) }
			return s, nil
		},
	}
}

func resultOf(err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	return "ok"
}

// readyApp is env's HelmRelease at version, reported Ready by helm-controller.
func readyApp(env, version string) *pipelinectrl.HelmRelease {
	hr := &pipelinectrl.HelmRelease{ObjectMeta: metav1.ObjectMeta{Namespace: env, Name: AppName},
		Spec: pipelinectrl.HelmReleaseSpec{Chart: pipelinectrl.HelmChartTemplate{Spec: pipelinectrl.HelmChartTemplateSpec{Chart: AppName, Version: version}}}}
	hr.Status.ObservedGeneration = 1
	hr.Status.LastAppliedRevision = version
	apimeta.SetStatusCondition(&hr.Status.Conditions, metav1.Condition{Type: pipelinectrl.ReadyCondition, Status: metav1.ConditionTrue,
		Reason: "UpgradeSucceeded", Message: "Helm upgrade succeeded for " + version, LastTransitionTime: metav1.Unix(0, 0)})
	return hr
}

// touchAppAs is touchApp by a user's client: helm-controller reconciling
// env's app again at the same revision, a status write the pipeline sees.
func touchAppAs(ctx context.Context, c client.Client, env string, now time.Duration) error {
	var hr pipelinectrl.HelmRelease
	if err := c.Get(ctx, client.ObjectKey{Namespace: env, Name: AppName}, &hr); err != nil {
		return err
	}
	if cond := apimeta.FindStatusCondition(hr.Status.Conditions, pipelinectrl.ReadyCondition); cond != nil {
		cond.Message = "Release reconciled at " + now.String()
	}
	return c.Status().Update(ctx, &hr)
}

// OnOperatortest are the pipeline entries (Entries, their text) with their
// tests: what the catalogue runs.
func OnOperatortest() []*catalogue.Entry {
	tests := map[string]func(variant.Variant) operatortest.Options{
		"pipeline/self-status-race":     SelfStatusRace,
		"pipeline/app-event-race":       AppEventRace,
		"pipeline/promotion-fails-once": PromotionFailsOnce,
		"pipeline/crash-after-promote":  CrashAfterPromote,
	}
	return catalogue.Ported(Entries(), tests)
}

// crds are the CRDs of the world as manifests (envtest's, from the Go types).
var crds = sync.OnceValue(func() [][]byte {
	return catalogue.CRDManifests(envtestenv.PipelineCRDs()...)
})
