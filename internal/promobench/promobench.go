// Package promobench times one scripted pipeline promotion through three
// environments on a real kube-apiserver (envtest) and on the simulator, for
// ctrlsim bench's speedup_vs_envtest. It is apart from envtestenv so that the
// controllers' envtest suites do not import the simulator.
//
// # Known gaps
//
// One workload only, with a short promotion lag (BenchLag): the ratio depends on
// the lag, which envtest waits in real time and the simulator does not.
package promobench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	pipelinectrl "github.com/ctrlsim/ctrlsim/controllers/pipeline"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/models/promotion"
	scenario "github.com/ctrlsim/ctrlsim/scenarios/pipeline"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// BenchLag is the promotion lag (trigger to effect) of the scripted promotion,
// on both sides.
const BenchLag = 100 * time.Millisecond

// PromotionOnEnvtest runs the scripted promotion on a real kube-apiserver and
// returns its wall time: scenarios/pipeline's world (namespaces dev, staging and
// prod, each with the HelmRelease podinfo at v1, and the Pipeline podinfo)
// created by the admin, the fixed pipeline controller started in a real manager
// with its SetupWithManager, v2 published in dev, until the promotion of v2 to
// prod has taken effect (BenchLag after each Promote). Starting and stopping
// etcd and kube-apiserver (a few seconds) and the server's one-time warm-up of
// custom resources (warmUp) are not counted.
func PromotionOnEnvtest(assets string) (time.Duration, error) {
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: scenario.Scheme(), CRDs: envtestenv.PipelineCRDs()})
	if err != nil {
		return 0, err
	}
	d, err := promoteOnEnvtest(env)
	if stopErr := env.Stop(); err == nil && stopErr != nil {
		err = fmt.Errorf("stopping envtest: %w", stopErr)
	}
	return d, err
}

func promoteOnEnvtest(env *envtestenv.Env) (time.Duration, error) {
	ctx := context.Background()
	prod := promotion.Key{Pipeline: client.ObjectKey{Namespace: scenario.Namespace, Name: scenario.PipelineName},
		Environment: scenario.Environments[2], Version: "v2"}
	done := make(chan error, 1)
	promotions := envtestenv.NewPromotions(env.Admin, applyPromotion, BenchLag)
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
		select {
		case err = <-done:
		case <-time.After(time.Minute):
			err = fmt.Errorf("v2 did not reach prod within a minute; attempts: %v", promotions.Attempts())
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

// applyPromotion is the effect of a promotion, as in scenarios/pipeline: every
// target of the environment runs the version.
func applyPromotion(ctx context.Context, c client.Client, k promotion.Key) error {
	var p pipelinectrl.Pipeline
	if err := c.Get(ctx, k.Pipeline, &p); err != nil {
		return err
	}
	for _, env := range p.Spec.Environments {
		if env.Name != k.Environment {
			continue
		}
		for _, t := range env.Targets {
			if err := scenario.SetAppVersion(ctx, c, t.Namespace, k.Version); err != nil {
				return err
			}
		}
	}
	return nil
}

// PromotionOnSimulator runs the same scripted promotion on the simulator and
// returns its wall time: scenarios/pipeline's world with the fixed variant and a
// promotion lag of BenchLag, v2 published in dev at 1s of virtual time, run in
// steps of 100ms of virtual time until prod runs v2. Building the cluster (its
// setup writes the same objects) is counted.
func PromotionOnSimulator() (time.Duration, error) {
	p, err := plan.Parse("seed 1\nat 1s publish version=v2\n")
	if err != nil {
		return 0, err
	}
	scenario.Scheme() // built once per process, as the envtest side's is before its clock starts
	start := time.Now()
	w := scenario.NewWorld(scenario.Config{Variant: variant.Fixed, PromotionLagMin: BenchLag, PromotionLagMax: BenchLag,
		PromoteCallTime: time.Millisecond})
	c, err := cluster.New(p, w.Options())
	if err != nil {
		return 0, err
	}
	defer c.Close()
	for c.Now() < 10*time.Minute {
		c.RunFor(100 * time.Millisecond)
		var hr pipelinectrl.HelmRelease
		if err := c.Get(client.ObjectKey{Namespace: scenario.Environments[2], Name: scenario.AppName}, &hr); err != nil {
			return 0, err
		}
		if hr.Status.LastAppliedRevision == "v2" {
			return time.Since(start), nil
		}
	}
	return 0, errors.New("v2 did not reach prod within 10 minutes of virtual time")
}
