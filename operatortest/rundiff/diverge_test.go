package rundiff

import (
	"strings"

	"github.com/ctrlsim/ctrlsim/sim/trace"

	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// What two runs' writes of one object differ in is told as fields, named as
// Options.Nondeterministic names them (through a list: the field of every
// item); a list whose items are the same in another order, as its order.
func TestTwoWritesDifferInFieldsOrInAListsOrder(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b map[string]string
		want []string
	}{
		{"a text rendered in another order", map[string]string{"data.ports": `"a=1\nb=2"`}, map[string]string{"data.ports": `"b=2\na=1"`}, []string{"data.ports"}},
		{"a list in another order",
			map[string]string{"spec.ports[0].name": `"a"`, "spec.ports[0].port": "1", "spec.ports[1].name": `"b"`, "spec.ports[1].port": "2", "spec.selector.app": `"x"`},
			map[string]string{"spec.ports[0].name": `"b"`, "spec.ports[0].port": "2", "spec.ports[1].name": `"a"`, "spec.ports[1].port": "1", "spec.selector.app": `"x"`},
			[]string{"spec.ports (its order)"}},
		{"a list's item changed",
			map[string]string{"spec.ports[0].name": `"a"`, "spec.ports[0].port": "1"},
			map[string]string{"spec.ports[0].name": `"a"`, "spec.ports[0].port": "2"},
			[]string{"spec.ports.port"}},
		{"a field only one has", map[string]string{"status.token": `"x"`}, map[string]string{}, []string{"status.token"}},
	} {
		if got := differingFields(c.a, c.b); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// Two runs of one plan that made the same objects in another order agree:
// a uid is the apiserver's count of the objects made before it and a
// generated name its draw, so both are compared as the oracles name them
// (an EndpointSlice by its Service, its owner by name), not as stored.
func TestTwoRunsThatMadeTheSameObjectsInAnotherOrderAgree(t *testing.T) {
	w := &world.World{Shapes: canon.NewShapes(nil, clientgoscheme.Scheme)}
	svc := func(uid string) client.Object {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: types.UID(uid)}}
	}
	cm := func(uid string) client.Object {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-ports", UID: types.UID(uid)}}
	}
	slice := func(uid, name, owner string) client.Object {
		return &discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, GenerateName: "web-", UID: types.UID(uid),
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Service", Name: "web", UID: types.UID(owner)}}}}
	}
	added := func(objs ...client.Object) *world.RunResult {
		r := &world.RunResult{}
		for i, o := range objs {
			gvks, _, _ := clientgoscheme.Scheme.ObjectKinds(o)
			r.Log = append(r.Log, apiserver.Event{Type: watch.Added, GVK: gvks[0], Object: o, ResourceVersion: uint64(i + 1)})
		}
		return r
	}
	const u1, u2, u3 = "00000000-0000-4000-8000-000000000001", "00000000-0000-4000-8000-000000000002", "00000000-0000-4000-8000-000000000003"
	a := added(svc(u1), cm(u2), slice(u3, "web-bcdfg", u1))
	b := added(cm(u1), svc(u2), slice(u3, "web-hjklm", u2))
	if d := Diverge(w, a, b, true, nil); d != nil {
		t.Errorf("modulo the equivalence, the runs differ: %s", d)
	}
	if d := Diverge(w, a, b, false, nil); d == nil {
		t.Errorf("as stored, the runs agree")
	}
}

// Where two runs differ is laid where it starts: the operator's Service
// written with its ports in another order (which the oracles ignore: the
// schema keys the list) is where, and the EndpointSlice that
// kube-controller-manager wrote after it, its ports copied in that order
// (a list the slice does not key), follows; Diverge, which compares as the
// oracles do, names only the slice.
func TestOriginIsTheFirstWriteThatDiffersAsStored(t *testing.T) {
	w := &world.World{Shapes: canon.NewShapes(nil, clientgoscheme.Scheme)}
	ports := func(names ...string) (sp []corev1.ServicePort, ep []discoveryv1.EndpointPort) {
		for i, n := range names {
			sp = append(sp, corev1.ServicePort{Name: n, Port: int32(80 + len(n))})
			ep = append(ep, discoveryv1.EndpointPort{Name: &names[i]})
		}
		return sp, ep
	}
	run := func(names ...string) *world.RunResult {
		sp, ep := ports(names...)
		r := &world.RunResult{Steps: []trace.Step{{Process: "op", RVWritten: 1}, {Process: "kube-controller-manager", RVWritten: 2}}}
		for i, o := range []client.Object{
			&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: corev1.ServiceSpec{Ports: sp}},
			&discoveryv1.EndpointSlice{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-abcde"}, Ports: ep},
		} {
			gvks, _, _ := clientgoscheme.Scheme.ObjectKinds(o)
			r.Log = append(r.Log, apiserver.Event{Type: watch.Added, GVK: gvks[0], Object: o, ResourceVersion: uint64(i + 1)})
		}
		return r
	}
	a, b := run("http", "https"), run("https", "http")
	if d := Diverge(w, a, b, true, nil); d == nil || d.Process != "kube-controller-manager" {
		t.Errorf("modulo the equivalence, the runs first differ at %v; want the EndpointSlice's write", d)
	}
	if o := Origin(w, a, b, nil); o == nil || o.Process != "op" || !strings.HasPrefix(o.Object, "Service ") || !o.Ignored {
		t.Errorf("the runs' difference starts at %+v; want the operator's write of the Service, alike as the oracles compare it", o)
	}
	c := run("http", "https")
	c.Log[0].Object.(*corev1.Service).Spec.Ports[0].Port = 1
	if o := Origin(w, a, c, nil); o == nil || o.Ignored {
		t.Errorf("the runs' difference in a port's number starts at %+v, ignored", o)
	}
	if o := Origin(w, a, a, nil); o != nil {
		t.Errorf("a run differs from itself at %v", o)
	}
}
