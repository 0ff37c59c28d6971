package cause

import (
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// AtRest is a controller's last reconcile of an object, ended in an error
// and not forgotten by a crash since.
type AtRest struct {
	Key  string // controller and object: which replica ran it does not matter
	Step trace.Step
	Err  string // the error by its cause, canonical
	// User is whether the cause is a value the workload wrote and left in
	// place (Err names it), and Refused whether the error is kube-apiserver's
	// (or a webhook's) refusal of a write.
	User, Refused bool
}

// ErrorsAtRest are r's errors at rest, in the order their keys first
// reconciled.
func ErrorsAtRest(r *check.Run, c *canon.Tokens) []AtRest {
	type key struct{ process, controller, object string }
	last := map[key]trace.Step{}
	var order []key
	for _, s := range r.Steps {
		if s.Op == "crash" {
			// The incarnation's queue died with it: its errors are not at
			// rest (the next one reconciles what still exists afresh).
			for k := range last { // lint:order-independent deletes only
				if k.process == s.Process {
					delete(last, k)
				}
			}
			continue
		}
		if s.Op != "result" {
			continue
		}
		k := key{s.Process, s.Controller, s.Object}
		if _, ok := last[k]; !ok {
			order = append(order, k)
		}
		last[k] = s
	}
	var out []AtRest
	of := reader(r, c)
	for _, k := range order {
		if s, ok := last[k]; ok && strings.HasPrefix(s.Result, "error:") {
			err, user := of(s.Result)
			out = append(out, AtRest{Key: k.controller + " " + c.Text(k.object), Step: s, Err: err, User: user, Refused: Refused(s.Result)})
		}
	}
	return out
}

// Met are the errors every reconcile of r ended in, by their cause, keyed
// by controller and object as ErrorsAtRest keys them.
func Met(r *check.Run, c *canon.Tokens) map[string][]string {
	out := map[string][]string{}
	of := reader(r, c)
	for _, s := range r.Steps {
		if s.Op == "result" && strings.HasPrefix(s.Result, "error:") {
			k := s.Controller + " " + c.Text(s.Object)
			if err, _ := of(s.Result); !slices.Contains(out[k], err) {
				out[k] = append(out[k], err)
			}
		}
	}
	return out
}

// reader gives an error's cause in r (and whether it is the user's value):
// the values the workload wrote and left in place that its text quotes,
// else a validation's causes (canon.ErrorCause), else its text.
func reader(r *check.Run, c *canon.Tokens) func(text string) (string, bool) {
	held := heldValues(r)
	return func(text string) (string, bool) {
		var causes []string
		for _, q := range goQuoted.FindAllString(text, -1) {
			v, err := strconv.Unquote(q)
			if err != nil {
				continue
			}
			for _, w := range held[v] {
				causes = append(causes, w+" "+q)
			}
		}
		if len(causes) > 0 {
			slices.Sort(causes)
			return c.Text("<the user's value: " + strings.Join(slices.Compact(causes), ", ") + ">"), true
		}
		return canon.ErrorCause(canon.UnixInstants(c.Text(text), r)), false
	}
}

// goQuoted finds the Go-quoted strings of a text (a field error's value,
// an allocator's %q, a client's not-found name).
var goQuoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// Refused is whether an error's text is kube-apiserver's refusal of a write
// for what it holds: a validation's ("<Kind> "<name>" is invalid: ..."), an
// internal error of the write (its IP allocator's, before validation), or
// an admission webhook's denial.
func Refused(text string) bool {
	return strings.Contains(text, `" is invalid: `) || strings.Contains(text, "Internal error occurred: ") ||
		strings.Contains(text, "denied the request")
}

// heldValues are the values the workload wrote (its edits: the admin's
// updates and patches, a scripted or drawn step's) that the object it wrote
// them into still holds at r's end, each with the places that hold it
// ("Kind namespace/name field.path"): every string leaf an edit changed,
// outside metadata and status (what the user asks for), and "" for one an
// edit removed (a reference emptied: its name is "" to the code that reads
// it); and the names of the objects the workload deleted that are still
// gone ("Kind namespace/name deleted": a dependency the user removed).
func heldValues(r *check.Run) map[string][]string {
	admin := map[uint64]bool{}
	deleted := map[string]bool{} // the objects the workload deleted
	for _, s := range r.Steps {
		if s.Process == "admin" && (s.Op == "update" || s.Op == "patch") && s.Result == "ok" && s.RVWritten > 0 {
			admin[s.RVWritten] = true
		}
		if s.Process == "admin" && s.Op == "delete" && s.Result == "ok" {
			deleted[s.Object] = true
		}
	}
	type place struct{ object, path string }
	// An object's leaves are read only where they are compared: at an edit
	// (the version before it and the edit's) and at the end. A run that
	// writes without end (a hot loop's thousands of versions) is not
	// converted at each.
	leavesOf := func(o client.Object) map[string]string {
		leaves := map[string]string{}
		if u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o); err == nil {
			for k, v := range u { // lint:order-independent a map is filled
				if k != "metadata" && k != "status" && k != "apiVersion" && k != "kind" {
					stringLeaves(v, k, leaves)
				}
			}
		}
		return leaves
	}
	prev := map[string]client.Object{} // object -> its last version
	written := map[place]string{}
	var order []place
	for _, ev := range r.Log {
		if ev.Object == nil {
			continue
		}
		object := canon.ObjectKey(ev.GVK.Kind, ev.Object.GetNamespace(), ev.Object.GetName())
		if ev.Type == watch.Deleted {
			delete(prev, object)
			continue
		}
		if before, ok := prev[object]; ok && admin[ev.ResourceVersion] {
			old, leaves := leavesOf(before), leavesOf(ev.Object)
			set := func(p, v string) {
				pl := place{object, p}
				if _, ok := written[pl]; !ok {
					order = append(order, pl)
				}
				written[pl] = v
			}
			for p, v := range leaves { // lint:order-independent a map is filled
				if ov, ok := old[p]; !ok || ov != v {
					set(p, v)
				}
			}
			for p := range old { // lint:order-independent a map is filled
				if _, ok := leaves[p]; !ok {
					set(p, "")
				}
			}
		}
		prev[object] = ev.Object
	}
	slices.SortFunc(order, func(a, b place) int { return strings.Compare(a.object+" "+a.path, b.object+" "+b.path) })
	out := map[string][]string{}
	for _, object := range slices.Sorted(maps.Keys(deleted)) {
		if _, live := prev[object]; !live {
			_, name, _ := strings.Cut(object, "/")
			if _, ns, ok := strings.Cut(object, " "); ok && !strings.Contains(ns, "/") {
				name = ns // cluster-scoped: "Kind name"
			}
			out[name] = append(out[name], object+" deleted")
		}
	}
	ends := map[string]map[string]string{}
	for _, pl := range order {
		last, live := prev[pl.object]
		if live && ends[pl.object] == nil {
			ends[pl.object] = leavesOf(last)
		}
		if v := written[pl]; live && ends[pl.object][pl.path] == v {
			out[v] = append(out[v], pl.object+" "+pl.path)
		}
	}
	return out
}

// stringLeaves adds the string leaves of v (a decoded value at path) to out,
// by field path.
func stringLeaves(v any, path string, out map[string]string) {
	switch x := v.(type) {
	case string:
		out[path] = x
	case map[string]any:
		for k, e := range x { // lint:order-independent a map is filled
			stringLeaves(e, path+"."+k, out)
		}
	case []any:
		for i, e := range x {
			stringLeaves(e, path+"["+strconv.Itoa(i)+"]", out)
		}
	}
}
