package operatortest

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
)

// Names that moved, kept for the release after their move so that a test
// written against them still compiles (docs/CHANGELOG.md says what moved
// where; api/ctrlsim.txt records them).

// ClientGo is what a client-go operator's start is given.
//
// Deprecated: use clientgo.Env (package operatortest/clientgo).
type ClientGo = clientgo.Env

// ClientGoSetup is the Setup of an operator built on client-go.
//
// Deprecated: use clientgo.Setup (package operatortest/clientgo).
func ClientGoSetup(start func(ctx context.Context, cg ClientGo) error) func(mgr manager.Manager) error {
	return clientgo.Setup(start)
}

// ClientGoQueue is the simulator's client-go workqueue in cg's process.
//
// Deprecated: use clientgo.Queue (package operatortest/clientgo).
func ClientGoQueue[T comparable](cg ClientGo, rl workqueue.TypedRateLimiter[T]) (workqueue.TypedRateLimitingInterface[T], error) {
	return clientgo.Queue(cg, rl)
}
