package operatortest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// KernelVerdicts are the names of the kernel's own verdicts, judged on every
// run besides the generic oracles; Options.Disable turns them off too.
var KernelVerdicts = []string{cluster.HotLoopProperty, cluster.LivelockProperty, cluster.ReconcilePanicProperty}

// AnyProperty, as Options.Expect, expects any property to be violated.
const AnyProperty = "*"

// Oracles are the names Options.Disable takes: the generic oracles and the
// kernel's verdicts (a test's own Properties are named by the test).
func Oracles() []string { return append(slices.Clone(oracleNames), KernelVerdicts...) }

// validate checks the options before anything runs: each bad one is an
// error naming its field, on one line (no silent pass: an option the
// harness would ignore or misread is refused, not guessed at).
func (o Options) validate() error {
	if o.Scheme == nil {
		return fmt.Errorf("Options.Scheme is nil")
	}
	if len(o.Managers) == 0 {
		return fmt.Errorf("Options.Managers is empty: nothing to test")
	}
	if err := o.validateExec(); err != nil {
		return err
	}
	for i, m := range o.Managers {
		switch {
		case m.Name == "":
			return fmt.Errorf("Options.Managers[%d].Name is empty", i)
		case m.Setup == nil && m.SetupWithSystems == nil:
			return fmt.Errorf("Options.Managers[%d] (%s): Setup is nil: nothing would run", i, m.Name)
		case m.Setup != nil && m.SetupWithSystems != nil:
			return fmt.Errorf("Options.Managers[%d] (%s): set Setup or SetupWithSystems, not both", i, m.Name)
		case m.Replicas < 0:
			return fmt.Errorf("Options.Managers[%d] (%s): Replicas is %d: want Replicas of 0 or more", i, m.Name, m.Replicas)
		case m.StartDelay < 0:
			return fmt.Errorf("Options.Managers[%d] (%s): StartDelay is %s: want 0 (the default) or more", i, m.Name, m.StartDelay)
		case m.Deployment != nil && (m.Deployment.Namespace == "" || m.Deployment.Name == ""):
			return fmt.Errorf("Options.Managers[%d] (%s): Deployment %q needs a namespace and a name", i, m.Name, m.Deployment.String())
		case m.Deployment != nil && m.Replicas > 1:
			return fmt.Errorf("Options.Managers[%d] (%s): Deployment with Replicas %d: a Deployment's manager runs as one pod", i, m.Name, m.Replicas)
		}
	}
	for _, f := range []struct {
		name string
		v    int64
	}{
		{"Checks", int64(o.Checks)}, {"ShrinkRuns", int64(o.ShrinkRuns)},
		{"FaultPhase", int64(o.FaultPhase)}, {"HealBudget", int64(o.HealBudget)}, {"Workers", int64(o.Workers)},
		{"NamespaceTermination", int64(o.NamespaceTermination)},
	} {
		if f.v < 0 {
			return fmt.Errorf("Options.%s is negative (%d), want 0 (the default) or more", f.name, f.v)
		}
	}
	valid := o.verdictNames()
	for _, name := range o.Disable {
		if !slices.Contains(valid, name) {
			return fmt.Errorf("Options.Disable: unknown oracle %q (valid: %s)", name, strings.Join(valid, ", "))
		}
	}
	if o.Expect != "" && o.Expect != AnyProperty {
		if !slices.Contains(valid, o.Expect) {
			return fmt.Errorf("Options.Expect: unknown property %q (valid: %s, or %q for any)", o.Expect, strings.Join(valid, ", "), AnyProperty)
		}
		if slices.Contains(o.Disable, o.Expect) {
			return fmt.Errorf("Options.Expect: %q is also in Options.Disable: it could never be violated", o.Expect)
		}
	}
	if err := o.validateOwn(); err != nil { // validate.go
		return err
	}
	if o.KeepGoing && o.Shard.Count > 1 {
		return fmt.Errorf("Options.KeepGoing with Options.Shard %s: keeping going is not sharded (run it unsharded)", o.Shard)
	}
	return nil
}

// verdictNames are the names a verdict of a run can carry: the generic
// oracles, the kernel's and the test's own properties.
func (o Options) verdictNames() []string {
	out := Oracles()
	for _, p := range o.Properties {
		out = append(out, p.Name)
	}
	return out
}

// enabled drops the verdicts Options.Disable turns off. A run that a
// disabled hot-loop or livelock stopped never reached the end of its heal
// budget: none of its verdicts is judged (its end state is not at rest).
func (o Options) enabled(vs []check.Verdict) []check.Verdict {
	if len(o.Disable) == 0 {
		return vs
	}
	for _, v := range vs {
		if !v.Holds && (v.Property == cluster.HotLoopProperty || v.Property == cluster.LivelockProperty) && slices.Contains(o.Disable, v.Property) {
			return nil
		}
	}
	return slices.DeleteFunc(slices.Clone(vs), func(v check.Verdict) bool { return slices.Contains(o.Disable, v.Property) })
}
