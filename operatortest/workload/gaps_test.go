package workload_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// Every step the workload draws is a mutation under spec, a deletion or a
// re-creation of a seed object, at most MaxSteps a plan: no new object, no
// status, no metadata.
func TestTheDrawnWorkloadChangesOnlyTheSeedObjectsSpecs(t *testing.T) {
	o := optest.GadgetOptions()
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	seeds := len(o.Objects)
	kinds := map[string]int{}
	for seed := range 40 {
		steps := w.Space.Workload.Example(seed)
		if len(steps) > world.MaxSteps {
			t.Errorf("plan %d drew %d steps, more than MaxSteps (%d)", seed, len(steps), world.MaxSteps)
		}
		for _, s := range steps {
			kinds[s.Action]++
			var obj int
			if _, err := fmt.Sscan(s.Args.Get("object"), &obj); err != nil || obj < 0 || obj >= seeds {
				t.Errorf("plan %d: %s names no seed object (%d seeds)", seed, s, seeds)
			}
			switch s.Action {
			case world.ActionMutate:
				if f := s.Args.Get("field"); !strings.HasPrefix(f, "spec.") {
					t.Errorf("plan %d: %s mutates a field not under spec", seed, s)
				}
			case world.ActionDelete, world.ActionRecreate:
			default:
				t.Errorf("plan %d drew %s", seed, s)
			}
		}
	}
	if kinds[world.ActionMutate] == 0 || kinds[world.ActionDelete] == 0 {
		t.Errorf("40 plans drew %v: the test shows little", kinds)
	}
}

// A scripted patch is a JSON merge patch: a list in it replaces the
// object's list whole, where a strategic merge patch (kubectl's) would merge
// the Service's ports by port number.
func TestAScriptedPatchIsAJSONMergePatch(t *testing.T) {
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "web"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "http", Port: 80}}},
	}
	o := optest.FinalizerOptions()
	o.Workload.Script = []world.Step{world.Create(time.Second, svc), world.Patch(2*time.Second, svc, `{"spec":{"ports":[{"name":"metrics","port":9090}]}}`)}
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
	var got corev1.Service
	_, actions, exists := runPlan(t, o, text, client.ObjectKeyFromObject(svc), &got)
	if !exists {
		t.Fatalf("the scripted Service is gone; the workload's lines:\n%s", lines(actions))
	}
	if len(got.Spec.Ports) != 1 || got.Spec.Ports[0].Port != 9090 {
		t.Errorf("the Service's ports after the patch: %+v, want the patch's list alone", got.Spec.Ports)
	}
}
