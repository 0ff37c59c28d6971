package kubeworld_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
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
					Kinds: []client.Object{&corev1.Pod{}, &appsv1.ReplicaSet{}, &appsv1.Deployment{}, &batchv1.Job{},
						&appsv1.StatefulSet{}, &appsv1.ControllerRevision{}, &corev1.PersistentVolumeClaim{}}}
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
func TestDeploymentRollout(t *testing.T) { deploymentRollout(t, world) }

// TestDeploymentRolloutHosted is TestDeploymentRollout with kube-controller-manager's own Deployment and
// ReplicaSet controllers (package kcm) in place of the models.
func TestDeploymentRolloutHosted(t *testing.T) { hosted(t, startedDeployment, deploymentRollout) }

func deploymentRollout(t *testing.T, world func(*testing.T, string) *cluster.Cluster) {
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

func job(name string, completions, parallelism, backoffLimit int32, annotations map[string]string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: batchv1.JobSpec{
			Completions: ptr.To(completions), Parallelism: ptr.To(parallelism), BackoffLimit: ptr.To(backoffLimit),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: annotations},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "work", Image: "busybox"}}},
			},
		},
	}
}

func jobConds(cs []batchv1.JobCondition) []string {
	var out []string
	for _, c := range cs {
		out = append(out, fmt.Sprintf("%s=%s/%s: %s", c.Type, c.Status, c.Reason, c.Message))
	}
	return out
}

// A Job of 3 completions, 2 at a time, completes as job_controller.go makes it:
// pods with the job-tracking finalizer, counted through
// uncountedTerminatedPods and released; SuccessCriteriaMet first, then
// Complete (CompletionsReached, "Reached expected number of succeeded pods")
// with completionTime once nothing is uncounted.
func TestJobCompletes(t *testing.T) { jobCompletes(t, world) }

// TestJobCompletesHosted is TestJobCompletes with kube-controller-manager's own Job
// controller (package kcm) in place of the model.
func TestJobCompletesHosted(t *testing.T) { hosted(t, startedJob, jobCompletes) }

func jobCompletes(t *testing.T, world func(*testing.T, string) *cluster.Cluster) {
	c := world(t, "seed 2\n")
	j := job("batch", 3, 2, 6, map[string]string{kube.AnnotationRun: "5s"})
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	sawTwoActive := false
	for i := 0; i < 12; i++ {
		c.RunFor(5 * time.Second)
		if get(t, c, j).Status.Active == 2 {
			sawTwoActive = true
		}
	}
	if !sawTwoActive {
		t.Error("parallelism 2: the job should have had 2 active pods at some point")
	}
	j = get(t, c, j)
	st := j.Status
	eq(t, "counters", fmt.Sprint(st.Active, ptr.Deref(st.Ready, -1), ptr.Deref(st.Terminating, -1), st.Succeeded, st.Failed), "0 0 0 3 0")
	if st.StartTime == nil || st.CompletionTime == nil || !st.CompletionTime.After(st.StartTime.Time) {
		t.Errorf("startTime %v, completionTime %v", st.StartTime, st.CompletionTime)
	}
	if u := st.UncountedTerminatedPods; u == nil || len(u.Succeeded)+len(u.Failed) != 0 {
		t.Errorf("uncountedTerminatedPods %+v, want empty", u)
	}
	want := []string{
		"SuccessCriteriaMet=True/CompletionsReached: Reached expected number of succeeded pods",
		"Complete=True/CompletionsReached: Reached expected number of succeeded pods",
	}
	eq(t, "conditions", fmt.Sprint(jobConds(st.Conditions)), fmt.Sprint(want))
	ps := pods(t, c)
	eq(t, "pods", len(ps), 3)
	for _, p := range ps {
		if p.Status.Phase != corev1.PodSucceeded || len(p.Finalizers) != 0 || p.Labels[batchv1.JobNameLabel] != "batch" || p.GenerateName != "batch-" {
			t.Errorf("pod %s: phase %s, finalizers %v, labels %v", p.Name, p.Status.Phase, p.Finalizers, p.Labels)
		}
		cs := p.Status.ContainerStatuses[0]
		if cs.State.Terminated == nil || cs.State.Terminated.Reason != "Completed" || cs.State.Terminated.ExitCode != 0 {
			t.Errorf("pod %s container state %+v", p.Name, cs.State)
		}
	}
}

// A Job whose pods exit 1, backoffLimit 2, fails on the third failure
// (failed > backoffLimit): FailureTarget first, then Failed, both
// BackoffLimitExceeded "Job has reached the specified backoff limit"; the
// replacements wait for the pod failure back-off (10s, then 20s).
func TestJobBackoffLimitExceeded(t *testing.T) { jobBackoffLimitExceeded(t, world) }

// TestJobBackoffLimitExceededHosted is TestJobBackoffLimitExceeded with kube-controller-manager's own Job
// controller (package kcm) in place of the model.
func TestJobBackoffLimitExceededHosted(t *testing.T) { hosted(t, startedJob, jobBackoffLimitExceeded) }

func jobBackoffLimitExceeded(t *testing.T, world func(*testing.T, string) *cluster.Cluster) {
	c := world(t, "seed 3\n")
	j := job("doomed", 1, 1, 2, map[string]string{kube.AnnotationRun: "2s", kube.AnnotationExitCode: "1"})
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Minute)
	j = get(t, c, j)
	st := j.Status
	eq(t, "counters", fmt.Sprint(st.Active, st.Succeeded, st.Failed), "0 0 3")
	want := []string{
		"FailureTarget=True/BackoffLimitExceeded: Job has reached the specified backoff limit",
		"Failed=True/BackoffLimitExceeded: Job has reached the specified backoff limit",
	}
	eq(t, "conditions", fmt.Sprint(jobConds(st.Conditions)), fmt.Sprint(want))
	if st.CompletionTime != nil {
		t.Errorf("a failed job has no completionTime, got %v", st.CompletionTime)
	}
	ps := pods(t, c)
	eq(t, "pods", len(ps), 3)
	var created []time.Time
	for _, p := range ps {
		if p.Status.Phase != corev1.PodFailed || p.Status.ContainerStatuses[0].State.Terminated.Reason != "Error" {
			t.Errorf("pod %s: phase %s", p.Name, p.Status.Phase)
		}
		created = append(created, p.CreationTimestamp.Time)
	}
	// The second pod waits at least 10s after the first failure, the third 20s
	// after the second.
	slicesSortTimes(created)
	if gap := created[1].Sub(created[0]); gap < 10*time.Second+2*time.Second {
		t.Errorf("second pod %s after the first: the back-off is 10s after a 2s run", gap)
	}
	if gap := created[2].Sub(created[1]); gap < 20*time.Second+2*time.Second {
		t.Errorf("third pod %s after the second: the back-off is 20s after a 2s run", gap)
	}
}

func slicesSortTimes(ts []time.Time) {
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			if ts[j].Before(ts[i]) {
				ts[i], ts[j] = ts[j], ts[i]
			}
		}
	}
}

func podCond(p *corev1.Pod, t corev1.PodConditionType) string {
	for _, c := range p.Status.Conditions {
		if c.Type == t {
			return fmt.Sprintf("%s/%s: %s", c.Status, c.Reason, c.Message)
		}
	}
	return "absent"
}

// notready: the second pod never becomes ready. Its Ready condition is False
// with the kubelet's ContainersNotReady reason; the Deployment (3 replicas,
// maxUnavailable 25%: none may be unavailable) is not Available, and 600s
// (progressDeadlineSeconds) after its last progress its Progressing condition
// turns False, ProgressDeadlineExceeded (progress.go).
func TestFaultNotReady(t *testing.T) {
	c := world(t, "seed 4\nnotready pod=2\n")
	d := deployment("web", 3, "nginx:1")
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	d = get(t, c, d)
	st := d.Status
	eq(t, "status", fmt.Sprint(st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas), "3 2 2 1")
	rs := replicaSets(t, c)[0]
	// syncRolloutStatus removes the Progressing condition and appends the
	// ReplicaSetUpdated one: it comes after Available.
	eq(t, "conditions", fmt.Sprint(conds(st.Conditions)), fmt.Sprint([]string{
		"Available=False/MinimumReplicasUnavailable: Deployment does not have minimum availability.",
		fmt.Sprintf("Progressing=True/ReplicaSetUpdated: ReplicaSet %q is progressing.", rs.Name),
	}))
	unready := 0
	for _, p := range pods(t, c) {
		if podCond(&p, corev1.PodReady) == "False/ContainersNotReady: containers with unready status: [app]" && p.Status.Phase == corev1.PodRunning {
			unready++
		}
	}
	eq(t, "unready pods", unready, 1)

	c.RunFor(10 * time.Minute)
	d = get(t, c, d)
	eq(t, "conditions after the deadline", fmt.Sprint(conds(d.Status.Conditions)), fmt.Sprint([]string{
		"Available=False/MinimumReplicasUnavailable: Deployment does not have minimum availability.",
		fmt.Sprintf("Progressing=False/ProgressDeadlineExceeded: ReplicaSet %q has timed out progressing.", rs.Name),
	}))
}

// crashloop: the first pod's container exits 1 each time it has run and the
// kubelet restarts it after a doubling back-off: restartCount grows, the
// container waits in CrashLoopBackOff with the last termination (Error, exit
// code 1) in lastState, and the pod stays Running but not ready.
func TestFaultCrashLoop(t *testing.T) {
	c := world(t, "seed 5\ncrashloop pod=1\n")
	d := deployment("web", 1, "nginx:1")
	d.Spec.Template.Annotations = map[string]string{kube.AnnotationRun: "5s"}
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(3 * time.Minute)
	ps := pods(t, c)
	eq(t, "pods", len(ps), 1)
	p := ps[0]
	cs := p.Status.ContainerStatuses[0]
	// Runs of 5s and back-offs of 10s, 20s, 40s, 80s: the fourth restart is
	// at 5+10+5+20+5+40+5 = 90s after the start and the fifth at 175s.
	if cs.RestartCount < 4 || cs.RestartCount > 5 {
		t.Errorf("restartCount %d after 3m, want 4 or 5", cs.RestartCount)
	}
	if lt := cs.LastTerminationState.Terminated; lt == nil || lt.ExitCode != 1 || lt.Reason != "Error" {
		t.Errorf("lastState %+v, want terminated Error exit code 1", cs.LastTerminationState)
	}
	eq(t, "phase", p.Status.Phase, corev1.PodRunning)
	eq(t, "ready", podCond(&p, corev1.PodReady), "False/ContainersNotReady: containers with unready status: [app]")
	eq(t, "available", get(t, c, d).Status.AvailableReplicas, 0)
}

// podfail: the Job's first pod fails once (exit code 1, phase Failed); the job
// controller counts it, replaces it after the back-off, and the Job completes
// with failed 1, succeeded 1.
func TestFaultPodFail(t *testing.T) {
	c := world(t, "seed 6\npodfail pod=1\n")
	j := job("once", 1, 1, 6, map[string]string{kube.AnnotationRun: "3s"})
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	j = get(t, c, j)
	eq(t, "counters", fmt.Sprint(j.Status.Active, j.Status.Succeeded, j.Status.Failed), "0 1 1")
	eq(t, "finished", fmt.Sprint(jobConds(j.Status.Conditions)), fmt.Sprint([]string{
		"SuccessCriteriaMet=True/CompletionsReached: Reached expected number of succeeded pods",
		"Complete=True/CompletionsReached: Reached expected number of succeeded pods",
	}))
	phases := map[corev1.PodPhase]int{}
	for _, p := range pods(t, c) {
		phases[p.Status.Phase]++
	}
	eq(t, "phases", fmt.Sprint(phases), fmt.Sprint(map[corev1.PodPhase]int{corev1.PodFailed: 1, corev1.PodSucceeded: 1}))
}

// nodelost: node-1 stops at 30s. 50s later (node monitor grace period) its
// pods' Ready condition is False and the Deployment loses their
// availability; 300s after that (the not-ready toleration) they are evicted
// and the ReplicaSet's replacements run on node-2.
func TestFaultNodeLost(t *testing.T) {
	c := world(t, "seed 7\nnodelost node=node-1 at=30s\n")
	d := deployment("web", 2, "nginx:1")
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(30 * time.Second)
	nodes := map[string]int{}
	for _, p := range pods(t, c) {
		nodes[p.Spec.NodeName]++
	}
	eq(t, "spread", fmt.Sprint(nodes), "map[node-1:1 node-2:1]")
	eq(t, "available before", get(t, c, d).Status.AvailableReplicas, 2)

	c.RunFor(55 * time.Second) // 85s: past 30s+50s
	for _, p := range pods(t, c) {
		want := "True/: "
		if p.Spec.NodeName == "node-1" {
			want = "False/: "
		}
		eq(t, "ready of the pod on "+p.Spec.NodeName, podCond(&p, corev1.PodReady), want)
	}
	eq(t, "available while lost", get(t, c, d).Status.AvailableReplicas, 1)

	c.RunFor(5 * time.Minute) // 385s: past 80s+300s
	// The evicted pod stays Terminating on the lost node: no kubelet stops it
	// (graceful deletion; the node never comes back in this world), and the
	// ReplicaSet has replaced it on node-2.
	nodes = map[string]int{}
	for _, p := range pods(t, c) {
		if p.DeletionTimestamp != nil {
			eq(t, "the terminating pod's node", p.Spec.NodeName, "node-1")
			continue
		}
		nodes[p.Spec.NodeName]++
	}
	eq(t, "after eviction", fmt.Sprint(nodes), "map[node-2:2]")
	st := get(t, c, d).Status
	eq(t, "status after eviction", fmt.Sprint(st.Replicas, st.ReadyReplicas, st.AvailableReplicas), "2 2 2")
}

// A world with these models is deterministic: the same plan (with workload
// faults) gives the same trace.
func TestDeterminism(t *testing.T) {
	p, err := plan.Parse("seed 9\nnotready pod=2\npodfail pod=4\nnodelost node=node-2 at=20s\nlag process=kube-controller-manager kind=* min=0s max=300ms\n")
	if err != nil {
		t.Fatal(err)
	}
	err = cluster.CheckDeterminism(p, options(p), func(c *cluster.Cluster) {
		if err := c.Admin().Create(ctx, deployment("web", 3, "nginx:1")); err != nil {
			t.Fatal(err)
		}
		if err := c.Admin().Create(ctx, job("batch", 2, 2, 3, map[string]string{kube.AnnotationRun: "4s"})); err != nil {
			t.Fatal(err)
		}
		c.RunFor(2 * time.Minute)
		d := &appsv1.Deployment{}
		if err := c.Get(client.ObjectKey{Namespace: "default", Name: "web"}, d); err != nil {
			t.Fatal(err)
		}
		d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
		if err := c.Admin().Update(ctx, d); err != nil {
			t.Fatal(err)
		}
		c.RunFor(8 * time.Minute)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A running Job deleted in the background: the collector deletes its pods,
// which the job-tracking finalizer holds until the job controller's orphan
// handling (handleSingleOrphanPod) removes it; then they are gone.
func TestJobDeletedReleasesItsPods(t *testing.T) { jobDeletedReleasesItsPods(t, world) }

// TestJobDeletedReleasesItsPodsHosted is TestJobDeletedReleasesItsPods with kube-controller-manager's own Job
// controller (package kcm) in place of the model.
func TestJobDeletedReleasesItsPodsHosted(t *testing.T) {
	hosted(t, startedJob, jobDeletedReleasesItsPods)
}

func jobDeletedReleasesItsPods(t *testing.T, world func(*testing.T, string) *cluster.Cluster) {
	c := world(t, "seed 8\n")
	j := job("long", 2, 2, 6, map[string]string{kube.AnnotationRun: "10m"})
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	c.RunFor(20 * time.Second)
	ps := pods(t, c)
	eq(t, "running pods", len(ps), 2)
	for _, p := range ps {
		eq(t, "finalizers of "+p.Name, fmt.Sprint(p.Finalizers), "["+batchv1.JobTrackingFinalizer+"]")
	}
	if err := c.Admin().Delete(ctx, get(t, c, j), client.PropagationPolicy(metav1.DeletePropagationBackground)); err != nil {
		t.Fatal(err)
	}
	// The pods terminate gracefully (up to their 30s grace period) before
	// their kubelet deletes them: 40s, not the 20s of instant deletion.
	c.RunFor(40 * time.Second)
	eq(t, "pods left", len(pods(t, c)), 0)
}

// The kubelet reads "sleep N" in a container's command as how long it runs.
func TestJobPodsRunTheirSleep(t *testing.T) { jobPodsRunTheirSleep(t, world) }

// TestJobPodsRunTheirSleepHosted is TestJobPodsRunTheirSleep with kube-controller-manager's own Job
// controller (package kcm) in place of the model.
func TestJobPodsRunTheirSleepHosted(t *testing.T) { hosted(t, startedJob, jobPodsRunTheirSleep) }

func jobPodsRunTheirSleep(t *testing.T, world func(*testing.T, string) *cluster.Cluster) {
	c := world(t, "seed 10\n")
	j := job("sleepy", 1, 1, 6, nil)
	j.Spec.Template.Spec.Containers[0].Command = []string{"/bin/sh", "-c", "sleep 40; date"}
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	c.RunFor(30 * time.Second)
	eq(t, "active at 30s", get(t, c, j).Status.Active, 1)
	c.RunFor(30 * time.Second)
	j = get(t, c, j)
	eq(t, "succeeded at 60s", j.Status.Succeeded, 1)
	p := pods(t, c)[0]
	term := p.Status.ContainerStatuses[0].State.Terminated
	if term == nil || term.FinishedAt.Sub(term.StartedAt.Time) != 40*time.Second {
		t.Errorf("container state %+v, want 40s of running", p.Status.ContainerStatuses[0].State)
	}
}

// replayLog walks the apiserver's watch log and calls visit after each
// change with the pods and ReplicaSets then stored.
func replayLog(c *cluster.Cluster, visit func(pods map[string]*corev1.Pod, rss map[string]*appsv1.ReplicaSet)) {
	pods := map[string]*corev1.Pod{}
	rss := map[string]*appsv1.ReplicaSet{}
	for _, ev := range c.Server.Log() {
		switch o := ev.Object.(type) {
		case *corev1.Pod:
			if ev.Type == "DELETED" {
				delete(pods, o.Name)
			} else {
				pods[o.Name] = o
			}
		case *appsv1.ReplicaSet:
			if ev.Type == "DELETED" {
				delete(rss, o.Name)
			} else {
				rss[o.Name] = o
			}
		default:
			continue
		}
		visit(pods, rss)
	}
}

// RollingUpdate with maxSurge 1 and maxUnavailable 0 (rolling.go): at no point
// of the image change do the ReplicaSets ask for more than replicas+1 pods,
// nor are fewer than replicas pods ready and available once the first
// rollout is done.
func TestRollingUpdateKeepsItsBounds(t *testing.T) { rollingUpdateKeepsItsBounds(t, world) }

// TestRollingUpdateKeepsItsBoundsHosted is TestRollingUpdateKeepsItsBounds with kube-controller-manager's own Deployment and
// ReplicaSet controllers (package kcm) in place of the models.
func TestRollingUpdateKeepsItsBoundsHosted(t *testing.T) {
	hosted(t, startedDeployment, rollingUpdateKeepsItsBounds)
}

func rollingUpdateKeepsItsBounds(t *testing.T, world func(*testing.T, string) *cluster.Cluster) {
	c := world(t, "seed 11\nlag process=kube-controller-manager kind=* min=0s max=500ms\n")
	d := deployment("web", 4, "nginx:1")
	one, zero := intstr.FromInt32(1), intstr.FromInt32(0)
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
		RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &one, MaxUnavailable: &zero}}
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	eq(t, "available before", get(t, c, d).Status.AvailableReplicas, 4)
	mark := len(c.Server.Log())
	d = get(t, c, d)
	d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	if err := c.Admin().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(3 * time.Minute)
	st := get(t, c, d).Status
	eq(t, "rolled", fmt.Sprint(st.Replicas, st.UpdatedReplicas, st.AvailableReplicas), "4 4 4")
	maxWanted, minReady, i := 0, 99, 0
	replayLog(c, func(pods map[string]*corev1.Pod, rss map[string]*appsv1.ReplicaSet) {
		i++
		if i <= mark {
			return
		}
		wanted := 0
		for _, rs := range rss {
			wanted += int(*rs.Spec.Replicas)
		}
		ready := 0
		for _, p := range pods {
			if p.DeletionTimestamp == nil && podCond(p, corev1.PodReady) == "True/: " {
				ready++
			}
		}
		maxWanted, minReady = max(maxWanted, wanted), min(minReady, ready)
	})
	eq(t, "most pods asked for", maxWanted, 5)
	eq(t, "fewest ready pods", minReady, 4)
}

// Recreate (recreate.go): the new ReplicaSet is scaled up only once no pod of
// the old one is left.
func TestRecreateWaitsForTheOldPods(t *testing.T) { recreateWaitsForTheOldPods(t, world) }

// TestRecreateWaitsForTheOldPodsHosted is TestRecreateWaitsForTheOldPods with kube-controller-manager's own Deployment and
// ReplicaSet controllers (package kcm) in place of the models.
func TestRecreateWaitsForTheOldPodsHosted(t *testing.T) {
	hosted(t, startedDeployment, recreateWaitsForTheOldPods)
}

func recreateWaitsForTheOldPods(t *testing.T, world func(*testing.T, string) *cluster.Cluster) {
	c := world(t, "seed 12\n")
	d := deployment("web", 3, "nginx:1")
	d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	d = get(t, c, d)
	oldRS := replicaSets(t, c)[0]
	d.Spec.Template.Spec.Containers[0].Image = "nginx:2"
	if err := c.Admin().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Minute)
	st := get(t, c, d).Status
	eq(t, "recreated", fmt.Sprint(st.Replicas, st.UpdatedReplicas, st.AvailableReplicas), "3 3 3")
	overlap := false
	replayLog(c, func(pods map[string]*corev1.Pod, rss map[string]*appsv1.ReplicaSet) {
		newUp := false
		for _, rs := range rss {
			if rs.UID != oldRS.UID && *rs.Spec.Replicas > 0 {
				newUp = true
			}
		}
		for _, p := range pods {
			if metav1.GetControllerOf(p).UID == oldRS.UID && newUp {
				overlap = true
			}
		}
	})
	if overlap {
		t.Error("the new ReplicaSet was scaled up while a pod of the old one was left")
	}
}

// A Service over a Deployment's pods gets one EndpointSlice
// (endpointslice/reconciler.go, utils.go): owned by the Service, labelled
// with its name and the controller's, the named target port resolved in the
// pods' containers, one endpoint per pod with its IP, node and readiness (the
// pod that never becomes ready is listed, not ready, not serving). Scaled to
// 0, the slice (whose ports no longer match) gives way to an empty
// placeholder slice without ports, as reconcileByAddressType does, and the
// placeholder takes the old slice's place by an update (finalize turns a
// create and a delete into an update). The kubelet registers its Nodes: the
// controller leaves out pods whose Node is missing.
func TestEndpointSlice(t *testing.T) {
	c := world(t, "seed 13\nnotready pod=1\n")
	d := deployment("web", 2, "nginx:1")
	d.Spec.Template.Spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{"team": "a"}},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"},
			Ports: []corev1.ServicePort{{Name: "web", Port: 80, TargetPort: intstr.FromString("http")}}}}
	for _, o := range []client.Object{d, svc} {
		if err := c.Admin().Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	c.RunFor(time.Minute)
	slices := func() []discoveryv1.EndpointSlice {
		var l discoveryv1.EndpointSliceList
		if err := c.List(&l, client.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		return l.Items
	}
	ss := slices()
	if len(ss) != 1 {
		t.Fatalf("want one EndpointSlice, got %d", len(ss))
	}
	s := ss[0]
	eq(t, "generateName", s.GenerateName, "web-")
	eq(t, "labels", fmt.Sprint(s.Labels), fmt.Sprint(map[string]string{"team": "a", discoveryv1.LabelServiceName: "web", discoveryv1.LabelManagedBy: kube.EndpointSliceControllerName}))
	if ref := metav1.GetControllerOf(&s); ref == nil || ref.Kind != "Service" || ref.UID != get(t, c, svc).UID {
		t.Errorf("owner %+v", ref)
	}
	eq(t, "addressType", s.AddressType, discoveryv1.AddressTypeIPv4)
	if len(s.Ports) != 1 || *s.Ports[0].Name != "web" || *s.Ports[0].Port != 8080 || *s.Ports[0].Protocol != corev1.ProtocolTCP {
		t.Errorf("ports %+v", s.Ports)
	}
	var ready, notReady int
	for _, e := range s.Endpoints {
		p := &corev1.Pod{}
		if err := c.Get(client.ObjectKey{Namespace: "default", Name: e.TargetRef.Name}, p); err != nil {
			t.Fatal(err)
		}
		if len(e.Addresses) != 1 || e.Addresses[0] != p.Status.PodIP || *e.NodeName != p.Spec.NodeName || *e.Conditions.Terminating {
			t.Errorf("endpoint %+v of pod %s (ip %s, node %s)", e, p.Name, p.Status.PodIP, p.Spec.NodeName)
		}
		switch {
		case *e.Conditions.Ready && *e.Conditions.Serving:
			ready++
		case !*e.Conditions.Ready && !*e.Conditions.Serving:
			notReady++
		}
	}
	eq(t, "ready and not-ready endpoints", fmt.Sprint(ready, notReady), "1 1")

	d = get(t, c, d)
	d.Spec.Replicas = ptr.To(int32(0))
	if err := c.Admin().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	ss = slices()
	if len(ss) != 1 || len(ss[0].Endpoints) != 0 || len(ss[0].Ports) != 0 || ss[0].Name != s.Name {
		t.Errorf("scaled to 0: want the slice made the placeholder, empty, by an update; got %d slices %+v", len(ss), ss)
	}
}

// restartPolicy OnFailure: a crash-looping pod restarts in place, and once
// its containers' restarts reach backoffLimit the Job fails
// (pastBackoffLimitOnFailure), its active pod deleted, status.failed 1.
func TestJobOnFailureCrashLoopExceedsTheBackoffLimit(t *testing.T) {
	jobOnFailureCrashLoopExceedsTheBackoffLimit(t, world)
}

// TestJobOnFailureCrashLoopExceedsTheBackoffLimitHosted is TestJobOnFailureCrashLoopExceedsTheBackoffLimit with kube-controller-manager's own Job
// controller (package kcm) in place of the model.
func TestJobOnFailureCrashLoopExceedsTheBackoffLimitHosted(t *testing.T) {
	hosted(t, startedJob, jobOnFailureCrashLoopExceedsTheBackoffLimit)
}

func jobOnFailureCrashLoopExceedsTheBackoffLimit(t *testing.T, world func(*testing.T, string) *cluster.Cluster) {
	c := world(t, "seed 14\ncrashloop pod=1\n")
	j := job("flaky", 1, 1, 2, map[string]string{kube.AnnotationRun: "2s"})
	j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyOnFailure
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Minute)
	j = get(t, c, j)
	eq(t, "counters", fmt.Sprint(j.Status.Active, j.Status.Succeeded, j.Status.Failed), "0 0 1")
	eq(t, "conditions", fmt.Sprint(jobConds(j.Status.Conditions)), fmt.Sprint([]string{
		"FailureTarget=True/BackoffLimitExceeded: Job has reached the specified backoff limit",
		"Failed=True/BackoffLimitExceeded: Job has reached the specified backoff limit",
	}))
	eq(t, "pods left", len(pods(t, c)), 0)
}
