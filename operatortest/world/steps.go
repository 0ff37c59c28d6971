package world

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	kclock "k8s.io/utils/clock"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Args are a step's parameters as the plan's text writes them
// (`at 12s publish version=1.2`): Get returns a key's value, "" when absent.
type Args = plan.Args

// Arg is one of a step's parameters, a key and its value (plan.Arg).
type Arg = plan.Arg

// DomainStep is a step of the author's domain that the generator draws into
// the workload beside the steps over the seed objects (Workload.Domain):
// publish a version to a catalog, request an upgrade, delete a namespace
// with a given order of its content. Each plan draws up to Max of each, at a
// time within Within, with parameters drawn from Params (or by Draw); the
// step is written in the plan's text by its Name and parameters
// (`at 12s publish version=1.2`), shrunk as the other steps are (fewer,
// earlier, with earlier values), and replayed from the text.
//
//	Workload: operatortest.Workload{
//		Steps: []operatortest.StepKind{}, // no steps over the seeds: the domain's alone
//		Domain: []operatortest.DomainStep{{
//			Name:   "publish",
//			Params: []operatortest.Param{{Key: "version", Values: []string{"1.1", "1.2", "2.0"}}},
//			Max:    2,
//			Do: func(ctx context.Context, env operatortest.StepEnv, args operatortest.Args) error {
//				return publish(ctx, env.Client, args.Get("version"))
//			},
//		}},
//	},
//
// Do runs as the workload's user (cluster admin, never crashed or stalled);
// its error is a line of the timeline, never a violation, as a user's
// refused kubectl command is.
type DomainStep struct {
	// Name is the step's action in the plan's text; not one of the
	// workload's own (mutate, delete, recreate, create, patch).
	Name string
	// Params are the parameters drawn for each step: each key gets one of its
	// Values, in their order of preference for shrinking (the first is the
	// simplest). A value "" leaves the key out.
	Params []Param
	// Draw draws the parameters instead of Params, for parameters that
	// depend on each other; Keys then lists every key Draw may give (a plan
	// whose step gives another key is refused, as a typo is).
	Draw func(t *rapid.T) Args
	Keys []string
	// Within bounds the step's time, drawn in [From, Within] in whole
	// milliseconds (Within 0: the fault phase). From keeps it after the
	// world's start-up (a user who deletes what the operator has had time
	// to set up).
	Within, From time.Duration
	// After names an earlier domain step: this one is drawn in [t, t +
	// Within] of the first step of that name (t its time), and not at all
	// in a plan that draws none (a user who deletes a RepoSync and revokes
	// its RoleBinding a moment later). A plan's text replays as written.
	After string
	// Max is the most steps of this name a plan draws (0: MaxSteps); Min
	// the fewest (0 by default): Min 1 puts the step in every plan drawn
	// (what every run of the world starts from: a version published), at a
	// drawn time. A plan's text replays as written either way.
	Min, Max int
	// Do runs the step at its time.
	Do func(ctx context.Context, env StepEnv, args Args) error
}

// Param is one parameter of a DomainStep and the values it is drawn from.
type Param struct {
	Key    string
	Values []string
}

// StepEnv is what a DomainStep's Do acts with.
type StepEnv struct {
	// Client is the cluster admin's client (the workload's user).
	Client client.Client
	// Now is the run's virtual time since it started.
	Now time.Duration

	Clock kclock.PassiveClock // the run's: its systems (System)
}

// builtinActions are the workload's own action names, which a DomainStep
// cannot take.
var builtinActions = []string{ActionMutate, ActionDelete, ActionRecreate, ActionCreate, ActionPatch}

// keys are the parameter keys the step may give.
func (d DomainStep) ParamKeys() []string {
	if d.Draw != nil {
		return d.Keys
	}
	var out []string
	for _, p := range d.Params {
		out = append(out, p.Key)
	}
	return out
}

// validateDomain checks the domain steps: each fault names its field, on one
// line (no silent pass).
func validateDomain(steps []DomainStep) error {
	seen := map[string]bool{}
	for i, d := range steps {
		switch {
		case d.Name == "":
			return fmt.Errorf("Domain[%d]: Name is empty", i)
		case slices.Contains(builtinActions, d.Name):
			return fmt.Errorf("Domain[%d]: Name %q is one of the workload's own steps (%v)", i, d.Name, builtinActions)
		case seen[d.Name]:
			return fmt.Errorf("Domain[%d]: Name %q is taken by an earlier domain step", i, d.Name)
		case d.Do == nil:
			return fmt.Errorf("Domain[%d] (%s): Do is nil: the step would do nothing", i, d.Name)
		case d.Draw != nil && len(d.Params) > 0:
			return fmt.Errorf("Domain[%d] (%s): give Params or Draw, not both", i, d.Name)
		case d.Within < 0 || d.From < 0 || d.Max < 0 || d.Min < 0:
			return fmt.Errorf("Domain[%d] (%s): Within, From, Min and Max must be 0 (the default) or more", i, d.Name)
		case d.From > 0 && d.Within > 0 && d.From > d.Within:
			return fmt.Errorf("Domain[%d] (%s): From %s is after Within %s", i, d.Name, d.From, d.Within)
		case d.Min > cmp.Or(d.Max, MaxSteps):
			return fmt.Errorf("Domain[%d] (%s): Min %d is more than Max %d", i, d.Name, d.Min, cmp.Or(d.Max, MaxSteps))
		case d.After != "" && !seen[d.After]:
			return fmt.Errorf("Domain[%d] (%s): After %q names no earlier domain step", i, d.Name, d.After)
		case d.After != "" && d.Within == 0:
			return fmt.Errorf("Domain[%d] (%s): After %q needs a Within (how long after it)", i, d.Name, d.After)
		}
		for _, p := range d.Params {
			if p.Key == "" || len(p.Values) == 0 {
				return fmt.Errorf("Domain[%d] (%s): a Param needs a Key and at least one value", i, d.Name)
			}
		}
		seen[d.Name] = true
	}
	return nil
}

// FromCheck is a Property that judges p, a property of the simulator's
// kernel (sim/check), over the run's History: the seeds' properties
// (at-most-once, terminates, an upgrade never skipped) are written so. Its
// violation is placed at the instant p gives.
func FromCheck(p check.Property) Property {
	return Property{Name: p.Name(), Check: func(h *History) error {
		v := p.Check(h.Run())
		if v.Holds {
			return nil
		}
		return ViolatedAt(v.At, errors.New(v.Detail))
	}}
}

// ViolatedAt is an error a Property's Check returns to say when, in the
// run's virtual time (History.Steps' At), it saw the violation: the report
// then places it there rather than at the run's end.
func ViolatedAt(at time.Duration, err error) error { return &violatedAt{at: at, err: err} }

type violatedAt struct {
	at  time.Duration
	err error
}

func (v *violatedAt) Error() string { return v.err.Error() }

func (v *violatedAt) Unwrap() error { return v.err }
