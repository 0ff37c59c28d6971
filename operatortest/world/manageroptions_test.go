package world_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// A manager's Options reach its processes; leader election comes from them
// when the Manager does not set it; options the simulator cannot honour and
// Options given twice fail the world with one error naming them.
func TestManagerOptionsReachTheProcessesOrFailLoudly(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Managers[0].NewOptions = func() (manager.Options, error) {
		return manager.Options{LeaderElection: true, LeaderElectionID: "op-lock", LeaseDuration: ptr.To(30 * time.Second),
			Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{"default": {}}}}, nil
	}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	spec := w.Opts.Managers[0].Processes()[0]
	if spec.Options == nil || len(spec.Options.Cache.DefaultNamespaces) != 1 {
		t.Errorf("process Options %+v, want the manager's", spec.Options)
	}
	if le := spec.LeaderElection; le == nil || le.Namespace != "default" || le.Name != "op-lock" || le.LeaseDuration != 30*time.Second {
		t.Errorf("leader election %+v, want the Lease default/op-lock of 30s from Options", le)
	}

	o = optest.AppOptions(optest.Child())
	o.Managers[0].Options = &manager.Options{Cache: cache.Options{SyncPeriod: ptr.To(time.Hour)}}
	if _, err := search.NewWorld(o.WithDefaults()); err == nil || !strings.Contains(err.Error(), "Cache.SyncPeriod") {
		t.Errorf("refused option: %v", err)
	}
	o.Managers[0].NewOptions = func() (manager.Options, error) { return manager.Options{}, nil }
	if _, err := search.NewWorld(o.WithDefaults()); err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("Options and NewOptions: %v", err)
	}
}
