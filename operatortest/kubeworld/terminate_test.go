package kubeworld_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// runningPod creates a bare pod, lets the scheduler bind it and its
// containers run, and returns it.
func runningPod(t *testing.T, c *cluster.Cluster, name string, grace int64, preStop *corev1.LifecycleHandler) *corev1.Pod {
	t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To(grace),
			Containers: []corev1.Container{{Name: "app", Image: "nginx:1"}}}}
	if preStop != nil {
		p.Spec.Containers[0].Lifecycle = &corev1.Lifecycle{PreStop: preStop}
	}
	if err := c.Admin().Create(ctx, p); err != nil {
		t.Fatal(err)
	}
	c.RunFor(10 * time.Second)
	p = get(t, c, p)
	if p.Status.Phase != corev1.PodRunning {
		t.Fatalf("pod %s is %s, want Running", name, p.Status.Phase)
	}
	return p
}

// podEvents records the watch events of pod name from now on.
func podEvents(c *cluster.Cluster, name string) *[]apiserver.Event {
	var got []apiserver.Event
	c.Server.Watcher().Watch(corev1.SchemeGroupVersion.WithKind("Pod"), func(e apiserver.Event) {
		if e.Object.GetName() == name {
			got = append(got, e)
		}
	})
	return &got
}

// deleted returns when pod was removed (its Deleted event), or false.
func deleted(evs []apiserver.Event) (time.Time, *corev1.Pod, bool) {
	for _, e := range evs {
		if e.Type == watch.Deleted {
			return e.At, e.Object.(*corev1.Pod), true
		}
	}
	return time.Time{}, nil, false
}

// A deleted pod stays Terminating (deletionTimestamp, grace period) while
// its kubelet stops its containers, within the grace period; the kubelet
// then writes their terminated status and deletes the pod with grace 0.
func TestADeletedPodStaysTerminatingUntilItsContainersStop(t *testing.T) {
	c := world(t, "seed 3\n")
	p := runningPod(t, c, "web", 30, nil)
	evs := podEvents(c, "web")
	at := c.Clock.Now()
	if err := c.Admin().Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	got := get(t, c, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web"}})
	if got.DeletionTimestamp == nil || ptr.Deref(got.DeletionGracePeriodSeconds, 0) != 30 {
		t.Fatalf("after the delete: deletionTimestamp %v, grace %v; want Terminating with 30s", got.DeletionTimestamp, got.DeletionGracePeriodSeconds)
	}
	c.RunFor(31 * time.Second)
	gone, last, ok := deleted(*evs)
	if !ok {
		t.Fatal("the pod is still there 31s after its delete with a 30s grace period")
	}
	if took := gone.Sub(at); took <= 0 || took > 30*time.Second {
		t.Errorf("the pod went %v after its delete, want within (0, 30s]", took)
	}
	cs := last.Status.ContainerStatuses
	if len(cs) != 1 || cs[0].State.Terminated == nil || !isTerminalPhase(last.Status.Phase) {
		t.Errorf("the pod's last status: phase %s, containers %+v; want terminated containers and a terminal phase", last.Status.Phase, cs)
	}
}

// The preStop hook runs first and counts in the grace period: a container
// whose hook sleeps 20s stops no sooner than 20s after the delete.
func TestAPreStopSleepKeepsThePodTerminatingAtLeastThatLong(t *testing.T) {
	for _, seed := range []string{"seed 1\n", "seed 2\n", "seed 3\n"} {
		c := world(t, seed)
		p := runningPod(t, c, "web", 30, &corev1.LifecycleHandler{Sleep: &corev1.SleepAction{Seconds: 20}})
		evs := podEvents(c, "web")
		at := c.Clock.Now()
		if err := c.Admin().Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
		c.RunFor(40 * time.Second)
		gone, _, ok := deleted(*evs)
		if !ok {
			t.Fatalf("%sthe pod is still there 40s after its delete", seed)
		}
		if took := gone.Sub(at); took < 20*time.Second || took > 30*time.Second {
			t.Errorf("%sthe pod went %v after its delete, want within [20s, 30s]", seed, took)
		}
	}
}

// A container's process exits on SIGTERM within seconds, however long the
// grace period: a pod deleted with a week's grace (604800s) and a preStop
// hook that is not a sleep is gone within a minute, its containers exited 0.
func TestAPodWithAWeeksGraceIsGoneWithinAMinuteOfItsDeletion(t *testing.T) {
	hook := &corev1.LifecycleHandler{Exec: &corev1.ExecAction{Command: []string{"/bin/sh", "-c", "until [ -f /tmp/marked ]; do sleep 1; done"}}}
	for _, seed := range []string{"seed 1\n", "seed 2\n", "seed 3\n"} {
		c := world(t, seed)
		p := runningPod(t, c, "broker", 604800, hook)
		evs := podEvents(c, "broker")
		at := c.Clock.Now()
		if err := c.Admin().Delete(ctx, p); err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Minute)
		gone, last, ok := deleted(*evs)
		if !ok {
			t.Fatalf("%sthe pod with a week's grace is still there a minute after its delete", seed)
		}
		if took := gone.Sub(at); took <= 0 || took > 10*time.Second {
			t.Errorf("%sthe pod went %v after its delete, want within (0, 10s]: a hook and a SIGTERM take seconds", seed, took)
		}
		if cs := last.Status.ContainerStatuses; len(cs) != 1 || cs[0].State.Terminated == nil || cs[0].State.Terminated.ExitCode != 0 {
			t.Errorf("%sthe pod's last container status %+v, want terminated with 0 (exited on SIGTERM)", seed, cs)
		}
	}
}

// stubbornPod runs a world whose kubelet's containers of image stubborn:1
// ignore SIGTERM (Delays.IgnoresSIGTERM), with a running pod of one such
// container and a 600s grace period.
func stubbornPod(t *testing.T) (*cluster.Cluster, *corev1.Pod) {
	t.Helper()
	p, err := plan.Parse("seed 2\n")
	if err != nil {
		t.Fatal(err)
	}
	o := options(p)()
	ignores := func(_ *corev1.Pod, c corev1.Container) bool { return c.Image == "stubborn:1" }
	o.Processes[1] = kubeworld.Kubelet(p, nil, kubeworld.Delays{IgnoresSIGTERM: ignores})
	c, err := cluster.New(p, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "stubborn"},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To[int64](600),
			Containers: []corev1.Container{{Name: "app", Image: "nginx:1"}, {Name: "side", Image: "stubborn:1"}}}}
	if err := c.Admin().Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	c.RunFor(10 * time.Second)
	return c, pod
}

// A container whose process ignores SIGTERM (Delays.IgnoresSIGTERM) runs
// until the grace period runs out and is killed then (137); until then the
// kubelet's process says the kill is scheduled (process.Scheduled, which a
// run's end waits for).
func TestAContainerThatIgnoresSIGTERMIsKilledAtTheGracePeriodsEnd(t *testing.T) {
	c, pod := stubbornPod(t)
	evs := podEvents(c, "stubborn")
	at := c.Clock.Now()
	if err := c.Admin().Delete(ctx, pod); err != nil {
		t.Fatal(err)
	}
	c.RunFor(599 * time.Second)
	if _, _, ok := deleted(*evs); ok {
		t.Fatal("the pod went before its 600s grace period ran out, though a container ignores SIGTERM")
	}
	kubelet := c.Process(kubeworld.KubeletProcess)
	if s := kubelet.Scheduled(); len(s) != 1 || s[0].Kind != "Pod" || s[0].Key != "default/stubborn" || s[0].At.Sub(at) < 600*time.Second || s[0].At.Sub(at) > 601*time.Second {
		t.Errorf("scheduled %+v a second before the grace period's end, want the kill of Pod default/stubborn at it", s)
	}
	c.RunFor(2 * time.Second)
	if s := kubelet.Scheduled(); len(s) != 0 {
		t.Errorf("scheduled %+v after the kill, want nothing", s)
	}
	gone, last, ok := deleted(*evs)
	if !ok {
		t.Fatal("the pod is still there after its 600s grace period")
	}
	if took := gone.Sub(at); took < 600*time.Second || took > 601*time.Second {
		t.Errorf("the pod went %v after its delete, want at the grace period's end (600s, and the kubelet's reaction)", took)
	}
	for _, cs := range last.Status.ContainerStatuses {
		if cs.State.Terminated == nil || cs.State.Terminated.ExitCode != 137 {
			t.Errorf("container %s's last state %+v, want killed (137)", cs.Name, cs.State)
		}
	}
}

// A force delete (grace 0) removes the pod at once, kubelet or not.
func TestAForceDeletedPodIsGoneAtOnce(t *testing.T) {
	c := world(t, "seed 3\n")
	p := runningPod(t, c, "web", 30, nil)
	if err := c.Admin().Delete(ctx, p, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(client.ObjectKeyFromObject(p), &corev1.Pod{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after a force delete: %v, want NotFound", err)
	}
}

// A pod force-deleted while its kill is scheduled is gone: the kubelet has
// nothing left to stop, and schedules nothing.
func TestAForceDeletedPodsScheduledKillIsForgotten(t *testing.T) {
	c, pod := stubbornPod(t)
	if err := c.Admin().Delete(ctx, pod); err != nil {
		t.Fatal(err)
	}
	c.RunFor(10 * time.Second)
	kubelet := c.Process(kubeworld.KubeletProcess)
	if s := kubelet.Scheduled(); len(s) != 1 {
		t.Fatalf("scheduled %+v after a graceful delete, want the kill", s)
	}
	if err := c.Admin().Delete(ctx, pod, client.GracePeriodSeconds(0)); err != nil {
		t.Fatal(err)
	}
	c.RunFor(10 * time.Second)
	if err := c.Get(client.ObjectKeyFromObject(pod), &corev1.Pod{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get after a force delete: %v, want NotFound", err)
	}
	if s := kubelet.Scheduled(); len(s) != 0 {
		t.Errorf("scheduled %+v after the force delete, want nothing", s)
	}
}

func isTerminalPhase(p corev1.PodPhase) bool {
	return p == corev1.PodSucceeded || p == corev1.PodFailed
}
