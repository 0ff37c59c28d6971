package workload_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"pgregory.net/rapid"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A domain step is drawn by the generator beside the others, named and with
// its parameters in the plan's text, and only with the values it declares.
func TestADomainStepIsDrawnIntoThePlanText(t *testing.T) {
	w, err := search.NewWorld(optest.DomainOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	gen := plan.Generator(w.Space)
	drawn := 0
	for seed := range 40 {
		p := gen.Example(seed)
		for _, s := range p.Steps {
			if s.Action != "publish" {
				t.Fatalf("plan %d draws %q: the workload draws no step over the seeds (Steps is empty), only the domain's", seed, s.Action)
			}
			if n := s.Args.Get("name"); n != "x" && n != "y" && n != "bad" || len(s.Args) != 1 {
				t.Fatalf("plan %d: %v: want name= one of the declared values", seed, s.Args)
			}
			if s.At > w.Opts.FaultPhase {
				t.Fatalf("plan %d: step at %v, after the fault phase", seed, s.At)
			}
			drawn++
		}
		if !strings.Contains(p.String(), "publish name=") && len(p.Steps) > 0 {
			t.Fatalf("plan text lacks the step:\n%s", p)
		}
	}
	if drawn == 0 {
		t.Fatal("40 plans drew no publish step")
	}
}

// A domain step in a plan's text runs at its time as the workload's user:
// its effect is in the run (the operator reacts to it) and the timeline
// records it.
func TestADomainStepInThePlanTextRunsAsTheUser(t *testing.T) {
	o := optest.DomainOptions()
	o.Properties = []world.Property{{Name: "copied-x", Check: func(h *world.History) error {
		var s corev1.Secret
		return h.Get(client.ObjectKey{Namespace: "team", Name: "x-copy"}, &s)
	}}}
	v, steps := optest.JudgeVerdict(t, o, "seed 1\nat 2s publish name=x\n", "copied-x")
	if !v.Holds {
		t.Fatalf("the operator did not copy the published ConfigMap: %s", v.Detail)
	}
	ran := false
	for _, s := range steps {
		ran = ran || s.Op == "action" && strings.Contains(s.Object+s.Result+fmt.Sprint(s), "publish") && s.At == 2*time.Second
	}
	if !ran {
		t.Error("the timeline has no publish step at 2s")
	}
}

// A plan whose domain step gives a key the step does not declare (a typo)
// is refused before it runs, as the workload's own steps are.
func TestADomainStepWithAnUndeclaredKeyIsRefused(t *testing.T) {
	w, err := search.NewWorld(optest.DomainOptions().WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 1\nat 2s publish nme=x\n")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reference.Run(w, t, p); err == nil || !strings.Contains(err.Error(), "nme") {
		t.Fatalf("run error %v, want one naming the key nme", err)
	}
}

// A violation that a domain step's value brings about shrinks to that step
// alone, with that value, in the minimal plan's text.
func TestAViolationShrinksToTheDomainStepThatCausesIt(t *testing.T) {
	o := optest.DomainOptions()
	o.Checks = 40
	o.Properties = []world.Property{{Name: "no-bad-copy", Check: func(h *world.History) error {
		var s corev1.Secret
		if err := h.Get(client.ObjectKey{Namespace: "team", Name: "bad-copy"}, &s); apierrors.IsNotFound(err) {
			return nil
		}
		return errors.New("Secret team/bad-copy exists")
	}}}
	res, err := search.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught {
		t.Fatalf("40 plans drew no publish name=bad")
	}
	if len(res.Minimal.Steps) != 1 || res.Minimal.Steps[0].Action != "publish" || res.Minimal.Steps[0].Args.Get("name") != "bad" || len(res.Minimal.Faults) != 0 {
		t.Fatalf("minimal plan:\n%s\nwant the one step publish name=bad and no fault", res.Minimal)
	}
}

// Bad domain steps are refused before anything runs, each with one line
// naming the step and the field.
func TestBadDomainStepsEachGiveOneErrorNamingTheField(t *testing.T) {
	do := optest.Publish.Do
	for _, tc := range []struct {
		step world.DomainStep
		want string
	}{
		{world.DomainStep{Do: do}, "Name is empty"},
		{world.DomainStep{Name: "delete", Do: do}, "one of the workload's own steps"},
		{world.DomainStep{Name: "publish"}, "Do is nil"},
		{world.DomainStep{Name: "publish", Do: do, Params: optest.Publish.Params, Draw: func(*rapid.T) world.Args { return nil }}, "Params or Draw"},
		{world.DomainStep{Name: "publish", Do: do, Params: []world.Param{{Key: "name"}}}, "at least one value"},
		{world.DomainStep{Name: "publish", Do: do, Max: -1}, "0 (the default) or more"},
		{world.DomainStep{Name: "publish", Do: do, From: 3 * time.Second, Within: time.Second}, "From 3s is after Within 1s"},
		{world.DomainStep{Name: "publish", Do: do, Min: 3, Max: 2}, "Min 3 is more than Max 2"},
		{world.DomainStep{Name: "publish", Do: do, After: "create", Within: time.Second}, `After "create" names no earlier domain step`},
	} {
		o := optest.DomainOptions()
		o.Workload.Domain = []world.DomainStep{tc.step}
		if _, err := search.NewWorld(o.WithDefaults()); err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: error %v, want one line with %q", tc.step.Name, err, tc.want)
		}
	}
	o := optest.DomainOptions()
	o.Workload.Domain = []world.DomainStep{optest.Publish, optest.Publish}
	if _, err := search.NewWorld(o.WithDefaults()); err == nil || !strings.Contains(err.Error(), "taken") {
		t.Errorf("two steps named publish: error %v", err)
	}
}

// A domain step with Min 1 is in every plan drawn, at a drawn time: what
// every run of the world starts from.
func TestADomainStepWithMinIsInEveryPlan(t *testing.T) {
	o := optest.DomainOptions()
	every := optest.Publish
	every.Min, every.Max = 1, 1
	o.Workload.Domain = []world.DomainStep{every}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	gen, times := plan.Generator(w.Space), map[time.Duration]bool{}
	for seed := range 40 {
		n := 0
		for _, s := range gen.Example(seed).Steps {
			if s.Action == "publish" {
				n++
				times[s.At] = true
			}
		}
		if n != 1 {
			t.Fatalf("plan %d has %d publish steps, want 1", seed, n)
		}
	}
	if len(times) < 5 {
		t.Errorf("publish at %d distinct times in 40 plans: its time is not drawn", len(times))
	}
	// From keeps it after the start-up.
	every.From, every.Within = 5*time.Second, 20*time.Second
	o.Workload.Domain = []world.DomainStep{every}
	if w, err = search.NewWorld(o.WithDefaults()); err != nil {
		t.Fatal(err)
	}
	gen = plan.Generator(w.Space)
	for seed := range 40 {
		for _, s := range gen.Example(seed).Steps {
			if s.Action == "publish" && (s.At < 5*time.Second || s.At > 20*time.Second) {
				t.Fatalf("plan %d: publish at %v, want it in [5s, 20s]", seed, s.At)
			}
		}
	}
}

// A domain step After another is drawn within its Within of the first step
// of that name, and not in a plan that draws none: a user's second step a
// moment after the first.
func TestADomainStepAfterAnotherIsDrawnWithinItsWindow(t *testing.T) {
	o := optest.DomainOptions()
	revoke := optest.Publish
	revoke.Name, revoke.After, revoke.Within, revoke.Min, revoke.Max = "revoke", "publish", 300*time.Millisecond, 1, 1
	o.Workload.Domain = []world.DomainStep{optest.Publish, revoke}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	gen := plan.Generator(w.Space)
	with, without := 0, 0
	for seed := range 60 {
		var first, at []time.Duration
		for _, s := range gen.Example(seed).Steps {
			switch s.Action {
			case "publish":
				first = append(first, s.At)
			case "revoke":
				at = append(at, s.At)
			}
		}
		if len(first) == 0 {
			without++
			if len(at) > 0 {
				t.Fatalf("plan %d draws revoke with no publish step to follow", seed)
			}
			continue
		}
		with++
		earliest := slices.Min(first)
		if len(at) != 1 || at[0] < earliest || at[0] > earliest+300*time.Millisecond {
			t.Fatalf("plan %d: publish at %v, revoke at %v: want one revoke within 300ms after the first publish", seed, first, at)
		}
	}
	if with == 0 || without == 0 {
		t.Errorf("60 plans: %d with publish, %d without: want both", with, without)
	}
}

// FromCheck judges a kernel property (sim/check) over the run's History, at
// the instant it gives.
func TestFromCheckJudgesAKernelPropertyOverTheHistory(t *testing.T) {
	o := optest.DomainOptions()
	twoCopies := check.Eventually{Property: "at-most-two-copies", Desired: func(r *check.Run) error {
		if n := len(r.Objects(corev1.SchemeGroupVersion.WithKind("Secret"))); n > 2 {
			return fmt.Errorf("%d Secrets", n)
		}
		return nil
	}}
	o.Properties = []world.Property{world.FromCheck(twoCopies)}
	if v, _ := optest.JudgeVerdict(t, o, "seed 1\nat 1s publish name=x\n", "at-most-two-copies"); !v.Holds {
		t.Errorf("one published ConfigMap (and team/b): %s", v.Detail)
	}
	if v, _ := optest.JudgeVerdict(t, o, "seed 1\nat 1s publish name=x\nat 2s publish name=y\n", "at-most-two-copies"); v.Holds {
		t.Error("two published ConfigMaps and team/b make three Secrets: want violated")
	}
}
