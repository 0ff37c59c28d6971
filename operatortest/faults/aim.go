package faults

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// The API errors a world draws with no template of the author's: each is
// aimed at one write request that an operator process made in the
// fault-free run of the same plan (its verb, resource, subresource,
// namespace and name, the process's own requests only), and fails that one
// request (Count 1) as a real apiserver fails one:
//
//   - 500, an etcd leader change or an overloaded apiserver;
//   - 429 with Retry-After 1, API priority and fairness throttling the
//     process;
//   - an ambiguous write: the write commits and its response is lost (504),
//     so a retried create meets AlreadyExists and a retried update a 409.
//
// No 409 is drawn on its own: a real conflict is another write to the
// object, whose watch event reaches the operator, and a 409 with no such
// write would fail an operator that drops a conflict and waits for that
// event (correct on a real cluster). The ambiguous write is the conflict
// drawn whole: the operator's own committed write is the other one.
//
// The writes of Leases (leader election) and Events (best-effort records)
// are not aimed at. Options.Faults narrows them (Processes, Objects, and the
// API templates without a Code, which select the requests drawn) and
// extends them (the API templates with a Code, drawn in a window of their
// own). APIFaultsOf draws them; Profile's doc says the same to a test's
// author.

// drawnAPIClasses are the faults drawn for each write request, in the
// order a plan shrinks towards (the first is the one kept when shrinking
// tries the smaller index).
func drawnAPIClasses() []apiserver.Fault {
	return []apiserver.Fault{{Code: 500}, {Code: 429}, {Ambiguous: true}}
}

// APIFaultsOf are the API faults drawn from a fault-free run's trace steps
// (the Space's Targets' APIFaults): those of each write of an operator
// process in the fault phase, in the order the run made them.
func (w World) APIFaultsOf(steps []trace.Step) []plan.APIFault {
	var out []plan.APIFault
	seen := map[string]bool{}
	prev := ReconcileWrites(steps)
	followed := map[int]bool{}
	for _, j := range prev {
		followed[j] = true
	}
	for i, s := range steps {
		if s.At > w.FaultPhase {
			break
		}
		if s.Result != "ok" || !slices.Contains(w.Space.Processes, s.Process) {
			continue
		}
		verb, sub, _ := strings.Cut(s.Op, "/")
		switch verb {
		case "create", "update", "patch", "delete":
		default:
			continue // reads, cached reads, deletecollection
		}
		kind, object, _ := strings.Cut(s.Object, " ")
		if kind == "Lease" || kind == "Event" || object == "" {
			continue
		}
		resource, ok := w.resourceOf(kind)
		if !ok {
			continue
		}
		ns, name, namespaced := strings.Cut(object, "/")
		if !namespaced {
			ns, name = "", object
		}
		if !w.Aims(object) {
			continue // Options.Faults.Objects
		}
		req := apiserver.Fault{Agent: s.Process, Verb: verb, Resource: resource, Subresource: sub, Namespace: ns, Name: name, Count: 1}
		if verb == "create" {
			req.Name = "" // a create's request has no name (generateName, or a name in its body)
		}
		if !w.selectsAPI(req) {
			continue
		}
		_, before := prev[i]
		for _, c := range drawnAPIClasses() {
			f := req
			f.Code, f.Ambiguous = c.Code, c.Ambiguous
			key := f.String() + "@" + s.At.String()
			if seen[key] {
				continue
			}
			seen[key] = true
			out = append(out, plan.APIFault{At: s.At, Fault: f, Before: before, After: followed[i]})
		}
	}
	return out
}

// ProcessWrite reports whether s is a write request of a process (create,
// update, patch, delete, deletecollection, a subresource's too): what a
// crash after the k-th write counts.
func ProcessWrite(s trace.Step) bool {
	verb, _, _ := strings.Cut(s.Op, "/")
	switch verb {
	case "create", "update", "patch", "delete", "deletecollection":
		return s.Process != ""
	}
	return false
}

// ReconcileWrites gives, for each write of a reconcile among steps (by its
// index), the index of the write its reconcile made before it, if any
// (every write of the process, Leases and Events included, as a crash
// after the k-th write counts them): a write with one before it, or one
// after it, is where an error answer or a crash leaves the reconcile half
// done.
func ReconcileWrites(steps []trace.Step) (prev map[int]int) {
	type reconcile struct {
		process, controller string
		worker, n           int
	}
	prev = map[int]int{}
	last := map[reconcile]int{} // the index of the reconcile's last write so far
	for i, s := range steps {
		if !ProcessWrite(s) || s.Reconcile == 0 {
			continue
		}
		r := reconcile{s.Process, s.Controller, s.Worker, s.Reconcile}
		if j, ok := last[r]; ok {
			prev[i] = j
		}
		last[r] = i
	}
	return prev
}

// Aims reports whether the aimed faults may aim at object ("namespace/name",
// or "name" when cluster-scoped): Options.Faults.Objects names it, or names
// nothing.
func (w World) Aims(object string) bool {
	objs := w.Profile.Objects
	if objs == nil {
		return true
	}
	for _, o := range objs {
		if (o.Namespace == "" && o.Name == object) || o.Namespace+"/"+o.Name == object {
			return true
		}
	}
	return false
}

// selectsAPI reports whether the API templates without a Code (the
// selectors) let a drawn fault on req's request be drawn: one of them
// matches it, or there is none.
func (w World) selectsAPI(req apiserver.Fault) bool {
	var selectors []apiserver.Fault
	for _, a := range w.Profile.API {
		if a.Code == 0 && !a.Ambiguous {
			selectors = append(selectors, a)
		}
	}
	if len(selectors) == 0 {
		return true
	}
	for _, a := range selectors {
		if (a.Agent == "" || a.Agent == req.Agent) && (a.Verb == "" || a.Verb == req.Verb) &&
			(a.Resource == "" || a.Resource == req.Resource) && (a.Subresource == "" || a.Subresource == req.Subresource) &&
			(a.Namespace == "" || a.Namespace == req.Namespace) && (a.Name == "" || a.Name == req.Name || req.Verb == "create") {
			return true
		}
	}
	return false
}

// resourceOf is the plural resource of a kind named as a trace step names
// it (its Kind alone): a CRD's plural, or a built-in kind's as
// kube-apiserver (and the apiserver model) names it. A kind of several
// groups is the one the world collects or judges, else the core group's.
func (w World) resourceOf(kind string) (string, bool) {
	for _, c := range w.CRDs {
		if c.GVK.Kind == kind {
			if c.Plural != "" {
				return c.Plural, true
			}
			r, _ := meta.UnsafeGuessKindToResource(c.GVK)
			return r.Resource, true
		}
	}
	var gvks []schema.GroupVersionKind
	for gvk := range w.Scheme.AllKnownTypes() { // lint:order-independent sorted below
		if gvk.Kind == kind && gvk.Version != "__internal" {
			gvks = append(gvks, gvk)
		}
	}
	if len(gvks) == 0 {
		return "", false
	}
	slices.SortFunc(gvks, func(a, b schema.GroupVersionKind) int {
		ka, kb := slices.Contains(w.Collected, a), slices.Contains(w.Collected, b)
		switch {
		case ka != kb && ka:
			return -1
		case ka != kb:
			return 1
		}
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Version, b.Version))
	})
	r, _ := meta.UnsafeGuessKindToResource(gvks[0])
	return r.Resource, true
}
