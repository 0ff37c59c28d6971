package differential

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// simSide is the simulator with the models of models/kube as kube-controller-manager.
type simSide struct{ c *cluster.Cluster }

func (s *simSide) Client() client.Client { return s.c.Admin() }
func (s *simSide) Now() time.Time        { return s.c.Clock.Now() }
func (s *simSide) Wait(d time.Duration)  { s.c.RunFor(d) }
func (s *simSide) Failed() error {
	if h := s.c.HotLoop(); h != nil {
		return fmt.Errorf("the simulator stopped on a hot loop: %+v", *h)
	}
	return nil
}

// SimTiming is RealTiming in simulated time.
var SimTiming = RealTiming

// runOnModels runs the script named name in a fresh simulated cluster whose
// kube-controller-manager process is set up by setup, in a namespace of the same name
// as on envtest.
func runOnModels(name string, setup func(p *process.Process) error) ([]WorkloadRecord, error) {
	ns := "workload-" + name
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme:    Scheme,
		Processes: []process.Spec{{Name: "kube-controller-manager", Setup: setup}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		},
	})
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return RunWorkload(context.Background(), &simSide{c: c}, ns, SimTiming, workloadScripts[name])
}
