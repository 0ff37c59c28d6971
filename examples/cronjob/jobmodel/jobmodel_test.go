package jobmodel_test

import (
	"context"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/cronjob/jobmodel"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

func job(name string, command, args []string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever,
			Containers:    []corev1.Container{{Name: "c", Image: "busybox", Command: command, Args: args}},
		}}},
	}
}

// A Job runs as long as its container's "sleep N" says, else the default.
func TestDurationIsTheContainersSleep(t *testing.T) {
	r := &jobmodel.Reconciler{Default: 30 * time.Second}
	for _, tc := range []struct {
		command, args []string
		want          time.Duration
	}{
		{nil, []string{"/bin/sh", "-c", "sleep 90; date"}, 90 * time.Second},
		{[]string{"sleep"}, []string{"5"}, 5 * time.Second},
		{[]string{"/bin/sh", "-c", "date && sleep 7&& echo"}, nil, 7 * time.Second},
		{nil, []string{"/bin/sh", "-c", "date; echo Hello"}, 30 * time.Second},
		{nil, []string{"sleep", "forever"}, 30 * time.Second},
	} {
		if got := r.Duration(job("j", tc.command, tc.args)); got != tc.want {
			t.Errorf("command %q args %q: %v, want %v", tc.command, tc.args, got, tc.want)
		}
	}
}

// In a world of its own, the model starts a Job at once and completes it its
// duration after its creation, with the status the Job controller writes.
func TestAJobStartsAndCompletes(t *testing.T) {
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: "kube-controller-manager", Setup: func(p *process.Process) error {
			mgr := p.Manager()
			return (&jobmodel.Reconciler{Client: mgr.GetClient(), Clock: p.Clock(), Default: time.Minute}).SetupWithManager(mgr)
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(context.Background(), job("j", nil, []string{"/bin/sh", "-c", "sleep 20; date"}))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	get := func() *batchv1.Job {
		j := &batchv1.Job{}
		if err := c.Get(client.ObjectKey{Namespace: "default", Name: "j"}, j); err != nil {
			t.Fatal(err)
		}
		return j
	}
	c.RunFor(10 * time.Second)
	if j := get(); j.Status.StartTime == nil || j.Status.Active != 1 || jobmodel.Finished(j) {
		t.Fatalf("10 s in, the Job should be running: %+v", j.Status)
	}
	c.RunFor(20 * time.Second)
	j := get()
	if !jobmodel.Finished(j) || j.Status.Succeeded != 1 || j.Status.Active != 0 || j.Status.CompletionTime == nil {
		t.Fatalf("30 s in, the 20 s Job should have succeeded: %+v", j.Status)
	}
	if ran := j.Status.CompletionTime.Sub(j.CreationTimestamp.Time); ran < 20*time.Second || ran > 21*time.Second {
		t.Errorf("the Job completed %v after its creation, want 20 s (and a reconcile's latency)", ran)
	}
}
