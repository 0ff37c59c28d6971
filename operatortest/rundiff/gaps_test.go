package rundiff

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// added is a run whose log adds objs, in order.
func added(objs ...client.Object) *world.RunResult {
	r := &world.RunResult{}
	for i, o := range objs {
		gvks, _, _ := clientgoscheme.Scheme.ObjectKinds(o)
		r.Log = append(r.Log, apiserver.Event{Type: watch.Added, GVK: gvks[0], Object: o, ResourceVersion: uint64(i + 1)})
	}
	return r
}

func configMap(name, value string) client.Object {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name}, Data: map[string]string{"k": value}}
}

// Two runs that write ConfigMaps a and b, each to the same content, in
// the other order agree, as stored too.
func TestTwoObjectsWrittenInTheOtherOrderShowNoDivergence(t *testing.T) {
	w := &world.World{Shapes: canon.NewShapes(nil, clientgoscheme.Scheme)}
	ra := added(configMap("a", "1"), configMap("b", "1"))
	rb := added(configMap("b", "1"), configMap("a", "1"))
	if d := Diverge(w, ra, rb, false, nil); d != nil {
		t.Errorf("the runs diverge: %s", d)
	}
}

// Two runs whose ConfigMaps a and b both differ: the divergence names a,
// whose change came first, and says nothing of b.
func TestOnlyTheFirstDivergingObjectIsTold(t *testing.T) {
	w := &world.World{Shapes: canon.NewShapes(nil, clientgoscheme.Scheme)}
	ra := added(configMap("a", "1"), configMap("b", "1"))
	rb := added(configMap("a", "2"), configMap("b", "2"))
	d := Diverge(w, ra, rb, false, nil)
	if d == nil || d.Object != "ConfigMap shop/a" || strings.Contains(d.String(), "shop/b") {
		t.Errorf("divergence %v, want ConfigMap shop/a's alone", d)
	}
}

// A list whose items are reordered and one of them changed is told as the
// fields that differ (through the list: every item's), not as its order.
func TestAListReorderedAndChangedAtOnceIsToldAsItsFields(t *testing.T) {
	a := map[string]string{"spec.ports[0].name": `"a"`, "spec.ports[0].port": "1", "spec.ports[1].name": `"b"`, "spec.ports[1].port": "2"}
	b := map[string]string{"spec.ports[0].name": `"b"`, "spec.ports[0].port": "3", "spec.ports[1].name": `"a"`, "spec.ports[1].port": "1"}
	got := differingFields(a, b)
	if want := []string{"spec.ports.name", "spec.ports.port"}; !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

// A step inserted early (one more retry) makes every later step differ:
// Steps names the first, the inserted one, and no other.
func TestStepsNamesOnlyTheFirstStepAfterAnInsertedOne(t *testing.T) {
	step := func(at time.Duration, op string) trace.Step {
		return trace.Step{At: at, Process: "op", Op: op, Object: "ConfigMap shop/web", Result: "ok"}
	}
	a := []trace.Step{step(1*time.Second, "get"), step(2*time.Second, "update"), step(3*time.Second, "get")}
	b := []trace.Step{step(1*time.Second, "get"), step(1500*time.Millisecond, "get"), step(2*time.Second, "update"), step(3*time.Second, "get")}
	got := Steps(a, b, []string{"op"}, false)
	if !strings.Contains(got, "first differing step 1:") || strings.Count(got, "exploring:") != 1 {
		t.Errorf("Steps said %q, want step 1 named alone", got)
	}
}
