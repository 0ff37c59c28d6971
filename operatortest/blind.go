package operatortest

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Blind time is not downtime, and neither is stale data.
//
// A process can be up and still not see an object: its watch is held, or
// lags, or it restarted onto an apiserver whose watch cache is behind (a
// stale restart), and the object was made (or re-made) after the instant its
// view shows. What a correct operator does then is what it does while it is
// down, as far as that object goes: nothing, because it cannot. A
// time-driven operator misses a scheduled instant so, and by design skips
// that run or makes it late, which changes the Jobs it makes and their
// counts. That is what a real cluster does to correct code, and the
// fault-free runs do not show it.
//
// A view that is behind does a second thing: it shows what is no longer
// true. An object the user deleted is still there; a spec or a status is an
// older version than the one the operator (or its previous incarnation) may
// already have acted on (Sieve's "time travel"). Acting on that is the
// stale-state pattern's bug: the controller deletes what it should keep,
// re-creates what was removed, or trusts a record its own later write
// replaced. That is a finding.
//
// So the reference for blind time keeps the absences and drops the rest:
// the fault-free run of the same workload in which each operator process's
// informers do not show an object in the windows in which the faulted run's
// view did not show it (an object that exists then but did not at the
// instant the view showed), and show everything else as it is, fresh (no
// stale content, no deleted object still there, no crash, no other fault).
// It is judged beside the fault-free run of the same downtime (downtime.go):
// both are one reference, the stops and the blind windows together. A
// difference it also shows is the blindness's doing (and the downtime's); a
// difference that needs stale content, a ghost of a deleted object, or the
// crash's intermediate state is still blamed on the faults, as the same
// reference with neither downtime nor blindness (the same restarts, at once)
// must not show it.
//
// Which instant the faulted view showed, for each fault of an operator's
// process:
//   - a stale restart at S with age A (its "stale" step): t - A, for t in
//     [S, S+A) (until the lagging apiserver has caught up);
//   - a hold of a kind from F to U: F, for t in [F, U) (no later than the
//     heal);
//   - a lag of a kind of at least Min: t - Min, in the fault phase (the least
//     each event was late; the rest of the lag, drawn per event, is not
//     replayed).

// blindOf are the windows in which an operator process's view in the run of
// p (r) hid an object that existed then, as blind faults.
func (w *world) blindOf(p *plan.Plan, r *result) []plan.Fault {
	type view struct {
		process, kind string        // kind: "group/version/Kind" or "*"
		from, until   time.Duration // the window
		// The instant the view shows at t: t - shifted, or from for a hold.
		shifted time.Duration
		hold    bool
	}
	var views []view
	for _, s := range r.steps {
		if s.Op != "stale" || !w.operators[s.Process] {
			continue
		}
		age, until, ok := staleWindow(s.Result)
		if !ok || until <= s.At {
			continue
		}
		views = append(views, view{process: s.Process, kind: "*", from: s.At, until: until, shifted: age})
	}
	for _, f := range p.Faults {
		if !w.operators[f.Process] {
			continue
		}
		switch f.Kind {
		case plan.Hold:
			if until := min(f.Until, w.o.FaultPhase); until > f.From {
				views = append(views, view{process: f.Process, kind: f.Resource, from: f.From, until: until, hold: true})
			}
		case plan.Lag:
			if f.Min > 0 {
				views = append(views, view{process: f.Process, kind: f.Resource, from: 0, until: w.o.FaultPhase, shifted: f.Min})
			}
		}
	}
	if len(views) == 0 {
		return nil
	}
	type object struct{ kind, key string }
	type span struct{ from, until time.Duration } // until -1: still there
	lives := map[object][]span{}
	for _, ev := range r.log {
		o := object{cluster.KindName(ev.GVK), objectKey(ev.Object.GetNamespace(), ev.Object.GetName())}
		at := ev.At.Sub(r.start)
		s := lives[o]
		alive := len(s) > 0 && s[len(s)-1].until < 0
		switch {
		case ev.Type == watch.Deleted && alive:
			s[len(s)-1].until = at
		case ev.Type != watch.Deleted && !alive:
			s = append(s, span{at, -1})
		}
		lives[o] = s
	}
	objects := make([]object, 0, len(lives))
	for o := range lives { // lint:order-independent sorted below
		objects = append(objects, o)
	}
	slices.SortFunc(objects, func(a, b object) int { return cmp.Or(cmp.Compare(a.kind, b.kind), cmp.Compare(a.key, b.key)) })
	exists := func(s []span, t time.Duration) bool {
		for _, x := range s {
			if x.from <= t && (x.until < 0 || t < x.until) {
				return true
			}
		}
		return false
	}
	var out []plan.Fault
	for _, v := range views {
		shows := func(t time.Duration) time.Duration {
			if v.hold {
				return v.from
			}
			return t - v.shifted
		}
		for _, o := range objects {
			if v.kind != "*" && v.kind != o.kind {
				continue
			}
			s := lives[o]
			// The hidden set changes only where the object's life, or its
			// life as the view shows it, begins or ends.
			cuts := []time.Duration{v.from, v.until}
			for _, x := range s {
				for _, c := range []time.Duration{x.from, x.until} {
					if c < 0 {
						continue
					}
					cuts = append(cuts, c)
					if !v.hold {
						cuts = append(cuts, c+v.shifted)
					}
				}
			}
			slices.Sort(cuts)
			cuts = slices.Compact(cuts)
			open := -1 // the window of out being extended
			for i, c := range cuts {
				if c < v.from || c >= v.until {
					continue
				}
				end := v.until
				if i+1 < len(cuts) {
					end = min(cuts[i+1], v.until)
				}
				if !exists(s, c) || exists(s, shows(c)) {
					open = -1
					continue
				}
				if open >= 0 && out[open].Until == c {
					out[open].Until = end
					continue
				}
				out = append(out, plan.Fault{Kind: plan.Blind, Process: v.process, Resource: o.kind, Object: o.key, From: c, Until: end})
				open = len(out) - 1
			}
		}
	}
	slices.SortStableFunc(out, func(a, b plan.Fault) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.Process, b.Process), cmp.Compare(a.Resource, b.Resource), cmp.Compare(a.Object, b.Object))
	})
	return out
}

// staleWindow reads a stale restart's step ("... through an apiserver 30s
// behind until 30.538s"): the age, and when it has caught up.
func staleWindow(result string) (age, until time.Duration, ok bool) {
	words := strings.Fields(result)
	for i, w := range words {
		if i+1 >= len(words) {
			break
		}
		var err error
		switch w {
		case "apiserver":
			age, err = time.ParseDuration(words[i+1])
		case "until":
			until, err = time.ParseDuration(words[i+1])
		}
		if err != nil {
			return 0, 0, false
		}
	}
	return age, until, age > 0 && until > 0
}

// objectKey is an object's key in a cache: namespace/name, or name.
func objectKey(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
