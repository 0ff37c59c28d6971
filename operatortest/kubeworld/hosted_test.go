package kubeworld_test

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	hostedkcm "github.com/ctrlsim/ctrlsim/kcm"
	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// hosted runs a behaviour test of the models on a world whose
// kube-controller-manager hosts its own controllers where kubeworld does
// (a testing/synctest bubble, the kinds it holds given): the same
// expectations, checked against upstream's code. It fails if a hosted
// controller did not start: a world's trace lacks one of the lines (Run's
// first, in pkg/controller: startedDeployment, startedJob).
func hosted(t *testing.T, lines []string, test func(*testing.T, func(*testing.T, string) *cluster.Cluster)) {
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		var worlds []*cluster.Cluster
		test(t, func(t *testing.T, text string) *cluster.Cluster {
			t.Helper()
			p, err := plan.Parse(text)
			if err != nil {
				t.Fatal(err)
			}
			o := hostedOptions(p, slices.Equal(lines, startedJob))()
			o.Wall = wall
			c, err := cluster.New(p, o)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(c.Close)
			worlds = append(worlds, c)
			return c
		})
		for _, c := range worlds {
			for _, line := range lines {
				if !slices.ContainsFunc(c.Trace.Steps(), func(s trace.Step) bool {
					return s.Op == "log" && strings.Contains(s.Result, line)
				}) {
					t.Errorf("kube-controller-manager's controller did not start: no line %q", line)
				}
			}
		}
	})
}

// hostedOptions is options with every kind held: kubeworld hosts
// kube-controller-manager's controllers in place of their models. With job,
// kcm's Job controller runs in place of the Job model, which kubeworld does
// not replace yet (kubeworld.Models says why).
func hostedOptions(p *plan.Plan, job bool) func() cluster.Options {
	return func() cluster.Options {
		return cluster.Options{Scheme: scheme(), Processes: []process.Spec{
			{Name: "kube-controller-manager", Setup: func(pr *process.Process) error {
				holds := func(schema.GroupKind) bool { return true }
				if job {
					// Without the Job model (it watches Jobs and pods).
					holds = func(gk schema.GroupKind) bool { return gk.Kind != "Job" && gk.Kind != "Pod" }
					if err := hostedkcm.Setup(pr, func(c hostedkcm.Controller) bool { return c.Name == hostedkcm.Job }); err != nil {
						return err
					}
				}
				if err := kubeworld.SetupControllersFor(pr, holds); err != nil {
					return err
				}
				mgr := pr.Manager()
				gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(),
					Kinds: []client.Object{&corev1.Pod{}, &appsv1.ReplicaSet{}, &appsv1.Deployment{}, &batchv1.Job{},
						&appsv1.StatefulSet{}, &appsv1.ControllerRevision{}, &corev1.PersistentVolumeClaim{}}}
				return gc.SetupWithManager(mgr)
			}},
			kubeworld.Kubelet(p, nil, kubeworld.Delays{}),
		}}
	}
}

// The first lines of Run of the hosted Deployment and ReplicaSet
// controllers, and of the Job controller.
var (
	startedDeployment = []string{"Starting controller logger=replicaset-controller", "Starting controller logger=deployment-controller"}
	startedJob        = []string{"Starting job controller logger=job-controller"}
)
