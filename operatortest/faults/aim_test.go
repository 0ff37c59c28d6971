package faults

import (
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// referenceSteps are a fault-free run's steps: the operator's writes, its
// reads, a Lease renewal, an Event, the workload's and a model's writes, and
// a write after the fault phase.
var referenceSteps = []trace.Step{
	{At: 1 * time.Second, Process: "op", Op: "get", Object: "ConfigMap shop/web", Result: "ok"},
	{At: 2 * time.Second, Process: "op", Op: "create", Object: "Secret shop/web-mirror", Result: "ok"},
	{At: 3 * time.Second, Process: "op", Op: "update", Object: "ConfigMap shop/web", RVSeen: 7, RVCurrent: 7, Result: "ok"},
	{At: 3 * time.Second, Process: "op", Op: "update", Object: "Lease ops/op", RVSeen: 5, RVCurrent: 5, Result: "ok"},
	{At: 3 * time.Second, Process: "op", Op: "create", Object: "Event shop/web.1", Result: "ok"},
	{At: 4 * time.Second, Process: "op", Op: "patch", Object: "Deployment shop/web", RVSeen: 9, RVCurrent: 9, Result: "ok"},
	{At: 4 * time.Second, Process: "op", Op: "update/status", Object: "Pod shop/web-0", Result: "Conflict"},
	{At: 5 * time.Second, Process: "", Op: "delete", Object: "ConfigMap shop/web", Result: "ok"},
	{At: 5 * time.Second, Process: "kube-controller-manager", Op: "delete", Object: "Secret shop/web-mirror", Result: "ok"},
	{At: 6 * time.Second, Process: "op", Op: "delete", Object: "Namespace shop", Result: "ok"},
	{At: 2 * time.Minute, Process: "op", Op: "delete", Object: "Secret shop/late", Result: "ok"},
}

func testWorld(f Profile) World {
	return World{Profile: f, Space: &plan.Space{Processes: []string{"op"}}, Scheme: clientgoscheme.Scheme, FaultPhase: time.Minute}
}

// The API errors drawn by default are the operator's own successful writes
// of the fault phase, each failing once as a real apiserver fails one: a
// 500, a 429 and an ambiguous write (no 409 on its own: a conflict is
// another write, and the ambiguous write draws one whole); a create's has no name (its request has none). Reads,
// Leases, Events, failed writes, other processes' writes and the writes
// after the fault phase are not aimed at.
func TestTheAPIErrorsDrawnAreTheOperatorsOwnWritesOfTheFaultFreeRun(t *testing.T) {
	got := testWorld(Profile{}).APIFaultsOf(referenceSteps)
	var text []string
	for _, a := range got {
		text = append(text, a.At.String()+" "+a.Fault.String())
	}
	want := []string{
		"2s process=op verb=create resource=secrets namespace=shop code=500 count=1",
		"2s process=op verb=create resource=secrets namespace=shop code=429 count=1",
		"2s process=op verb=create resource=secrets namespace=shop ambiguous=true count=1",
		"3s process=op verb=update resource=configmaps namespace=shop name=web code=500 count=1",
		"3s process=op verb=update resource=configmaps namespace=shop name=web code=429 count=1",
		"3s process=op verb=update resource=configmaps namespace=shop name=web ambiguous=true count=1",
		"4s process=op verb=patch resource=deployments namespace=shop name=web code=500 count=1",
		"4s process=op verb=patch resource=deployments namespace=shop name=web code=429 count=1",
		"4s process=op verb=patch resource=deployments namespace=shop name=web ambiguous=true count=1",
		"6s process=op verb=delete resource=namespaces name=shop code=500 count=1",
		"6s process=op verb=delete resource=namespaces name=shop code=429 count=1",
		"6s process=op verb=delete resource=namespaces name=shop ambiguous=true count=1",
	}
	if !slices.Equal(text, want) {
		t.Errorf("drew\n%q\nwant\n%q", text, want)
	}
}

// The profile narrows them: its processes, its objects, and the API
// templates without a Code, which select the requests aimed at.
func TestTheProfileNarrowsTheAPIErrorsDrawn(t *testing.T) {
	for _, c := range []struct {
		name string
		f    Profile
		want []string // the requests aimed at, "verb resource name"
	}{
		{"objects", Profile{Objects: []types.NamespacedName{{Namespace: "shop", Name: "web"}}}, []string{"update configmaps web", "patch deployments web"}},
		{"selector", Profile{API: []apiserver.Fault{{Verb: "update"}, {Resource: "namespaces"}}}, []string{"update configmaps web", "delete namespaces shop"}},
		{"selector and template", Profile{API: []apiserver.Fault{{Verb: "create"}, {Verb: "patch", Code: 422}}}, []string{"create secrets "}},
	} {
		var got []string
		for _, a := range testWorld(c.f).APIFaultsOf(referenceSteps) {
			if r := a.Fault.Verb + " " + a.Fault.Resource + " " + a.Fault.Name; !slices.Contains(got, r) {
				got = append(got, r)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: aimed at %q, want %q", c.name, got, c.want)
		}
	}
	w := testWorld(Profile{})
	w.Space.Processes = nil // Faults.Processes narrowed to another process
	if got := w.APIFaultsOf(referenceSteps); len(got) != 0 {
		t.Errorf("no operator process left: drew %v", got)
	}
}

// Each error answer drawn says whether the reconcile of its write made
// another write before it and after it (what the sweep ranks it by: a 500
// after a write stays, a lost response before one): the writes of one
// reconcile, a Lease or an Event among them, and not another reconcile's
// or another worker's.
func TestTheAPIErrorsDrawnSayWhatTheirReconcileWroteBeforeAndAfter(t *testing.T) {
	rec := func(s trace.Step, worker, n int) trace.Step {
		s.Controller, s.Worker, s.Reconcile = "web", worker, n
		return s
	}
	steps := []trace.Step{
		rec(trace.Step{At: 1 * time.Second, Process: "op", Op: "create", Object: "Secret shop/a", Result: "ok"}, 1, 1),
		rec(trace.Step{At: 1 * time.Second, Process: "op", Op: "create", Object: "Secret team/other", Result: "ok"}, 2, 1),
		rec(trace.Step{At: 1 * time.Second, Process: "op", Op: "create", Object: "Event shop/a.1", Result: "ok"}, 1, 1),
		rec(trace.Step{At: 2 * time.Second, Process: "op", Op: "update", Object: "ConfigMap shop/a", Result: "ok"}, 1, 1),
		rec(trace.Step{At: 3 * time.Second, Process: "op", Op: "update/status", Object: "ConfigMap shop/a", Result: "ok"}, 1, 2),
	}
	got := map[string][2]bool{}
	for _, a := range testWorld(Profile{}).APIFaultsOf(steps) {
		got[a.At.String()+" "+a.Fault.Resource+" "+a.Fault.Namespace+"/"+a.Fault.Name+a.Fault.Subresource] = [2]bool{a.Before, a.After}
	}
	want := map[string][2]bool{
		"1s secrets shop/":           {false, true},  // shop/a's create: an Event, then the update, follow in its reconcile
		"1s secrets team/":           {false, false}, // another worker's reconcile
		"2s configmaps shop/a":       {true, false},
		"3s configmaps shop/astatus": {false, false}, // another reconcile
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: before, after = %v, want %v", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("drew %v, want %v", got, want)
	}
}
