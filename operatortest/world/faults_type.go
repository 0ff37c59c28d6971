package world

import (
	"github.com/ctrlsim/ctrlsim/operatortest/faults"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Faults is a test's fault profile: which faults its plans draw, and where
// (Options.Faults). Package faults's Profile documents its fields, narrows
// the plan space to it, checks it against the world, and aims the API
// errors drawn by default.
type Faults = faults.Profile

// FaultKind is a fault class (Faults.Classes; plan.FaultKind).
type FaultKind = plan.FaultKind

// The fault classes a test may ask for (Faults.Classes), each as package
// plan's doc says it: a fault a real cluster can produce.
const (
	Lag        = plan.Lag
	Hold       = plan.Hold
	Crash      = plan.Crash
	API        = plan.API
	Latency    = plan.Latency
	Workers    = plan.Workers
	Stale      = plan.Stale
	Unobserved = plan.Unobserved
	// The kubelet's, drawn with Options.WorkloadFaults.
	NotReady  = plan.NotReady
	CrashLoop = plan.CrashLoop
	PodFail   = plan.PodFail
	NodeLost  = plan.NodeLost
)

// APIFault is an API error of the author's, or a selector of the drawn ones
// (Faults.API; apiserver.Fault).
type APIFault = apiserver.Fault

// FaultWorld is the world as package faults narrows, checks and aims the
// fault profile in it: its plan space, what its apiserver serves, its fault
// phase and the processes whose requests a template may name.
func (w *World) FaultWorld() faults.World {
	return faults.World{Profile: w.Opts.Faults, Space: &w.Space, Scheme: w.Opts.Scheme, CRDs: w.CRDs, Collected: w.Collected,
		FaultPhase: w.Opts.FaultPhase, Agents: w.requestAgents}
}
