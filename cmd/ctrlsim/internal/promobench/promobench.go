// Package promobench times one scripted pipeline promotion through three
// environments on a real kube-apiserver (envtest) and on the simulator, for
// ctrlsim bench's speedup_vs_envtest. It is apart from envtestenv so that the
// controllers' envtest suites do not import the simulator.
//
// The workload is scenarios/pipeline's world with the fixed controller: v2 is
// published in dev, and the controller promotes it to staging, then to prod.
// Its Timing says how long a Promote call takes and how long a promotion takes
// to show its effect. Envtest waits for both on the wall clock; the simulator
// waits on its virtual clock. So the ratio has two parts, which ctrlsim bench
// reports apart: Catalogue is the timing the catalogue explores (a human-scale
// promotion: a pull request merged and applied), NoWait leaves only the API and
// controller work.
//
// # Known gaps
//
//   - One workload only. Each envtest round starts its own etcd and
//     kube-apiserver; their start-up and the server's one-time warm-up of custom
//     resources are not counted. Building the simulated cluster is counted,
//     and so is the simulator's run to its end after the effect (Replay
//     runs a plan to the end; envtest stops at the effect).
//   - Under Catalogue timing one envtest round takes over four minutes.
package promobench

import (
	"cmp"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	pipelinectrl "github.com/ctrlsim/ctrlsim/controllers/pipeline"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/internal/outside"
	"github.com/ctrlsim/ctrlsim/models/promotion"
	"github.com/ctrlsim/ctrlsim/operatortest"
	scenario "github.com/ctrlsim/ctrlsim/scenarios/pipeline"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Timing is how long the promotion system takes.
type Timing struct {
	// CallTime is how long one Promote call takes to return.
	CallTime time.Duration
	// Lag is the time from a Promote call to its effect (prod running v2).
	Lag time.Duration
}

func (t Timing) String() string {
	return fmt.Sprintf("Promote call %s, promotion lag %s", t.CallTime, t.Lag)
}

var (
	// Catalogue is the timing of scenarios/pipeline's world as the catalogue
	// explores it: a 2s Promote call and promotion.DefaultLag (2m) to the effect.
	Catalogue = Timing{CallTime: 2 * time.Second, Lag: promotion.DefaultLag}
	// NoWait is a promotion that takes no time (1ns: scenarios/pipeline reads a
	// zero as "the default").
	NoWait = Timing{CallTime: time.Nanosecond, Lag: time.Nanosecond}
	// Short is the timing of the test that runs both sides in make test.
	Short = Timing{CallTime: time.Millisecond, Lag: 100 * time.Millisecond}
)

// prod is the promotion whose effect ends the workload.
var prod = promotion.Key{Pipeline: client.ObjectKey{Namespace: scenario.Namespace, Name: scenario.PipelineName},
	Environment: scenario.Environments[2], Version: "v2"}

// PromotionOnEnvtest runs the scripted promotion on a real kube-apiserver and
// returns its wall time: scenarios/pipeline's world (namespaces dev, staging and
// prod, each with the HelmRelease podinfo at v1, and the Pipeline podinfo)
// created by the admin, the fixed pipeline controller started in a real manager
// with its SetupWithManager, v2 published in dev, until the promotion of v2 to
// prod has taken effect. Starting and stopping etcd and kube-apiserver (a few
// seconds) and the server's one-time warm-up of custom resources (warmUp) are not
// counted.
func PromotionOnEnvtest(assets string, t Timing) (time.Duration, error) {
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: scenario.Scheme(), CRDs: envtestenv.PipelineCRDs()})
	if err != nil {
		return 0, err
	}
	d, err := promoteOnEnvtest(env, t)
	if stopErr := env.Stop(); err == nil && stopErr != nil {
		err = fmt.Errorf("stopping envtest: %w", stopErr)
	}
	return d, err
}

func promoteOnEnvtest(env *envtestenv.Env, t Timing) (time.Duration, error) {
	ctx := context.Background()
	done := make(chan error, 1)
	promotions := envtestenv.NewPromotions(env.Admin, scenario.ApplyPromotion, t.Lag)
	promotions.SetCallTime(t.CallTime)
	promotions.OnApply(func(e promotion.Effect) {
		if e.Key == prod {
			select {
			case done <- e.ApplyErr:
			default: // a second effect: the first one ended the run
			}
		}
	})

	if err := warmUp(ctx, env.Admin); err != nil {
		return 0, err
	}

	start := time.Now()
	for _, name := range scenario.Environments {
		if err := envtestenv.CreateNamespace(ctx, env.Admin, name); err != nil {
			return 0, err
		}
		hr := &pipelinectrl.HelmRelease{}
		hr.Namespace, hr.Name = name, scenario.AppName
		hr.Spec.Chart.Spec.Chart = scenario.AppName
		if err := env.Admin.Create(ctx, hr); err != nil {
			return 0, err
		}
		if err := scenario.SetAppVersion(ctx, env.Admin, name, scenario.FirstVersion); err != nil {
			return 0, err
		}
	}
	if err := env.Admin.Create(ctx, scenario.NewPipeline(scenario.PipelineName)); err != nil {
		return 0, err
	}
	mgr, err := env.StartManager(envtestenv.ManagerOptions{Logger: logr.Discard()}, func(mgr ctrl.Manager) error {
		r := &pipelinectrl.Reconciler{Client: mgr.GetClient(), Promoter: promotions, Clock: clock.RealClock{}, Variant: variant.Fixed}
		return r.SetupWithManager(mgr)
	})
	if err != nil {
		return 0, err
	}
	err = scenario.SetAppVersion(ctx, env.Admin, scenario.Environments[0], "v2")
	if err == nil {
		limit := time.Minute + 2*(t.CallTime+t.Lag)
		select {
		case err = <-done:
		case <-time.After(limit):
			err = fmt.Errorf("v2 did not reach prod within %s; attempts: %v", limit, promotions.Attempts())
		}
	}
	elapsed := time.Since(start)
	if stopErr := mgr.Stop(); err == nil && stopErr != nil {
		err = stopErr
	}
	return elapsed, err
}

// warmUp writes a custom resource once. The first write of a custom resource
// after kube-apiserver starts takes about 2s here (the server builds something
// lazily, once for all kinds); a long-running cluster has paid that long ago.
func warmUp(ctx context.Context, c client.Client) error {
	hr := &pipelinectrl.HelmRelease{}
	hr.Namespace, hr.Name = "default", "warm-up"
	if err := c.Create(ctx, hr); err != nil {
		return fmt.Errorf("warming up: %w", err)
	}
	return c.Delete(ctx, hr)
}

// PromotionOnSimulator runs the same scripted promotion on the simulator and
// returns its wall time: scenarios/pipeline's world (pipeline.Test) with the
// fixed variant and timing t, v2 published in dev at 1s of virtual time,
// replayed by operatortest.Replay (in a test of its own, internal/outside.Run)
// with no oracle judging it, over 10 minutes of virtual time plus two
// promotions; it fails unless the promotion of v2 to prod took effect. The
// time is Replay's: building the world (its setup writes the same objects),
// the run, and the virtual time after the promotion in which nothing is due
// (the run does not stop at the effect, as the envtest side does).
func PromotionOnSimulator(t Timing) (time.Duration, error) {
	p, err := plan.Parse("seed 1\nat 1s publish version=v2\n")
	if err != nil {
		return 0, err
	}
	limit := 10*time.Minute + 2*(t.CallTime+t.Lag)
	o := scenario.Test(scenario.Options{Variant: variant.Fixed, PromotionLagMin: t.Lag, PromotionLagMax: t.Lag,
		PromoteCallTime: t.CallTime}, limit)
	o.HealBudget = time.Millisecond
	o.Disable = world.Oracles()
	var took time.Duration
	var runErr error
	err = outside.Run("PromotionOnSimulator", func(tt *testing.T) {
		start := time.Now()
		r, err := operatortest.Replay(tt, o, p)
		took = time.Since(start)
		if err != nil {
			runErr = err
			return
		}
		for _, s := range r.Steps {
			if s.Process == scenario.PromotionProcess && s.Op == scenario.OpApplied && s.Object == prod.String() {
				if s.Result != "ok" {
					runErr = fmt.Errorf("applying the promotion to prod: %s", s.Result)
				}
				return
			}
		}
		runErr = fmt.Errorf("v2 did not reach prod within %s of virtual time", limit)
	})
	if err = cmp.Or(err, runErr); err != nil {
		return 0, err
	}
	return took, nil
}
