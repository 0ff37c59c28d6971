package differential

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
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

// TestModelsMatchKubeControllerManager runs each workload script in the simulator,
// with the models of models/kube (kubeworld.SetupControllers) as its
// kube-controller-manager, and requires the same records as the real one's, step by
// step, once the known gaps (workloadGaps) are normalised on both sides.
func TestModelsMatchKubeControllerManager(t *testing.T) {
	real := needKubeControllerManagerRecords(t)
	for _, name := range slices.Sorted(maps.Keys(workloadScripts)) {
		t.Run(name, func(t *testing.T) {
			model, err := runOnModels(name, kubeworld.SetupControllers)
			if err != nil {
				t.Fatalf("on the models: %v", err)
			}
			if d := diffRecords(real[name], model, workloadGaps); d != "" {
				t.Errorf("the models diverge from kube-controller-manager (-kube-controller-manager +models):\n%s", d)
			}
		})
	}
}

// knownWorkloadGap runs the scripts on the models and requires gap to still show: with
// every other gap normalised, some script must diverge, and with gap normalised too,
// none may. When the model closes the gap, the test says to drop it.
func knownWorkloadGap(t *testing.T, gap WorkloadGap, scripts ...string) {
	t.Helper()
	real := needKubeControllerManagerRecords(t)
	var others []WorkloadGap
	for _, g := range workloadGaps {
		if g.Name != gap.Name {
			others = append(others, g)
		}
	}
	shown := false
	for _, name := range scripts {
		model, err := runOnModels(name, kubeworld.SetupControllers)
		if err != nil {
			t.Fatalf("%s on the models: %v", name, err)
		}
		if d := diffRecords(real[name], model, others); d != "" {
			shown = true
			t.Logf("known gap %q in %s, as pinned:\n%s", gap.Name, name, d)
		}
	}
	if !shown {
		t.Fatalf("known gap %q no longer shows in %v: remove it from workloadGaps and this test", gap.Name, scripts)
	}
}

func TestKnownGapWorkloadEventsNotAggregated(t *testing.T) {
	knownWorkloadGap(t, gapEventsNotAggregated, "deployment-11-replicas")
}
