package kubeworld_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/models/kube/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

var ctx = context.Background()

func scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(s)
	return s
}

// options is a world of kube-controller-manager (the workload controllers and
// the garbage collector over pods and ReplicaSets) and the kubelet.
func options(p *plan.Plan) func() cluster.Options {
	return func() cluster.Options {
		return cluster.Options{Scheme: scheme(), Processes: []process.Spec{
			{Name: "kube-controller-manager", Setup: func(pr *process.Process) error {
				if err := kubeworld.SetupControllers(pr); err != nil {
					return err
				}
				mgr := pr.Manager()
				gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(),
					Kinds: []client.Object{&corev1.Pod{}, &appsv1.ReplicaSet{}, &appsv1.Deployment{}, &batchv1.Job{}}}
				return gc.SetupWithManager(mgr)
			}},
			kubeworld.Kubelet(p, nil, kubeworld.Delays{}),
		}}
	}
}

func world(t *testing.T, text string) *cluster.Cluster {
	t.Helper()
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(p, options(p)())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func deployment(name string, replicas int32, image string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways, Containers: []corev1.Container{{Name: "app", Image: image}}},
			},
		},
	}
}

func get[T client.Object](t *testing.T, c *cluster.Cluster, obj T) T {
	t.Helper()
	if err := c.Get(client.ObjectKeyFromObject(obj), obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func replicaSets(t *testing.T, c *cluster.Cluster) []appsv1.ReplicaSet {
	t.Helper()
	var l appsv1.ReplicaSetList
	if err := c.List(&l, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	return l.Items
}

func pods(t *testing.T, c *cluster.Cluster) []corev1.Pod {
	t.Helper()
	var l corev1.PodList
	if err := c.List(&l, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// conds renders conditions as "Type=Status/Reason: message".
func conds(cs []appsv1.DeploymentCondition) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s=%s/%s: %s", c.Type, c.Status, c.Reason, c.Message))
	}
	return out
}

func eq[T comparable](t *testing.T, what string, got, want T) {
	t.Helper()
	if got != want {
		t.Errorf("%s = %v, want %v", what, got, want)
	}
}

// A Deployment created, its pods Ready, scaled, and its image changed reaches
// the status upstream's controller writes (pkg/controller/deployment:
// sync.go calculateStatus, progress.go syncRolloutStatus,
// util.SetDeploymentCondition): Available first (MinimumReplicasAvailable),
// then Progressing NewReplicaSetAvailable naming the new ReplicaSet; the
// ReplicaSets are <name>-<pod-template-hash> with revision, desired-replicas
// and max-replicas annotations; the old one is scaled to 0 and kept.
func TestDeploymentRollout(t *testing.T) {
	c := world(t, "seed 1\n")
	d := deployment("web", 3, "nginx:1")
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)

	d = get(t, c, d)
	rss := replicaSets(t, c)
	if len(rss) != 1 {
		t.Fatalf("want one ReplicaSet, got %d", len(rss))
	}
	rs := rss[0]
	hash := rs.Labels[appsv1.DefaultDeploymentUniqueLabelKey]
	eq(t, "ReplicaSet name", rs.Name, "web-"+hash)
	eq(t, "revision", rs.Annotations[kube.RevisionAnnotation], "1")
	eq(t, "deployment revision", d.Annotations[kube.RevisionAnnotation], "1")
	eq(t, "desired-replicas", rs.Annotations[kube.DesiredReplicasAnnotation], "3")
	eq(t, "max-replicas", rs.Annotations[kube.MaxReplicasAnnotation], "4") // 3 + 25% surge rounded up
	ref := metav1.GetControllerOf(&rs)
	if ref == nil || ref.UID != d.UID || !ptr.Deref(ref.BlockOwnerDeletion, false) {
		t.Errorf("ReplicaSet controller reference %+v", ref)
	}
	eq(t, "rs status", fmt.Sprint(rs.Status.Replicas, rs.Status.FullyLabeledReplicas, rs.Status.ReadyReplicas, rs.Status.AvailableReplicas, rs.Status.ObservedGeneration), "3 3 3 3 1")
	ps := pods(t, c)
	if len(ps) != 3 {
		t.Fatalf("want 3 pods, got %d", len(ps))
	}
	for _, p := range ps {
		if p.GenerateName != rs.Name+"-" || metav1.GetControllerOf(&p).UID != rs.UID || p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" || p.Spec.NodeName == "" {
			t.Errorf("pod %s: generateName %q, phase %s, ip %q, node %q", p.Name, p.GenerateName, p.Status.Phase, p.Status.PodIP, p.Spec.NodeName)
		}
	}
	st := d.Status
	eq(t, "status", fmt.Sprint(st.ObservedGeneration, st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas, ptr.Deref(st.TerminatingReplicas, -1)), "1 3 3 3 3 0 0")
	want := []string{
		"Available=True/MinimumReplicasAvailable: Deployment has minimum availability.",
		fmt.Sprintf("Progressing=True/NewReplicaSetAvailable: ReplicaSet %q has successfully progressed.", rs.Name),
	}
	eq(t, "conditions", fmt.Sprint(conds(st.Conditions)), fmt.Sprint(want))

	// Scale to 5: the same ReplicaSet grows (a scaling event, sync.go scale).
	d.Spec.Replicas = ptr.To(int32(5))
	if err := c.Admin().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	d = get(t, c, d)
	rs = *get(t, c, &rs)
	eq(t, "scaled rs replicas", *rs.Spec.Replicas, 5)
	eq(t, "scaled desired-replicas", rs.Annotations[kube.DesiredReplicasAnnotation], "5")
	st = d.Status
	eq(t, "scaled status", fmt.Sprint(st.ObservedGeneration, st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas), "2 5 5 5 5")

	// Change the image: a new ReplicaSet (revision 2) takes over, the old one
	// goes to 0 replicas with revision 1.
	d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	if err := c.Admin().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Minute)
	d = get(t, c, d)
	rss = replicaSets(t, c)
	if len(rss) != 2 {
		t.Fatalf("want two ReplicaSets, got %d", len(rss))
	}
	var oldRS, newRS appsv1.ReplicaSet
	for _, x := range rss {
		if x.UID == rs.UID {
			oldRS = x
		} else {
			newRS = x
		}
	}
	eq(t, "old replicas", *oldRS.Spec.Replicas, 0)
	eq(t, "old revision", oldRS.Annotations[kube.RevisionAnnotation], "1")
	eq(t, "new replicas", *newRS.Spec.Replicas, 5)
	eq(t, "new revision", newRS.Annotations[kube.RevisionAnnotation], "2")
	eq(t, "deployment revision", d.Annotations[kube.RevisionAnnotation], "2")
	st = d.Status
	eq(t, "rolled status", fmt.Sprint(st.ObservedGeneration, st.Replicas, st.UpdatedReplicas, st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas), "3 5 5 5 5 0")
	want[1] = fmt.Sprintf("Progressing=True/NewReplicaSetAvailable: ReplicaSet %q has successfully progressed.", newRS.Name)
	eq(t, "rolled conditions", fmt.Sprint(conds(st.Conditions)), fmt.Sprint(want))
	for _, p := range pods(t, c) {
		if metav1.GetControllerOf(&p).UID != newRS.UID || p.Spec.Containers[0].Image != "nginx:2" {
			t.Errorf("pod %s of the old template is left", p.Name)
		}
	}
}
