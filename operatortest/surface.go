package operatortest

import (
	"time"

	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/check"
)

// What a test says of its world, and what its steps and properties are
// given. Each is package world's; the struct types a test fills are named in
// fields.go, whose docs list their fields (`go doc operatortest.Workload`).
type (
	// Property is a check of the author's on a run's History (world.Property).
	Property = world.Property
	// History is a run as a Property reads it (world.History).
	History = world.History
	// StepKind is a kind of drawn step: Mutations, InvalidMutations,
	// Deletions, Recreations (world.StepKind).
	StepKind = world.StepKind
	// Args are a step's arguments as a plan writes them (plan.Args).
	Args = world.Args
	// Systems are a run's systems by name (world.Systems).
	Systems = world.Systems
	// ExecHandler answers the operator's exec requests (world.ExecHandler).
	ExecHandler = world.ExecHandler
	// NondeterministicField names a field the author knows a real cluster
	// makes nondeterministic (canon.NondeterministicField).
	NondeterministicField = canon.NondeterministicField
	// FaultKind is a fault class (Faults.Classes; world.FaultKind).
	FaultKind = world.FaultKind
	// APIFault is an API error of the author's, or a selector of the drawn
	// ones (Faults.API; world.APIFault).
	APIFault = world.APIFault
)

// The generic oracles, by the names Options.Disable takes (package verdict's
// doc says what each judges), the kinds of drawn step and the fault
// classes.
const (
	Converges          = world.Converges
	UpdateSummaries    = world.UpdateSummaries
	InterleavingsAgree = world.InterleavingsAgree
	Terminates         = world.Terminates
	NoOrphans          = world.NoOrphans
	NoErrorAtRest      = world.NoErrorAtRest
	WritesAtRest       = world.WritesAtRest
	// AnyProperty stands for every property where Options take a name.
	AnyProperty = world.AnyProperty

	// The kinds of drawn step (Workload.Steps).
	Mutations        = world.Mutations
	InvalidMutations = world.InvalidMutations
	Deletions        = world.Deletions
	Recreations      = world.Recreations

	// The fault classes (Faults.Classes; package sim/plan's doc says each).
	Lag        = world.Lag
	Hold       = world.Hold
	Crash      = world.Crash
	API        = world.API
	Latency    = world.Latency
	Workers    = world.Workers
	Stale      = world.Stale
	Unobserved = world.Unobserved
	// The kubelet's fault classes, drawn with Options.WorkloadFaults.
	NotReady  = world.NotReady
	CrashLoop = world.CrashLoop
	PodFail   = world.PodFail
	NodeLost  = world.NodeLost

	// KubeControllerManager is the process of the built-in controllers
	// (the namespace controller, the garbage collector, the workload
	// controllers), as Faults.Processes and a History's steps name it.
	KubeControllerManager = world.KubeControllerManager
)

// Create creates obj at time at (from the start of the run), as cluster
// admin; its namespace is created first if it does not exist. The object
// needs a name (not only a generateName): later steps name it.
func Create(at time.Duration, obj client.Object) Step { return world.Create(at, obj) }

// Patch applies patch, a JSON merge patch (RFC 7386: {"spec":{"replicas":3}}),
// to the object named by obj's kind, namespace and name, at time at.
func Patch(at time.Duration, obj client.Object, patch string) Step {
	return world.Patch(at, obj, patch)
}

// Delete deletes the object named by obj's kind, namespace and name at time
// at (with the default propagation: the garbage collector deletes its
// dependents in the background).
func Delete(at time.Duration, obj client.Object) Step { return world.Delete(at, obj) }

// What a Property's Check may use (one block: go doc -short lists it in one
// line).
var (
	// FromCheck(p) is a Property that judges p, a property of the
	// simulator's kernel (sim/check), over the run's History; its
	// violation is placed at the instant p gives.
	FromCheck func(p check.Property) Property = world.FromCheck
	// ViolatedAt(at, err) is an error a Property's Check returns to say
	// when, in the run's virtual time (History.Steps' At), it saw the
	// violation: the report then places it there rather than at the
	// run's end.
	ViolatedAt func(at time.Duration, err error) error = world.ViolatedAt
)
