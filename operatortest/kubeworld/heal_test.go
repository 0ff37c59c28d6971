package kubeworld_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The workload faults end with the fault phase (the cluster's Heal), as a
// real fault stops; these tests heal a world mid-run and read what the
// kubelet does next.

// readyAt is when pod's Ready condition last turned to its status, as a time
// since the run's start.
func readyAt(c *cluster.Cluster, p *corev1.Pod) time.Duration {
	for _, cd := range p.Status.Conditions {
		if cd.Type == corev1.PodReady {
			return cd.LastTransitionTime.Time.Sub(c.Clock.Now().Add(-c.Now()))
		}
	}
	return -1
}

// notready, healed: the pod kept unready is probed every 10s from its
// container's start, and the first probe after the heal passes: it is Ready
// within ReadinessProbePeriod of the heal, and the Deployment is Available
// with its 3 replicas.
func TestHealNotReady(t *testing.T) {
	c := world(t, "seed 4\nnotready pod=2\n")
	d := deployment("web", 3, "nginx:1")
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	eq(t, "ready before the heal", get(t, c, d).Status.ReadyReplicas, 2)
	c.Heal()
	heal := c.Now()
	c.RunFor(kube.ReadinessProbePeriod)
	st := get(t, c, d).Status
	eq(t, "status after the heal", fmt.Sprint(st.Replicas, st.ReadyReplicas, st.AvailableReplicas, st.UnavailableReplicas), "3 3 3 0")
	for _, p := range pods(t, c) {
		eq(t, "ready of "+p.Name, podCond(&p, corev1.PodReady), "True/: ")
		if p.Status.ContainerStatuses[0].State.Running == nil {
			t.Fatalf("%s: container not running: %+v", p.Name, p.Status.ContainerStatuses[0].State)
		}
		start := p.Status.ContainerStatuses[0].State.Running.StartedAt.Time.Sub(c.Clock.Now().Add(-c.Now()))
		at := readyAt(c, &p)
		if at >= heal {
			// The pod that was kept unready: ready at a probe, a whole
			// number of periods after its container's start, the first
			// at or after the heal.
			if (at-start)%kube.ReadinessProbePeriod != 0 || at-heal >= kube.ReadinessProbePeriod {
				t.Errorf("%s ready at %v: want the first probe (start %v + k*%v) at or after the heal at %v", p.Name, at, start, kube.ReadinessProbePeriod, heal)
			}
		}
	}
	eq(t, "available after the heal", fmt.Sprint(conds(get(t, c, d).Status.Conditions)[0]), "Available=True/MinimumReplicasAvailable: Deployment has minimum availability.")
}

// crashloop, healed: the container's back-off in progress at the heal runs
// its course (no restart before it), and the run that starts then is a
// fault-free one: it keeps running, ready, and restartCount stops growing.
func TestHealCrashLoop(t *testing.T) {
	c := world(t, "seed 5\ncrashloop pod=1\n")
	d := deployment("web", 1, "nginx:1")
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	before := pods(t, c)[0].Status.ContainerStatuses[0]
	if before.State.Waiting == nil || before.State.Waiting.Reason != "CrashLoopBackOff" {
		t.Fatalf("before the heal: %+v, want waiting CrashLoopBackOff", before.State)
	}
	// The back-off the container waits in: 10s doubled per restart.
	restartAt := before.LastTerminationState.Terminated.FinishedAt.Add(min(kube.CrashLoopBackOffInitial<<before.RestartCount, kube.CrashLoopBackOffMax))
	c.Heal()
	c.RunFor(5 * time.Minute)
	p := pods(t, c)[0]
	cs := p.Status.ContainerStatuses[0]
	eq(t, "restartCount", cs.RestartCount, before.RestartCount+1)
	if cs.State.Running == nil || !cs.State.Running.StartedAt.Time.Equal(restartAt) {
		t.Errorf("state %+v: want running since the end of the back-off, %v", cs.State, restartAt)
	}
	eq(t, "ready", podCond(&p, corev1.PodReady), "True/: ")
	eq(t, "phase", p.Status.Phase, corev1.PodRunning)
	eq(t, "available", get(t, c, d).Status.AvailableReplicas, 1)
}

// podfail is a one-shot exit: the pod it failed stays Failed after the heal
// (the Job counts it once), and a pod bound after the heal gets no fault.
func TestHealPodFail(t *testing.T) {
	c := world(t, "seed 6\npodfail pod=1\npodfail pod=2\n")
	j := job("once", 1, 1, 6, map[string]string{kube.AnnotationRun: "3s"})
	if err := c.Admin().Create(ctx, j); err != nil {
		t.Fatal(err)
	}
	// The first pod fails 3s after its start (at most 1s + 5s + 3s); the
	// job controller's back-off before its replacement is 10s.
	c.RunFor(10 * time.Second)
	failed := 0
	for _, p := range pods(t, c) {
		if p.Status.Phase == corev1.PodFailed {
			failed++
		}
	}
	eq(t, "failed pods before the heal", failed, 1)
	c.Heal()
	c.RunFor(time.Minute)
	j = get(t, c, j)
	eq(t, "counters", fmt.Sprint(j.Status.Active, j.Status.Succeeded, j.Status.Failed), "0 1 1")
	phases := map[corev1.PodPhase]int{}
	for _, p := range pods(t, c) {
		phases[p.Status.Phase]++
	}
	eq(t, "phases", fmt.Sprint(phases), fmt.Sprint(map[corev1.PodPhase]int{corev1.PodFailed: 1, corev1.PodSucceeded: 1}))
}

// nodelost, healed before the eviction: the node is back, its kubelet
// writes its pod's Ready condition again within StatusSyncPeriod, and the
// pod is not evicted; the scheduler binds new pods to it again.
func TestHealNodeLostBeforeEviction(t *testing.T) {
	c := world(t, "seed 7\nnodelost node=node-1 at=30s\n")
	d := deployment("web", 2, "nginx:1")
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(85 * time.Second) // past 30s+50s: the pod on node-1 is not ready
	var lost string
	for _, p := range pods(t, c) {
		if p.Spec.NodeName == "node-1" {
			lost = p.Name
			eq(t, "ready while lost", podCond(&p, corev1.PodReady), "False/: ")
		}
	}
	c.Heal()
	heal := c.Now()
	c.RunFor(kube.StatusSyncPeriod)
	for _, p := range pods(t, c) {
		eq(t, "ready of the pod on "+p.Spec.NodeName, podCond(&p, corev1.PodReady), "True/: ")
		if p.Name == lost && readyAt(c, &p) < heal {
			t.Errorf("%s ready since %v, before the heal at %v", p.Name, readyAt(c, &p), heal)
		}
	}
	eq(t, "available after the heal", get(t, c, d).Status.AvailableReplicas, 2)

	c.RunFor(10 * time.Minute) // past the eviction the loss would have led to
	nodes := map[string][]string{}
	for _, p := range pods(t, c) {
		nodes[p.Spec.NodeName] = append(nodes[p.Spec.NodeName], p.Name)
	}
	eq(t, "the pod on node-1 kept", fmt.Sprint(nodes["node-1"]), fmt.Sprint([]string{lost}))

	d = get(t, c, d)
	d.Spec.Replicas = new(int32)
	*d.Spec.Replicas = 4
	if err := c.Admin().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	nodes = map[string][]string{}
	for _, p := range pods(t, c) {
		nodes[p.Spec.NodeName] = append(nodes[p.Spec.NodeName], p.Name)
	}
	eq(t, "spread after scaling", fmt.Sprint(len(nodes["node-1"]), len(nodes["node-2"])), "2 2")
}

// nodelost, healed after the eviction: the evicted pods stay deleted (their
// replacements run on node-2), and node-1 takes pods again.
func TestHealNodeLostAfterEviction(t *testing.T) {
	c := world(t, "seed 7\nnodelost node=node-1 at=30s\n")
	d := deployment("web", 2, "nginx:1")
	if err := c.Admin().Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(30 * time.Second)
	var evicted string
	for _, p := range pods(t, c) {
		if p.Spec.NodeName == "node-1" {
			evicted = p.Name
		}
	}
	c.RunFor(6 * time.Minute) // 390s: past 80s+300s
	c.Heal()
	c.RunFor(time.Minute)
	names := map[string]string{}
	for _, p := range pods(t, c) {
		names[p.Name] = p.Spec.NodeName
	}
	if _, ok := names[evicted]; ok || evicted == "" {
		t.Errorf("pods %v: want %q (evicted from node-1) gone", names, evicted)
	}
	st := get(t, c, d).Status
	eq(t, "status after the heal", fmt.Sprint(st.Replicas, st.ReadyReplicas, st.AvailableReplicas), "2 2 2")

	d = get(t, c, d)
	*d.Spec.Replicas = 4 // two new pods: round robin over both nodes
	if err := c.Admin().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	on1 := 0
	for _, p := range pods(t, c) {
		if p.Spec.NodeName == "node-1" {
			on1++
			eq(t, "ready of the new pod on node-1", podCond(&p, corev1.PodReady), "True/: ")
		}
	}
	eq(t, "pods on node-1 after scaling", on1, 1)
}

// A world whose workload faults are healed mid-run is deterministic too.
func TestDeterminismWithHeal(t *testing.T) {
	p, err := plan.Parse("seed 9\nnotready pod=2\ncrashloop pod=3\nnodelost node=node-2 at=20s\n")
	if err != nil {
		t.Fatal(err)
	}
	err = cluster.CheckDeterminism(p, options(p), func(c *cluster.Cluster) {
		if err := c.Admin().Create(ctx, deployment("web", 3, "nginx:1")); err != nil {
			t.Fatal(err)
		}
		c.RunFor(90 * time.Second)
		c.Heal()
		c.RunFor(3 * time.Minute)
	})
	if err != nil {
		t.Fatal(err)
	}
}
