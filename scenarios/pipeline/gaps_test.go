package pipeline

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"slices"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// gapReplay replays "v2 published at 10s" on the world of cfg for d.
func gapReplay(t *testing.T, cfg Options, d time.Duration) *operatortest.Replayed {
	t.Helper()
	p, err := plan.Parse("seed 1\nat 10s publish version=v2\n")
	if err != nil {
		t.Fatal(err)
	}
	o := Test(cfg, d)
	o.HealBudget = time.Millisecond
	r, err := operatortest.Replay(t, catalogue.ForSpecs(o), p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// step is the first step of r with op on object, or fails.
func step(t *testing.T, r *operatortest.Replayed, op, object string) trace.Step {
	t.Helper()
	return stepAfter(t, r, op, object, -1)
}

// stepAfter is the first step of r with op on object after at.
func stepAfter(t *testing.T, r *operatortest.Replayed, op, object string, at time.Duration) trace.Step {
	t.Helper()
	for _, s := range r.Steps {
		if s.Op == op && s.Object == object && s.At > at {
			return s
		}
	}
	t.Fatalf("no %s of %s in the trace", op, object)
	return trace.Step{}
}

func TestNoStepCreatesAPipelineEditsItsSpecOrMakesAnAppUnready(t *testing.T) {
	o := Test(Options{}, time.Minute)
	var names []string
	for _, d := range o.Workload.Domain {
		names = append(names, d.Name)
	}
	for _, s := range o.Systems {
		for _, d := range s.Faults {
			names = append(names, d.Name)
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"app-event", "promotion-fails", "publish"}) || len(o.Workload.Steps) != 0 {
		t.Errorf("steps %v and %d generated kinds, want only app-event, promotion-fails and publish", names, len(o.Workload.Steps))
	}
}

func TestEveryEnvironmentHasOneLocalTarget(t *testing.T) {
	p := NewPipeline(PipelineName)
	if len(p.Spec.Environments) != len(Environments) {
		t.Fatalf("%d environments, want %d", len(p.Spec.Environments), len(Environments))
	}
	for _, env := range p.Spec.Environments {
		if len(env.Targets) != 1 || env.Targets[0].ClusterRef != nil || env.Targets[0].Namespace != env.Name {
			t.Errorf("environment %s: targets %+v, want one local target, its namespace", env.Name, env.Targets)
		}
	}
}

func TestPublishingAndAPromotionWriteTheAppsSpecAndStatusInOneInstant(t *testing.T) {
	r := gapReplay(t, Options{}, 3*time.Minute)
	for _, env := range []string{"dev", "staging"} {
		app := "HelmRelease " + env + "/" + AppName
		spec := step(t, r, "update", app)
		status := stepAfter(t, r, "update/status", app, 0) // after the seed objects' status
		if spec.At != status.At || spec.Result != "ok" || status.Result != "ok" {
			t.Errorf("%s: spec written at %v (%s), status at %v (%s); want both at one instant", env, spec.At, spec.Result, status.At, status.Result)
		}
	}
}

func TestAPromotionTakesEffectItsLagAfterATwoSecondCall(t *testing.T) {
	key := Namespace + "/" + PipelineName + "/staging@v2"
	r := gapReplay(t, Options{}, 3*time.Minute)
	promote, applied := step(t, r, OpPromote, key), step(t, r, OpApplied, key)
	if lag := applied.At - promote.At; lag != 2*time.Minute {
		t.Errorf("default lag %v, want 2m", lag)
	}
	var next time.Duration
	for _, s := range r.Steps {
		if s.Process == ProcessName && s.At > promote.At {
			next = s.At
			break
		}
	}
	if call := next - promote.At; call < 2*time.Second || call > 2*time.Second+10*time.Millisecond {
		t.Errorf("the controller's next step %v after the Promote call began, want the call's 2s", call)
	}
	r = gapReplay(t, Options{PromotionLagMin: 30 * time.Second, PromotionLagMax: 40 * time.Second}, time.Minute)
	promote, applied = step(t, r, OpPromote, key), step(t, r, OpApplied, key)
	if lag := applied.At - promote.At; lag < 30*time.Second || lag > 40*time.Second {
		t.Errorf("lag %v, want one drawn in [30s, 40s]", lag)
	}
}

func TestThePromotionSystemWritesAsClusterAdmin(t *testing.T) {
	r := gapReplay(t, Options{}, 3*time.Minute)
	app := step(t, r, "update", "HelmRelease staging/"+AppName)
	if app.Process != "admin" || app.Result != "ok" {
		t.Errorf("the promotion's write of staging's app by %q (%s), want the cluster admin's", app.Process, app.Result)
	}
}
