package world

import "github.com/ctrlsim/ctrlsim/sim/apiserver"

// A System that stands for something the API server calls on the
// operator's requests (a flaky admission webhook, a quota controller that
// refuses some writes) makes its refusals the server's answers with
// RefuseNext, so the run's trace, the properties and the failure's page
// show them as the API server's, as a real cluster's audit log would; and
// it ends its faults when the run heals (Healed), as every fault of the
// plan does.
//
// An author adds a fault of their own so: a System whose instance keeps
// the SystemEnv, a fault (System.Faults) whose Do turns the fault on in the
// instance (env.System(name)), and the operator's client wrapped, in
// Manager.SetupWithSystems, by one that asks the instance before each
// request and lets it refuse that one request:
//
//	type webhook struct {
//		env  operatortest.SystemEnv
//		on   bool
//		seen int
//	}
//
//	// before is called by the operator's client wrapper before a PATCH of name.
//	func (w *webhook) before(name string) (done func()) {
//		if !w.on || w.env.Healed() {
//			return func() {}
//		}
//		if w.seen++; w.seen%2 == 1 { // every other PATCH
//			return w.env.RefuseNext(apiserver.Fault{Verb: "patch", Resource: "widgets", Namespace: "default", Name: name,
//				Code: 422, Message: "rejected by a flaky admission webhook"})
//		}
//		return func() {}
//	}
//
// scenarios/kopf's Alternating422 (a webhook refusing every other PATCH of
// an object) and PoisonEvent (an object whose events the operator cannot
// read) are written so.

// Healed reports whether the run's fault phase has ended: a system's own
// faults end there, as the plan's do.
func (env SystemEnv) Healed() bool { return env.c != nil && env.c.Healed() }

// RefuseNext makes the API server refuse the next request f matches (its
// Count is 1 whatever f says) as f.Code, f.Field and f.Message say, until
// remove is called: call it before the operator's request and remove after
// it, so that the refusal is this request's and no other's.
func (env SystemEnv) RefuseNext(f apiserver.Fault) (remove func()) {
	if env.c == nil {
		panic("operatortest: SystemEnv.RefuseNext outside a run (the SystemEnv was not given by New)")
	}
	f.Count = 1
	return env.c.Server.InjectFault(f)
}

// SystemFaultNames are the step names of the systems' faults, to their
// system's name: a failure's explanation tells them from the workload's.
func SystemFaultNames(systems []System) map[string]string {
	out := map[string]string{}
	for _, s := range systems {
		for _, f := range s.Faults {
			out[f.Name] = s.Name
		}
	}
	return out
}
