package world_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/sim/plan"
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
