package world_test

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Replicas are processes Name-0, Name-1, ..., each campaigning for the Lease
// Name in the ServiceAccount's namespace (default without one).
func TestReplicasAreProcessesThatElectALeader(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Managers[0].Replicas = 3
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(w.Space.Processes, " "); got != "op-0 op-1 op-2" {
		t.Fatalf("processes %q, want op-0 op-1 op-2", got)
	}
	for _, spec := range o.Managers[0].Processes() {
		if le := spec.LeaderElection; le == nil || le.Namespace != "default" || le.Name != "op" {
			t.Fatalf("%s campaigns for %+v, want the Lease default/op", spec.Name, le)
		}
	}
	o.Managers[0].NoLeaderElection = true
	for _, spec := range o.Managers[0].Processes() {
		if spec.LeaderElection != nil {
			t.Fatalf("%s elects a leader with NoLeaderElection", spec.Name)
		}
	}
}

// With two replicas, a crash of the leader hands the Lease to the other after
// it expires, and the world still converges within the heal budget: no
// oracle sees the failover as a violation.
func TestAFailoverIsNoViolation(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Managers[0].Replicas = 2
	for _, leader := range []string{"op-0", "op-1"} {
		if v := optest.Judge(t, o, "seed 3\ncrash process="+leader+" at=1s\ncrash process="+leader+" at=30s\n"); len(v) != 0 {
			t.Errorf("crashing %s twice: %v", leader, v)
		}
	}
}

// Bad replica settings are refused with one line naming them.
func TestBadReplicasAreRefused(t *testing.T) {
	noLease := runtime.NewScheme()
	cases := map[string]func(o *world.Options){
		"Replicas of 0 or more": func(o *world.Options) { o.Managers[0].Replicas = -1 },
		`process name "op-1" is taken`: func(o *world.Options) {
			o.Managers[0].Replicas = 2
			o.Managers = append(o.Managers, world.Manager{Name: "op-1", Setup: func(manager.Manager) error { return nil }})
		},
		"has no coordination.k8s.io/v1 Lease": func(o *world.Options) {
			o.Managers[0].Replicas = 2
			o.Scheme = noLease
			o.Objects = nil
		},
		"needs the Lease's Namespace and Name": func(o *world.Options) { o.Managers[0].LeaderElection = &world.LeaderElection{Name: "x"} },
	}
	for want, edit := range cases {
		o := optest.AppOptions(optest.Child())
		edit(&o)
		_, err := search.NewWorld(o.WithDefaults())
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v", want, err)
		}
	}
}
