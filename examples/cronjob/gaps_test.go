package cronjob_test

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	kbatch "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"

	"github.com/ctrlsim/ctrlsim/examples/cronjob"
	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/explore"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

func TestASeedObjectIsNotAdmittedByTheWebhooks(t *testing.T) {
	o := operatorOptions(t, cronjob.Correct)
	bare, err := cronjob.NewCronJob(plan.Args{{Key: "policy", Value: "Forbid"}, {Key: "duration", Value: "90s"}})
	if err != nil {
		t.Fatal(err)
	}
	o.Objects = []client.Object{bare}
	r := faultfree.Replay(t, o)
	var cj batchv1.CronJob
	if err := r.Final.Get(client.ObjectKeyFromObject(bare), &cj); err != nil {
		t.Fatal(err)
	}
	if s := cj.Spec; s.Suspend != nil || s.SuccessfulJobsHistoryLimit != nil || s.FailedJobsHistoryLimit != nil {
		t.Errorf("the seed CronJob has suspend %v and history limits %v, %v; want none, as the webhook would have set them",
			s.Suspend, s.SuccessfulJobsHistoryLimit, s.FailedJobsHistoryLimit)
	}
}

// plans draws n plans of the package's explorations (the sample with
// Forbid, and the drawn CronJobs) and hands each to f.
func plans(t *testing.T, n int, f func(p *plan.Plan) error) {
	t.Helper()
	for _, w := range []*rapid.Generator[[]plan.Step]{rapid.Just(forbidSample), drawnCronJob} {
		seen := 0
		res := explore.Run(plan.Generator(space(w)), n, 1, func(p *plan.Plan) error { seen++; return f(p) })
		if res.Caught {
			t.Errorf("%s\n%s", res.Failure, res.Minimal)
		}
		if seen < n {
			t.Errorf("%d plans drawn, want %d", seen, n)
		}
	}
}

func TestNoPlanFailsAJobOrDeletesTheCronJob(t *testing.T) {
	if o := operatorOptions(t, cronjob.Correct); o.WorkloadFaults {
		t.Errorf("operatortest draws workload faults on the operator")
	}
	if s := space(drawnCronJob); s.Pods != 0 {
		t.Errorf("the explorations draw faults on %d pods", s.Pods)
	}
	plans(t, 50, func(p *plan.Plan) error {
		for _, f := range p.Faults {
			if f.Kind == plan.PodFail || f.Kind == plan.CrashLoop {
				return fmt.Errorf("a %s fault", f.Kind)
			}
		}
		for _, s := range p.Steps {
			if s.Action != "create-cronjob" || s.Args.Get("failed") != "" {
				return fmt.Errorf("a step %s %v", s.Action, s.Args)
			}
		}
		return nil
	})
}

func TestARunHasOneCronJobOnAOneMinuteSchedule(t *testing.T) {
	plans(t, 50, func(p *plan.Plan) error {
		if len(p.Steps) != 1 || p.Steps[0].At != 0 || p.Steps[0].Args.Get("schedule") != "" {
			return fmt.Errorf("the workload is %v, want one create-cronjob at 0 s on the sample's schedule", p.Steps)
		}
		return nil
	})
	if cj, err := cronjob.NewCronJob(nil); err != nil || cj.Spec.Schedule != "*/1 * * * *" {
		t.Errorf("the sample's schedule: %v, want */1 * * * *", err)
	}
}

func TestTheAtRestPropertiesAreJudgedOnASuspendedCronJob(t *testing.T) {
	var suspended *bool
	_, err := cronjob.Run(t, &plan.Plan{Seed: 1, Steps: create()}, cronjob.Correct, func(c *cluster.Cluster) {
		var cj batchv1.CronJob
		if err := c.Admin().Get(t.Context(), client.ObjectKey{Namespace: cronjob.Namespace, Name: cronjob.Name}, &cj); err != nil {
			t.Fatal(err)
		}
		suspended = cj.Spec.Suspend
	})
	if err != nil {
		t.Fatal(err)
	}
	if suspended == nil || !*suspended {
		t.Errorf("the CronJob judged at rest has suspend %v, want true (Drive suspends it)", suspended)
	}
}

func TestForbidIsNotJudgedOverAJobMadeBeforeThePolicyBecameForbid(t *testing.T) {
	start := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	cj := func(policy batchv1.ConcurrencyPolicy) *batchv1.CronJob {
		return &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello", UID: "cj"},
			Spec: batchv1.CronJobSpec{ConcurrencyPolicy: policy}}
	}
	job := func(name string) *kbatch.Job {
		j := &kbatch.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name)}}
		j.OwnerReferences = []metav1.OwnerReference{{APIVersion: batchv1.GroupVersion.String(), Kind: "CronJob",
			Name: "hello", UID: "cj", Controller: ptr.To(true)}}
		return j
	}
	cronJobGVK, jobGVK := batchv1.GroupVersion.WithKind("CronJob"), kbatch.SchemeGroupVersion.WithKind("Job")
	ev := func(at time.Duration, typ watch.EventType, obj client.Object) apiserver.Event {
		gvk := jobGVK
		if _, ok := obj.(*batchv1.CronJob); ok {
			gvk = cronJobGVK
		}
		return apiserver.Event{Type: typ, GVK: gvk, Object: obj, At: start.Add(at)}
	}
	log := []apiserver.Event{
		ev(0, watch.Added, cj(batchv1.AllowConcurrent)),
		ev(time.Minute, watch.Added, job("hello-1")),
		ev(70*time.Second, watch.Modified, cj(batchv1.ForbidConcurrent)),
		ev(2*time.Minute, watch.Added, job("hello-2")), // hello-1 still runs
	}
	if vs := cronjob.ForbidNeverOverlaps(&check.Run{Log: log, Start: start}); len(vs) != 0 {
		t.Errorf("a Job made under Forbid while one made under Allow runs: %v, want not judged", vs)
	}
	// Forbid throughout, the same overlap is judged.
	log[0] = ev(0, watch.Added, cj(batchv1.ForbidConcurrent))
	if vs := cronjob.ForbidNeverOverlaps(&check.Run{Log: log, Start: start}); !vs.Has("forbid-never-overlaps") {
		t.Errorf("the overlap under Forbid throughout: %v, want judged", vs)
	}
}
