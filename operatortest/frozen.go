package operatortest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/story"
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

// outputsOf are, per controller and object (the atRest key), the canonical
// keys of the objects that controller's reconciles of that object wrote, in
// order of first write, but the reconciled object itself.
func outputsOf(steps []trace.Step, c *canon) map[string][]string {
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
		case story.IsWrite(s.Op) && s.Controller != "" && s.Worker > 0:
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
			key := s.Controller + " " + c.text(obj)
			if written := c.text(objectKey(kind, ns, n)); !slices.Contains(out[key], written) { // as snapshot.key names it
				out[key] = append(out[key], written)
			}
		}
	}
	return out
}

// frozen are the objects converges does not compare in got: the outputs of
// each controller's reconciles of an object whose last reconcile ends, in
// got and in a fault-free run, in the same error; each with why.
func frozen(refs []*refRun, got *snapshot) map[string]string {
	out := map[string]string{}
	for _, e := range got.atRest {
		var keys []string
		keys = append(keys, got.outputs[e.key]...)
		shared := false
		for _, r := range refs {
			for _, re := range r.snap.atRest {
				if re.key == e.key && re.err == e.err {
					shared = true
					keys = append(keys, r.snap.outputs[e.key]...)
				}
			}
		}
		if !shared {
			continue
		}
		for _, k := range keys {
			if _, ok := out[k]; !ok {
				out[k] = fmt.Sprintf("%s (written by %s's reconciles, whose last ends in %s, as in the fault-free run of the same workload)", k, e.key, e.step.Result)
			}
		}
	}
	return out
}

// frozenNote is converges' note on what it did not compare.
func frozenNote(skipped []string) check.Verdict {
	v := check.Verdict{Property: Converges, Holds: true}
	if len(skipped) > 0 {
		v.Detail = fmt.Sprintf("not compared, the output of a reconcile that fails by design and keeps what it last got through with: %s", strings.Join(skipped, "; "))
	}
	return v
}
