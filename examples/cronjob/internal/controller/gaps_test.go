package controller

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/robfig/cron"
	kbatch "k8s.io/api/batch/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"
)

// fieldNames are the names of the fields of struct type T.
func fieldNames[T any]() []string {
	var out []string
	for f := range reflect.TypeFor[T]().Fields() {
		out = append(out, f.Name)
	}
	return out
}

func TestASchedulesTimesAreTheClocksZoneWithNoZoneOfItsOwn(t *testing.T) {
	if slices.Contains(fieldNames[batchv1.CronJobSpec](), "TimeZone") {
		t.Errorf("CronJobSpec has a TimeZone field")
	}
	for _, s := range []string{"0 * * * * *", "CRON_TZ=Europe/Paris 0 3 * * *"} {
		if _, err := cron.ParseStandard(s); err == nil {
			t.Errorf("ParseStandard(%q) parses: want five fields or a descriptor only", s)
		}
	}
	if _, err := cron.ParseStandard("@hourly"); err != nil {
		t.Errorf("ParseStandard(@hourly): %v", err)
	}
	// 03:00 every day, read in the zone of the clock's times (two hours east
	// of UTC): due at 03:00 there, 01:00 UTC.
	east := time.FixedZone("east", 2*60*60)
	sched, err := cron.ParseStandard("0 3 * * *")
	if err != nil {
		t.Fatal(err)
	}
	created := time.Date(2000, 1, 1, 0, 0, 0, 0, east)
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{CreationTimestamp: metav1.Time{Time: created}}}
	run, _ := dueTime(sched, cj, nil, created.Add(3*time.Hour+30*time.Minute))
	if want := time.Date(2000, 1, 1, 1, 0, 0, 0, time.UTC); !run.Equal(want) {
		t.Errorf("due %v, want 03:00 of the clock's zone (%v)", run, want)
	}
	// However many times were missed, the latest is due, with no warning
	// (there is nowhere to put one).
	every, err := cron.ParseStandard("*/1 * * * *")
	if err != nil {
		t.Fatal(err)
	}
	if run, _ := dueTime(every, cj, nil, created.Add(1000*time.Minute)); !run.Equal(created.Add(1000 * time.Minute)) {
		t.Errorf("after 1,000 missed minutes due %v, want the latest", run)
	}
}

func TestTheStatusIsActiveAndLastScheduleTimeAndNoEventIsRecorded(t *testing.T) {
	if got, want := fieldNames[batchv1.CronJobStatus](), []string{"Active", "LastScheduleTime"}; !slices.Equal(got, want) {
		t.Errorf("CronJobStatus fields %v, want %v (no conditions)", got, want)
	}
	for f := range reflect.TypeFor[CronJobReconciler]().Fields() {
		if strings.Contains(f.Type.String(), "record.") || strings.Contains(f.Type.String(), "events.") {
			t.Errorf("the reconciler has an event recorder: %s %s", f.Name, f.Type)
		}
	}
}

func TestAJobOfAnotherWithARunsNameBlocksTheRunUntilItsDeadline(t *testing.T) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, batchv1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	t0 := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	cj := &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "hello", UID: "u1",
		CreationTimestamp: metav1.Time{Time: t0}},
		Spec: batchv1.CronJobSpec{Schedule: "*/1 * * * *", ConcurrencyPolicy: batchv1.AllowConcurrent,
			StartingDeadlineSeconds: ptr.To[int64](30)}}
	squatter := &kbatch.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "default",
		Name: fmt.Sprintf("hello-%d", t0.Add(time.Minute).Unix())}}
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(cj, squatter).WithStatusSubresource(cj).
		WithIndex(&kbatch.Job{}, jobOwnerField, func(o client.Object) []string {
			if name := ownerName(o.(*kbatch.Job)); name != "" {
				return []string{name}
			}
			return nil
		}).Build()
	clk := clocktesting.NewFakePassiveClock(t0)
	r := &CronJobReconciler{Client: c, APIReader: c, Scheme: s, Clock: clk}
	req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(cj)}
	ctx := context.Background()
	for _, step := range []struct {
		at      time.Duration
		exists  bool // the create fails with AlreadyExists
		created string
	}{
		{time.Minute + 5*time.Second, true, ""},
		{time.Minute + 25*time.Second, true, ""},
		{time.Minute + 45*time.Second, false, ""}, // 00:01 is past its deadline
		{2*time.Minute + 5*time.Second, false, fmt.Sprintf("hello-%d", t0.Add(2*time.Minute).Unix())},
	} {
		clk.SetTime(t0.Add(step.at))
		_, err := r.Reconcile(ctx, req)
		if got := apierrors.IsAlreadyExists(err); got != step.exists || !step.exists && err != nil {
			t.Errorf("at %v: %v; want AlreadyExists %v", step.at, err, step.exists)
		}
		if step.created != "" {
			var job kbatch.Job
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: step.created}, &job); err != nil {
				t.Errorf("at %v: the run's Job: %v", step.at, err)
			}
		}
	}
}
