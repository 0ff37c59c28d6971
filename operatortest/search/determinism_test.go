package search

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/rundiff"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A write of the operator's that differs between two runs of one plan is
// its own nondeterminism only where the reconcile that made it began from
// runs that agreed as stored. Where the runs first differ in what the
// oracles ignore (the Service's ports, a keyed list, in map order) and a
// later reconcile of the operator's writes other content (its owner
// reference, as a garbage collector's race that an extra write of the
// ports moved in time decided), the later difference is carried on from
// the first: said as the operator's, never learned as a field of its own
// to declare (which the replay of examples/mapports' twin's finding did,
// naming the Service's ownerReferences). A difference in the reconcile
// where the runs first differ is the operator's own, learned.
func TestAnOperatorsWriteAfterTheRunsDifferedInWhatTheOraclesIgnoreIsCarried(t *testing.T) {
	svc := func(label string, ports ...string) client.Object {
		s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: map[string]string{"v": label}}}
		for _, p := range ports {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: p, Port: int32(80 + len(p))})
		}
		return s
	}
	run := func(objs ...client.Object) *world.RunResult {
		r := &world.RunResult{}
		for i, o := range objs {
			rv := uint64(i + 1)
			r.Steps = append(r.Steps,
				trace.Step{Process: "op", Controller: "web", Worker: 1, Reconcile: i + 1, Op: "reconcile", Object: "shop/web"},
				trace.Step{Process: "op", Controller: "web", Worker: 1, Reconcile: i + 1, Op: "update", RVWritten: rv})
			gvks, _, _ := clientgoscheme.Scheme.ObjectKinds(o)
			r.Log = append(r.Log, apiserver.Event{Type: watch.Modified, GVK: gvks[0], Object: o, ResourceVersion: rv})
		}
		return r
	}
	newWorld := func() *world.World {
		return &world.World{Shapes: canon.NewShapes(nil, clientgoscheme.Scheme), Operators: map[string]bool{"op": true}}
	}

	w := newWorld()
	a := run(svc("1", "http", "https"), svc("1", "http", "https"), svc("x", "http", "https"))
	b := run(svc("1", "https", "http"), svc("1", "https", "http"), svc("y", "https", "http"))
	d := judgeDifference(w, diverged(t, w, a, b), "two runs", a, b)
	if d != nil {
		t.Errorf("a later reconcile's difference after the ports' order is said as the operator's own: %s (%s)", d, explorationOf(w).nondeterminism)
	}
	if c := explorationOf(w).carried; !strings.Contains(c, "Service shop/web .spec.ports (its order)") {
		t.Errorf("what was carried on is not laid at the ports' order: %q", c)
	}

	w = newWorld()
	a = run(svc("x", "http", "https"))
	b = run(svc("y", "https", "http"))
	if d := judgeDifference(w, diverged(t, w, a, b), "two runs", a, b); d == nil || !strings.Contains(explorationOf(w).nondeterminism, "metadata.labels.v") {
		t.Errorf("a difference in the reconcile where the runs first differ is not learned as the operator's own: %v, %q", d, explorationOf(w).nondeterminism)
	}
}

// diverged is where a and b differ modulo the equivalence; they must.
func diverged(t *testing.T, w *world.World, a, b *world.RunResult) *rundiff.Divergence {
	t.Helper()
	d := rundiff.Diverge(w, a, b, true, nil)
	if d == nil {
		t.Fatal("the runs agree modulo the equivalence")
	}
	return d
}
