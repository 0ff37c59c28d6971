package differential

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/kcm"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// TestHostedControllersMatchKubeControllerManager runs each workload script
// in the simulator as operatortest's worlds run kube-controller-manager: in a
// testing/synctest bubble, with the kinds held given, so that kubeworld hosts
// kube-controller-manager's own Deployment, ReplicaSet and StatefulSet
// controllers (package kcm) in place of the models; the Job scripts run on
// kcm's Job controller (which kubeworld does not wire yet). The code is the same on both sides:
// what this compares is the simulator's informers, queues and timing, with
// the same known gaps as the models.
func TestHostedControllersMatchKubeControllerManager(t *testing.T) {
	real := needKubeControllerManagerRecords(t)
	for _, name := range slices.Sorted(maps.Keys(workloadScripts)) {
		t.Run(name, func(t *testing.T) {
			wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
				ns := "workload-" + name
				c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
					Scheme: Scheme, Wall: wall,
					Processes: []process.Spec{{Name: "kube-controller-manager", Setup: func(p *process.Process) error {
						holds := func(schema.GroupKind) bool { return true }
						if strings.HasPrefix(name, "job") {
							// kcm's Job controller in place of the Job model,
							// which kubeworld does not replace yet.
							holds = func(gk schema.GroupKind) bool { return gk.Kind != "Job" && gk.Kind != "Pod" }
							if err := kcm.Setup(p, func(c kcm.Controller) bool { return c.Name == kcm.Job }); err != nil {
								return err
							}
						}
						return kubeworld.SetupControllersFor(p, holds)
					}}},
					Setup: func(c *cluster.Cluster) error {
						return c.Admin().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
					},
				})
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				hosted, err := RunWorkload(context.Background(), &simSide{c: c}, ns, SimTiming, workloadScripts[name])
				if err != nil {
					t.Fatalf("on the hosted controllers: %v", err)
				}
				if d := diffRecords(real[name], hosted, workloadGaps); d != "" {
					t.Errorf("the hosted controllers diverge from kube-controller-manager (-kube-controller-manager +hosted):\n%s", d)
				}
			})
		})
	}
}
