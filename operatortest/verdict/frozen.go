package verdict

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Frozen outputs: what converges (and interleavings-agree, between two
// fault-free runs) does not hold a controller to while it is
// failing, by design, on an object.
//
// A level-triggered controller's reconcile that returns nil says that the
// objects it derives from its object are what its inputs call for; one that
// returns an error says they are not (yet): controller-runtime retries it
// with back-off, and its outputs stay as the last reconcile that got through
// left them. When a fault-free run of the same workload ends in the same
// error on the same object (no-error-at-rest forgives it: the user deleted a
// dependency), what the controller last got through with is decided by how
// the user's steps raced its view of them: an edit the user made just before
// deleting the dependency was published or not depending on whether the
// controller saw the edit before it saw the deletion, as on a real cluster,
// where a user's kubectl edit and kubectl delete a few milliseconds apart
// reach an operator's informers in no promised order across kinds. So the
// objects that controller's reconciles of that object wrote (but the object
// itself) are not compared by converges, in any run that ends in that error.
// An operator that gives up on the same missing dependency and returns nil
// (no retry) claims its outputs are converged, and is judged on them.
//
// A controller that ends failing on kube-apiserver's refusal of the user's
// value (user-value) fails by design in whichever run met it: there the
// other run need not fail at all. The user who changes an immutable field
// of a child through the operator (a StatefulSet's serviceName) has the
// child refused where the operator made it before the edit, and made with
// the value where the operator made it after: both the same correct
// operator, as on a real cluster. So the outputs are not compared in any
// of the runs.

// OutputsOf are, per controller and object (the atRest key), the canonical
// keys of the objects that controller's reconciles of that object wrote, in
// order of first write, but the reconciled object itself.
func OutputsOf(steps []trace.Step, c *canon.Tokens) map[string][]string {
	type worker struct {
		process, controller string
		n                   int
	}
	current := map[worker]string{} // the object each worker is reconciling
	out := map[string][]string{}
	for _, s := range steps {
		w := worker{s.Process, s.Controller, s.Worker}
		switch {
		case s.Op == "crash":
			for k := range current { // lint:order-independent deletes only
				if k.process == s.Process {
					delete(current, k)
				}
			}
		case s.Op == "reconcile":
			current[w] = s.Object
		case s.Op == "result":
			delete(current, w)
		case trace.IsWrite(s.Op) && s.Controller != "" && s.Worker > 0:
			obj, ok := current[w]
			if !ok {
				continue
			}
			kind, name, _ := strings.Cut(s.Object, " ")
			ns, n, ok := strings.Cut(name, "/")
			if !ok {
				ns, n = "", name // cluster-scoped
			}
			if ns+"/"+n == obj && (strings.EqualFold(kind, s.Controller) || strings.HasSuffix(s.Op, "/status")) {
				continue // the reconciled object itself (its status says the error; a request names it "ns/name")
			}
			key := s.Controller + " " + c.Text(obj)
			if written := c.Text(canon.ObjectKey(kind, ns, n)); !slices.Contains(out[key], written) { // as snapshot.key names it
				out[key] = append(out[key], written)
			}
		}
	}
	return out
}

// failing is a controller's error at rest on an object that it fails on
// by design, and the runs whose outputs and status it freezes.
type failing struct {
	e    AtRest
	runs []*Snapshot
	why  string
}

// byDesign are the errors at rest of got and refs that a controller fails
// on by design: one got ends in as a fault-free run does (the workload's
// doing: a dependency the user deleted), freezing got and those runs; and
// one, in any of them, that is kube-apiserver's (or a webhook's) refusal
// of a value the workload wrote and left in place (the user's invalid
// value, excuses.go's user-value), freezing every run: whether a run's
// write met the refusal or got the value through first (a create after
// the user's edit, where the other run's update met the immutable field)
// raced the user's edit. One entry per controller and object, got's first.
func byDesign(refs []*Reference, got *Snapshot) []failing {
	all := []*Snapshot{got}
	for _, r := range refs {
		all = append(all, r.Snap)
	}
	var out []failing
	seen := map[string]bool{}
	for i, s := range all {
		for _, e := range s.AtRest {
			if seen[e.Key] {
				continue
			}
			if e.User && e.Refused {
				seen[e.Key] = true
				out = append(out, failing{e: e, runs: all, why: "on the user's value, which kube-apiserver refused"})
				continue
			}
			if i > 0 {
				continue
			}
			runs := []*Snapshot{got}
			for _, r := range refs {
				if slices.ContainsFunc(r.Snap.AtRest, func(re AtRest) bool { return re.Key == e.Key && re.Err == e.Err }) {
					runs = append(runs, r.Snap)
				}
			}
			if len(runs) > 1 {
				seen[e.Key] = true
				out = append(out, failing{e: e, runs: runs, why: "as in the fault-free run of the same workload"})
			}
		}
	}
	return out
}

// Frozen are the objects converges does not compare in got: the outputs of
// each controller's reconciles of an object it fails on by design
// (byDesign), in the runs that failing freezes; each with why.
func Frozen(refs []*Reference, got *Snapshot) map[string]string {
	out := map[string]string{}
	for _, f := range byDesign(refs, got) {
		for _, s := range f.runs {
			for _, k := range s.Outputs[f.e.Key] {
				if _, ok := out[k]; !ok {
					out[k] = fmt.Sprintf("%s (written by %s's reconciles, whose last ends in %s, %s)", k, f.e.Key, f.e.Step.Result, f.why)
				}
			}
		}
	}
	return out
}

// The object's own status is frozen the same way in part (the table's
// frozen-status): a reconcile that returns nil records in its object's
// status what it has made (a binding, Ready=True), one that fails at most
// why. Whether one got through before the user's value made every
// reconcile fail is how the user's edit raced the operator's first pass, as
// on a real cluster, where a slowed operator ends failing with no record.
// What the failing reconciles write (the error condition) is compared.

// statusWrites are what a controller's status writes to the object it
// reconciles changed: the object's key, and the leaf paths of its status
// changed by the reconciles that returned with no error and by those that
// failed.
type statusWrites struct {
	object     string
	ok, failed map[string]bool
}

// statusWrites are s's StatusWrites, read from its run the first time they
// are asked for (where it has a run and a test set none).
func (s *Snapshot) statusWrites() map[string]*statusWrites {
	s.statusWritesOnce.Do(func() {
		if s.StatusWrites == nil && s.run != nil {
			s.StatusWrites = StatusWritesOf(s.run, s)
		}
	})
	return s.StatusWrites
}

// StatusWritesOf reads a run's statusWrites, per controller and object (the
// atRest key). A reconcile a crash cut is neither: its end is not known.
func StatusWritesOf(r *check.Run, s *Snapshot) map[string]*statusWrites {
	type worker struct {
		process, controller string
		n                   int
	}
	byRV := map[uint64]int{}   // resourceVersion -> its event in the log
	before := map[int]int{}    // an event -> the one before it of the same object (-1: none)
	lastOf := map[string]int{} // uid -> its last event so far
	for i, ev := range r.Log {
		uid := string(ev.Object.GetUID())
		if j, ok := lastOf[uid]; ok {
			before[i] = j
		} else {
			before[i] = -1
		}
		lastOf[uid] = i
		if ev.ResourceVersion != 0 {
			byRV[ev.ResourceVersion] = i
		}
	}
	statuses := map[int]map[string]string{} // an event's status, read once (a write's is the next one's before)
	status := func(i int) map[string]string {
		if out, ok := statuses[i]; ok {
			return out
		}
		out := map[string]string{}
		statuses[i] = out
		if i < 0 {
			return out
		}
		ev := r.Log[i]
		for p, v := range Flatten(s.World.Shapes.For(ev.GVK), s.Normalize(ev.GVK, ev.Object)) { // lint:order-independent a map is filled
			if p == "status" || strings.HasPrefix(p, "status.") || strings.HasPrefix(p, "status[") {
				out[p] = v
			}
		}
		return out
	}
	current := map[worker]string{}   // the object each worker is reconciling
	pending := map[worker][]uint64{} // the resourceVersions its status writes made
	out := map[string]*statusWrites{}
	for _, st := range r.Steps {
		w := worker{st.Process, st.Controller, st.Worker}
		switch {
		case st.Op == "crash":
			for k := range current { // lint:order-independent deletes only
				if k.process == st.Process {
					delete(current, k)
					delete(pending, k)
				}
			}
		case st.Op == "reconcile":
			current[w] = st.Object
			delete(pending, w)
		case st.Op == "result":
			obj, ok := current[w]
			delete(current, w)
			rvs := pending[w]
			delete(pending, w)
			if !ok || len(rvs) == 0 {
				continue
			}
			key := st.Controller + " " + s.Canon.Text(obj)
			sw := out[key]
			if sw == nil {
				sw = &statusWrites{ok: map[string]bool{}, failed: map[string]bool{}}
				out[key] = sw
			}
			into := sw.ok
			if strings.HasPrefix(st.Result, "error:") || strings.HasPrefix(st.Result, "terminal error:") {
				into = sw.failed
			}
			for _, rv := range rvs {
				i, ok := byRV[rv]
				if !ok {
					continue
				}
				sw.object = s.Key(r.Log[i].GVK, r.Log[i].Object)
				now, was := status(i), status(before[i])
				for p, v := range now { // lint:order-independent a set is filled
					if was[p] != v {
						into[p] = true
					}
				}
				for p := range was { // lint:order-independent a set is filled
					if _, ok := now[p]; !ok {
						into[p] = true
					}
				}
			}
		case trace.IsWrite(st.Op) && strings.HasSuffix(st.Op, "/status") && st.Controller != "" && st.Worker > 0 && st.RVWritten != 0:
			obj, ok := current[w]
			_, name, _ := strings.Cut(st.Object, " ")
			if ok && name == obj {
				pending[w] = append(pending[w], st.RVWritten)
			}
		}
	}
	return out
}

// FrozenStatus are, per object key, the status fields converges does not
// compare in got: those only the successful reconciles of the operator's
// controllers of it wrote (the failing controller's, or another's: a
// second controller woken by what the first made got through before the
// user's value landed, or never ran), in the runs a controller's failing
// on it by design freezes (byDesign). A field's parents are listed too (an
// emptied status is "{}").
func FrozenStatus(refs []*Reference, got *Snapshot) map[string]map[string]bool {
	out := map[string]map[string]bool{}
	for _, f := range byDesign(refs, got) {
		e, runs := f.e, f.runs
		// Per object the status writes name: every controller's whose
		// request names the failing object's namespace and name.
		ok, failed := map[string]map[string]bool{}, map[string]bool{}
		_, reconciled, _ := strings.Cut(e.Key, " ")
		for _, s := range runs {
			for k, sw := range s.statusWrites() { // lint:order-independent sets are filled
				if _, o, _ := strings.Cut(k, " "); o != reconciled || sw.object == "" {
					continue // another object's
				}
				if ok[sw.object] == nil {
					ok[sw.object] = map[string]bool{}
				}
				for p := range sw.ok { // lint:order-independent a set is filled
					ok[sw.object][p] = true
				}
				for p := range sw.failed { // lint:order-independent a set is filled
					failed[sw.object+" "+p] = true
				}
			}
		}
		for object, paths := range ok { // lint:order-independent a map is filled
			for p := range paths { // lint:order-independent a set is filled
				if failed[object+" "+p] {
					continue
				}
				if out[object] == nil {
					out[object] = map[string]bool{}
				}
				for q := p; q != ""; q = parentPath(q) {
					out[object][q] = true
				}
			}
		}
	}
	return out
}

// WithFrozenStatus is free (object key -> leaf paths not compared) with
// frozenStatus(refs, got) added, for interleavings-agree: between two
// fault-free runs that both end failing on the user's value, whether one
// got through a reconcile before the value landed is the race with the
// user too. free itself is left as it is.
func WithFrozenStatus(free map[string]map[string]bool, refs []*Reference, got *Snapshot) map[string]map[string]bool {
	fs := FrozenStatus(refs, got)
	if len(fs) == 0 {
		return free
	}
	out := map[string]map[string]bool{}
	for k, paths := range free { // lint:order-independent a map is copied
		out[k] = maps.Clone(paths)
	}
	for k, paths := range fs { // lint:order-independent a map is filled
		if out[k] == nil {
			out[k] = map[string]bool{}
		}
		for p := range paths { // lint:order-independent a set is filled
			out[k][p] = true
		}
	}
	return out
}

// parentPath is a leaf path's parent ("status.binding" of
// "status.binding.name", "status.conditions" of a list item's field's
// list), "" at the root.
func parentPath(p string) string {
	i := strings.LastIndexAny(p, ".[")
	if i < 0 {
		return ""
	}
	return p[:i]
}

// frozenNote is converges' note on what it did not compare.
func frozenNote(skipped []string) check.Verdict {
	v := check.Verdict{Property: world.Converges, Holds: true}
	if len(skipped) > 0 {
		v.Detail = fmt.Sprintf("not compared, the output of a reconcile that fails by design and keeps what it last got through with: %s", strings.Join(skipped, "; "))
	}
	return v
}
