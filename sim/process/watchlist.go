package process

import (
	"fmt"
	"sync"

	clientfeatures "k8s.io/client-go/features"
)

// Every client-go reflector of a world lists, then watches.
//
// client-go v0.37's reflector watch-lists by default (its WatchListClient
// feature, on since Kubernetes 1.35): it streams a kind's initial objects
// into a store of its own and replaces its informer's FIFO from that
// store's Go map (Reflector.watchList: r.store.Replace(temporaryStore.List(), ...)),
// so the handlers get the objects present at an informer's start, or at a
// relist, in an order Go draws at each run. The clients of the simulator's
// own factories say they cannot watch-list (listThenWatch, kcm's), but an
// informer factory the operator builds itself (from mgr.GetConfig() or from
// a kubeconfig, as examples/kubectx's framework does) takes a clientset the
// simulator never sees; the one thing every reflector asks when it is made
// (NewReflectorWithOptions) is client-go's feature gates. So while a world of
// the simulator is alive in the test binary (a process made and not yet
// closed), client-go's WatchListClient gate reads false: every reflector
// made then lists (a resourceVersion=0 list: restapi's cachedList, served in
// a shuffle drawn from the plan by watchfeed.go's Snapshot) and then
// watches, as a client with the feature off does against a real cluster,
// and its handlers get the initial objects in the plan's order, the same
// in every run of it and any order over plans, as a watch-list gives any. Outside worlds the gate reads as it did, and
// every other feature reads as the gates installed before (kube's, in a
// binary that links k8s.io/kubernetes/pkg/features, whose adapter makes
// KUBE_FEATURE_* variables of no effect). A test that sets a client-go
// feature (client-go/features/testing's SetFeatureDuringTest) sets it on
// those gates through these.

// installWorldGates wraps client-go's feature gates, once for the test
// binary (registerGlobal: at the first process made).
func installWorldGates() {
	worldGatesOnce.Do(func() {
		clientfeatures.ReplaceFeatureGates(worldGates{clientfeatures.FeatureGates()})
	})
}

var worldGatesOnce sync.Once

// worldGates are client-go's feature gates with WatchListClient off while a
// world is alive (see above).
type worldGates struct{ clientfeatures.Gates }

func (g worldGates) Enabled(f clientfeatures.Feature) bool {
	if f == clientfeatures.WatchListClient && worldAlive() {
		return false
	}
	return g.Gates.Enabled(f)
}

// Set sets f on the gates wrapped, where they can be set.
func (g worldGates) Set(f clientfeatures.Feature, enabled bool) error {
	s, ok := g.Gates.(interface {
		Set(clientfeatures.Feature, bool) error
	})
	if !ok {
		return fmt.Errorf("ctrlsim: client-go's feature gates (%T) cannot be set", g.Gates)
	}
	return s.Set(f, enabled)
}

// worldAlive reports whether a process of some world is alive in the
// test binary.
func worldAlive() bool {
	globalMu.Lock()
	defer globalMu.Unlock()
	return len(globalProcs) > 0
}
