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

// Every namespace has its default ServiceAccount and its kube-root-ca.crt
// ConfigMap, from kube-controller-manager's serviceaccount and
// root-ca-cert-publisher controllers, as on a real cluster: the system
// namespaces' and the seed objects' namespace's from before the run (the
// cluster's bootstrap: in the log before time starts, no write of the run),
// a namespace made during the run's within seconds of its creation, by
// kube-controller-manager's writes.
func TestANamespaceGetsItsDefaultServiceAccountAndRootCAConfigMap(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Workload.Steps = []world.StepKind{}
	o.Workload.Script = []world.Step{world.Create(5*time.Second, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "late"}})}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	text := "seed 1\n"
	for _, s := range w.Space.Workload.Example(0) {
		if s.Script {
			text += s.String() + "\n"
		}
	}
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	type made struct {
		at      time.Duration
		setUp   bool
		process string
	}
	by := map[uint64]string{}
	for _, s := range r.Steps {
		if s.RVWritten > 0 {
			by[s.RVWritten] = s.Process
		}
	}
	content := map[string]made{}
	for i, ev := range r.Log {
		if k := ev.GVK.Kind + " " + ev.Object.GetName(); k == "ServiceAccount default" || k == "ConfigMap kube-root-ca.crt" {
			if _, ok := content[ev.Object.GetNamespace()+" "+k]; ok || ev.Type != watch.Added {
				t.Errorf("%s %s/%s at %s: want it made once, never changed", ev.Type, ev.Object.GetNamespace(), k, ev.At.Sub(r.Start))
			}
			content[ev.Object.GetNamespace()+" "+k] = made{ev.At.Sub(r.Start), i < r.SetUp, by[ev.ResourceVersion]}
		}
	}
	for _, ns := range []string{"default", "kube-node-lease", "kube-public", "kube-system", "team", "late"} {
		for _, k := range []string{"ServiceAccount default", "ConfigMap kube-root-ca.crt"} {
			m, ok := content[ns+" "+k]
			switch {
			case !ok:
				t.Errorf("namespace %s never got its %s", ns, k)
			case ns != "late" && !m.setUp:
				t.Errorf("namespace %s got its %s at %s (by %q), want it from the cluster's bootstrap", ns, k, m.at, m.process)
			case ns == "late" && (m.setUp || m.at < 5*time.Second || m.at > 10*time.Second || m.process != world.KubeControllerManager):
				t.Errorf("namespace late (made at 5s) got its %s at %s by %q, want it within seconds by %s", k, m.at, m.process, world.KubeControllerManager)
			}
		}
	}
}
