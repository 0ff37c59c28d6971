package kubeworld_test

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// hostedGCOptions is a world whose kube-controller-manager hosts its own
// workload controllers and garbage collector (HostedGarbageCollector), for
// StatefulSets, their pods and revisions.
func hostedGCOptions(p *plan.Plan) func() cluster.Options {
	holds := func(gk schema.GroupKind) bool {
		return gk == schema.GroupKind{Group: "apps", Kind: "StatefulSet"} || gk == schema.GroupKind{Kind: "Pod"} ||
			gk == schema.GroupKind{Group: "apps", Kind: "ControllerRevision"}
	}
	return func() cluster.Options {
		return cluster.Options{Scheme: scheme(), Processes: []process.Spec{
			{Name: "kube-controller-manager", Setup: func(pr *process.Process) error {
				if err := kubeworld.SetupControllersFor(pr, holds); err != nil {
					return err
				}
				_, err := kubeworld.HostedGarbageCollector(pr, holds)
				return err
			}},
			kubeworld.Kubelet(p, nil, kubeworld.Delays{}),
		}}
	}
}

func webSet() *appsv1.StatefulSet {
	labels := map[string]string{"app": "web"}
	return &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"},
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To(int32(2)), ServiceName: "web",
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app:1"}}},
			},
		},
	}
}

// deleteTheSet runs a 2-pod StatefulSet, deletes it in the background, and
// returns the pods and revisions left a minute later.
func deleteTheSet(t *testing.T, c *cluster.Cluster) (pods, revisions int) {
	t.Helper()
	set := webSet()
	if err := c.Admin().Create(t.Context(), set); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	var ps corev1.PodList
	if err := c.List(&ps, client.InNamespace("default")); err != nil || len(ps.Items) != 2 {
		t.Fatalf("the StatefulSet made %d pods (err %v), want 2", len(ps.Items), err)
	}
	if err := c.Admin().Delete(t.Context(), set, client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	if err := c.Get(client.ObjectKeyFromObject(set), &appsv1.StatefulSet{}); !apierrors.IsNotFound(err) {
		t.Errorf("the StatefulSet: %v, want NotFound", err)
	}
	var revs appsv1.ControllerRevisionList
	if err := c.List(&ps, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	if err := c.List(&revs, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	return len(ps.Items), len(revs.Items)
}

// A StatefulSet deleted in the background: kube-controller-manager's own
// garbage collector deletes its pods and its ControllerRevisions.
func TestTheHostedCollectorDeletesADeletedStatefulSetsPodsAndRevisions(t *testing.T) {
	p, err := plan.Parse("seed 3\n")
	if err != nil {
		t.Fatal(err)
	}
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		o := hostedGCOptions(p)()
		o.Wall = wall
		c, err := cluster.New(p, o)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if pods, revs := deleteTheSet(t, c); pods != 0 || revs != 0 {
			t.Errorf("%d pods and %d revisions left, want none", pods, revs)
		}
	})
}

// The same under a crash of kube-controller-manager as the set is deleted
// and a lagging pod watch: the same plan gives the same trace hash.
func TestTheHostedCollectorInAWorldDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 5\ncrash process=kube-controller-manager at=61s\nlag process=kube-controller-manager kind=/v1/Pod max=2s\n")
	if err != nil {
		t.Fatal(err)
	}
	if err := wallclock.CheckDeterminism(t, p, hostedGCOptions(p), func(c *cluster.Cluster) { deleteTheSet(t, c) }); err != nil {
		t.Fatal(err)
	}
}
