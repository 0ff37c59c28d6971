package world_test

import (
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A deleted Namespace stays Terminating at least NamespaceTermination, empty
// or not, as one whose content's finalizers take that long; by default it
// goes as soon as it is empty.
func TestANamespaceTerminatesNoSoonerThanNamespaceTermination(t *testing.T) {
	goneAfter := func(term time.Duration) time.Duration {
		o := optest.AppOptions(optest.Child())
		o.Objects = append(o.Objects, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "old"}})
		o.NamespaceTermination = term
		o.Workload.Steps = []world.StepKind{}
		w, err := search.NewWorld(o.WithDefaults())
		if err != nil {
			t.Fatal(err)
		}
		p, err := plan.Parse("seed 1\nat 1s delete object=1\n")
		if err != nil {
			t.Fatal(err)
		}
		r, err := reference.Run(w, t, p)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range r.Log {
			if ev.Type == watch.Deleted && ev.GVK.Kind == "Namespace" && ev.Object.GetName() == "old" {
				return ev.At.Sub(r.Start) - time.Second
			}
		}
		t.Fatalf("Namespace old never went (termination %s)", term)
		return 0
	}
	if d := goneAfter(0); d > 6*time.Second {
		t.Errorf("by default the empty namespace went %s after its deletion, want within the namespace controller's grace", d)
	}
	if d := goneAfter(20 * time.Second); d < 20*time.Second {
		t.Errorf("with NamespaceTermination 20s it went %s after its deletion", d)
	}
}

// Every namespace gets its default ServiceAccount and its kube-root-ca.crt
// ConfigMap shortly after it is created, from kube-controller-manager's
// serviceaccount and root-ca-cert-publisher controllers, as on a real
// cluster: the seed objects' namespace included.
func TestANamespaceGetsItsDefaultServiceAccountAndRootCAConfigMap(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Workload.Steps = []world.StepKind{}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.Parse("seed 1\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	made := map[string]time.Duration{}
	for _, ev := range r.Log {
		if ev.Type == watch.Added && ev.Object.GetNamespace() == "team" {
			made[ev.GVK.Kind+" "+ev.Object.GetName()] = ev.At.Sub(r.Start)
		}
	}
	for _, want := range []string{"ServiceAccount default", "ConfigMap kube-root-ca.crt"} {
		at, ok := made[want]
		if !ok {
			t.Errorf("namespace team never got its %s (made: %v)", want, made)
		} else if at > 5*time.Second {
			t.Errorf("namespace team got its %s at %s, want within seconds of its creation", want, at)
		}
	}
}
