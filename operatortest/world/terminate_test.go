package world_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A deleted pod's containers exit on SIGTERM within seconds, unless
// Options.IgnoreSIGTERM names one (here by its image without the tag): then
// the pod stays Terminating for its whole grace period.
func TestIgnoreSIGTERMKeepsADeletedPodForItsGracePeriod(t *testing.T) {
	goneAfter := func(ignore []string) time.Duration {
		o := optest.AppOptions(optest.Child())
		o.Objects = append(o.Objects, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "broker"},
			Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To[int64](90),
				Containers: []corev1.Container{{Name: "broker", Image: "registry.example/broker:3.13"}}}})
		o.IgnoreSIGTERM = ignore
		w, err := search.NewWorld(o.WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		p, err := plan.Parse("seed 1\nat 10s delete object=1\n")
		if err != nil {
			t.Fatal(err)
		}
		r, err := reference.Run(w, t, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range r.Log {
			if ev.Type == watch.Deleted && ev.GVK.Kind == "Pod" && ev.Object.GetName() == "broker" {
				return ev.At.Sub(r.Start) - 10*time.Second
			}
		}
		t.Fatalf("pod broker never went (IgnoreSIGTERM %q)", ignore)
		return 0
	}
	if d := goneAfter(nil); d > 10*time.Second {
		t.Errorf("by default the pod went %s after its deletion, want within seconds (its process exits on SIGTERM)", d)
	}
	if d := goneAfter([]string{"registry.example/broker"}); d < 90*time.Second || d > 91*time.Second {
		t.Errorf("with IgnoreSIGTERM naming its image the pod went %s after its deletion, want at its 90s grace period's end", d)
	}
}

// A pod whose container ignores SIGTERM, deleted at the fault phase's end
// (1m) with a 2m grace period (the heal budget's), is killed at the grace's
// end, 1 ms past the heal budget (the kubelet saw the deletion 1 ms after
// it): the run waits for the kill its kubelet has already scheduled, as a
// real cluster makes it, and gives the world a heal budget more; the pod is
// gone, not stuck. Its twin, held by a finalizer nobody removes, is still
// deleting after the kill and the heal budget more, and terminates catches it.
func TestAPodsKillDueAtTheRunsEndIsWaitedFor(t *testing.T) {
	terminates := func(finalizers ...string) check.Verdict {
		o := optest.AppOptions(optest.Child())
		o.Objects = append(o.Objects, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "cache", Finalizers: finalizers},
			Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To[int64](120),
				Containers: []corev1.Container{{Name: "cache", Image: "registry.example/cache:7"}}}})
		o.IgnoreSIGTERM = []string{"cache"}
		v, steps := optest.JudgeVerdict(t, o, "seed 1\nat 60s delete object=1\n", world.Terminates)
		waited := slices.ContainsFunc(steps, func(s trace.Step) bool {
			return s.Op == "scheduled" && s.At > 3*time.Minute && strings.Contains(s.Result, "Pod team/cache: its containers are killed (137)")
		})
		if !waited {
			t.Errorf("finalizers %v: no step \"scheduled\" for the kill of Pod team/cache past the heal budget", finalizers)
		}
		return v
	}
	if v := terminates(); !v.Holds || len(v.Excused) > 0 {
		t.Errorf("a pod killed at its grace period's end, just past the heal budget: %+v, want it to hold (gone, no excuse)", v)
	}
	if v := terminates("example.com/keep"); v.Holds || !strings.Contains(v.Detail, "Pod team/cache") {
		t.Errorf("a pod held by a finalizer nobody removes: %+v, want it stuck", v)
	}
}
