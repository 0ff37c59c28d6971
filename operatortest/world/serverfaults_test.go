package world_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// gate is a flaky admission webhook of the tests: once its fault is on, it
// refuses every other create of a ConfigMap (the first included) until the
// heal, and notes what each create got.
type gate struct {
	env  world.SystemEnv
	on   bool
	seen int
	got  []string
}

func (g *gate) before(name string) (after func()) {
	if !g.on || g.env.Healed() {
		return func() {}
	}
	g.seen++
	if g.seen%2 == 0 {
		return func() {}
	}
	return g.env.RefuseNext(apiserver.Fault{Verb: "create", Resource: "configmaps", Namespace: "team",
		Code: 422, Field: "metadata.labels", Message: "rejected by a flaky admission webhook", Count: 5})
}

// A system's refusal is the API server's answer to that one request (a 422
// Invalid the client sees as apierrors.IsInvalid, whatever Count the fault
// said), the next request is let through, and the system's faults end at
// the heal as the plan's do: the spec of SystemEnv.RefuseNext and Healed.
func TestASystemRefusesOneRequestAsTheServerAndStopsAtTheHeal(t *testing.T) {
	o := optest.DomainOptions()
	o.FaultPhase = 3500 * time.Millisecond
	o.Workload.Domain = []world.DomainStep{{Name: "make", Params: []world.Param{{Key: "name", Values: []string{"a"}}},
		Do: func(ctx context.Context, env world.StepEnv, a world.Args) error {
			g := env.System("gate").(*gate)
			after := g.before(a.Get("name"))
			err := env.Client.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: a.Get("name")}})
			after()
			switch {
			case err == nil:
				g.got = append(g.got, a.Get("name")+" created")
			case apierrors.IsInvalid(err):
				g.got = append(g.got, a.Get("name")+" invalid")
			default:
				g.got = append(g.got, a.Get("name")+" "+err.Error())
			}
			return nil
		}}}
	o.Systems = []world.System{{
		Name: "gate",
		New:  func(env world.SystemEnv) (any, error) { return &gate{env: env}, nil },
		Faults: []world.DomainStep{{Name: "flaky", Do: func(_ context.Context, env world.StepEnv, _ world.Args) error {
			env.System("gate").(*gate).on = true
			return nil
		}}},
	}}
	var last string
	o.Properties = []world.Property{{Name: "gate", Check: func(h *world.History) error {
		last = strings.Join(h.System("gate").(*gate).got, ", ")
		return nil
	}}}
	p, err := plan.Parse("seed 1\nat 1s flaky\nat 2s make name=p\nat 2100ms make name=q\nat 2200ms make name=r\nat 5s make name=s\n")
	if err != nil {
		t.Fatal(err)
	}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reference.Run(w, t, p); err != nil {
		t.Fatal(err)
	}
	if want := "p invalid, q created, r invalid, s created"; last != want {
		t.Errorf("the faulted run's creates: %s; want %s (the first and third refused, one request each; none after the heal at %v)",
			last, want, o.FaultPhase)
	}
}

// A failure whose only fault is a system's (a domain step of System.Faults)
// is explained as that system's fault, never as "No fault".
func TestAFailureExplainsASystemsFaultAsAFault(t *testing.T) {
	p, err := plan.Parse("seed 1\nat 1s flaky\nat 2s make name=p\n")
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(failure.WhyReal(p, nil, world.SystemFaultNames([]world.System{{Name: "gate", Faults: []world.DomainStep{{Name: "flaky"}}}})), "\n")
	if strings.Contains(got, "No fault") || !strings.Contains(got, "`at 1s flaky`: a fault of the system gate") ||
		!strings.Contains(got, "The workload's 1 step ") {
		t.Errorf("the explanation:\n%s\nwant flaky as gate's fault, make as the workload's one step, and no \"No fault\"", got)
	}
}
