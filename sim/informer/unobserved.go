package informer

import (
	"strconv"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// Unobserved is one object's changes kept from a process's informers of its
// kind (the plan's unobserved fault: Sieve's unobserved state). Its window
// opens at the change that makes resourceVersion From (0: at the object's
// first change, its creation) and ends at the change that makes Until (0:
// none), at the object's deletion, or at End (the heal), whichever comes
// first. While it is open:
//
//   - the events of the object with a resourceVersion in the window never
//     reach the informers (they are not queued: a hold or a lag has nothing
//     to release);
//   - a list (an informer's initial list, a Relist, a stale view's list of
//     the past) shows the object as it was just before the window (From 0:
//     not at all) wherever it shows a state the window hides.
//
// At its end each informer catches up as a watch does: the change that ends
// it (the until change, or the deletion with the object's last state, as a
// watch delivers a Deleted event) is delivered as any other; at End each
// informer that has withheld something applies the newest state it withheld
// (CatchUpUnobserved). One Unobserved serves every incarnation of the
// process: a restart inside the window lists without the object's hidden
// state.
//
// Observe must see every change of the kind before any informer does: the
// owner subscribes it to the Source before the process starts (Track).
type Unobserved struct {
	GVK   schema.GroupVersionKind
	Key   string // namespace/name, or name when cluster-scoped (the store key)
	From  uint64
	Until uint64

	// Notify, if set, is told when the window opens (the first change
	// withheld) and when it ends, in a sentence for a trace.
	Notify func(what string)

	before  client.Object // the object as it was just before From (nil: absent)
	started bool          // a change in the window has committed
	endRV   uint64        // the change that ended the window (deletion or Until); 0: none yet
	ended   bool          // End ended it
}

// Track makes u observe every change of its kind from now on (subscribing
// to src's watch), after listing the object's present state (the state
// before From, when From is still to come). It returns the subscription's
// stop.
func (u *Unobserved) Track(src Source) (stop func()) {
	objs, _ := src.List(u.GVK)
	for _, o := range objs {
		if storeKey(o) == u.Key {
			if rvOf(o) < u.From {
				u.before = o
			} else {
				u.open(rvOf(o))
			}
		}
	}
	return src.Watch(u.GVK, u.Observe)
}

// Observe records one change of u's kind: the object's state before the
// window, and the change that ends it.
func (u *Unobserved) Observe(ev apiserver.Event) {
	if u.ended || u.endRV != 0 || storeKey(ev.Object) != u.Key {
		return
	}
	if ev.ResourceVersion < u.From {
		u.before = ev.Object
		if ev.Type == watch.Deleted {
			u.before = nil
		}
		return
	}
	if ev.Type == watch.Deleted || (u.Until > 0 && ev.ResourceVersion >= u.Until) {
		u.endRV = ev.ResourceVersion
		what := "its deletion"
		if ev.Type != watch.Deleted {
			what = "its change to resourceVersion " + strconv.FormatUint(ev.ResourceVersion, 10)
		}
		u.notify("the window ends at " + what + ": the process's informers get it")
		return
	}
	u.open(ev.ResourceVersion)
}

func (u *Unobserved) open(rv uint64) {
	if u.started {
		return
	}
	u.started = true
	u.notify("its changes from resourceVersion " + strconv.FormatUint(rv, 10) + " are withheld from the process's informers")
}

func (u *Unobserved) notify(what string) {
	if u.Notify != nil {
		u.Notify(what)
	}
}

// End ends the window now (the heal): from now on nothing is withheld or
// hidden. The informers that withheld something catch up on
// Cache.CatchUpUnobserved. It reports whether the window was open.
func (u *Unobserved) End() bool {
	open := u.Open()
	u.ended = true
	return open
}

// Open reports whether the window is open now: a change of the object in
// it has committed, and it has not ended.
func (u *Unobserved) Open() bool { return u.started && !u.Ended() }

// Ended reports whether the window is over (by its until change, the
// object's deletion, or End).
func (u *Unobserved) Ended() bool { return u.ended || u.endRV != 0 }

// hides reports whether the change or state of the object at resourceVersion
// rv is inside the window.
func (u *Unobserved) hides(rv uint64) bool {
	return !u.ended && rv >= u.From && (u.endRV == 0 || rv < u.endRV)
}

// WithUnobserved makes the cache's informers of each one's kind keep its
// object's changes from the process (the plan's unobserved faults).
func WithUnobserved(us []*Unobserved) Option {
	return func(c *Cache) { c.unobserved = us }
}

// unobservedView is one informer's side of an Unobserved: the newest event of
// the object it withheld and has not seen superseded (nil: none).
type unobservedView struct {
	u    *Unobserved
	last *apiserver.Event
}

// withhold reports whether ev is kept from the informer, and remembers it
// (or forgets what an event delivered supersedes).
func (i *Informer) withhold(ev apiserver.Event) bool {
	if len(i.unobserved) == 0 {
		return false
	}
	key := storeKey(ev.Object)
	for _, v := range i.unobserved {
		if v.u.Key != key {
			continue
		}
		if v.u.hides(ev.ResourceVersion) {
			if v.last == nil || ev.ResourceVersion > v.last.ResourceVersion {
				e := ev
				v.last = &e
			}
			return true
		}
		if v.last != nil && ev.ResourceVersion > v.last.ResourceVersion {
			v.last = nil // a newer state of the object reaches the informer
		}
	}
	return false
}

// hideUnobserved is a list as the informer may see it: each object in a
// state a window hides replaced by its state before the window (or left
// out), the hidden state remembered as withheld.
func (i *Informer) hideUnobserved(objs []client.Object) []client.Object {
	if len(i.unobserved) == 0 {
		return objs
	}
	var out []client.Object
	for _, o := range objs {
		key, rv := storeKey(o), rvOf(o)
		shown := o
		for _, v := range i.unobserved {
			if v.u.Key != key || !v.u.hides(rv) {
				continue
			}
			if v.last == nil || rv > v.last.ResourceVersion {
				v.last = &apiserver.Event{Type: watch.Modified, GVK: i.gvk, Object: o, ResourceVersion: rv, At: i.timers.Now()}
			}
			shown = i.before(v.u)
		}
		if shown != nil {
			out = append(out, shown)
		}
	}
	return out
}

// before is u's object as it was before the window, as the informer's source
// would send it (through its filter), or nil.
func (i *Informer) before(u *Unobserved) client.Object {
	if u.before == nil {
		return nil
	}
	if f, ok := i.src.(interface {
		pass(client.Object) (client.Object, bool)
	}); ok {
		o, ok := f.pass(u.before)
		if !ok {
			return nil
		}
		return o
	}
	return u.before
}

// CatchUpUnobserved delivers, in each informer, the newest state of an
// object it withheld in a window that is over and has not seen since (the
// window's end at the heal: Unobserved.End), as a watch that resumes
// delivers the newest state: applied now, after the object's events still
// queued (a held informer queues it for its release). It reports whether
// anything was delivered.
func (c *Cache) CatchUpUnobserved() bool {
	delivered := false
	for _, i := range c.Informers() {
		for _, v := range i.unobserved {
			if v.last != nil && v.u.Ended() && !i.stopped {
				ev := *v.last
				v.last = nil
				i.deliverWithheld(ev)
				delivered = true
			}
		}
	}
	return delivered
}

// deliverWithheld applies ev, a withheld event, now: first the queued
// events of the same object committed before it (so that the store never
// goes back to an older state), then ev; the newest resourceVersion applied
// stays the informer's. A held informer queues it in resourceVersion order.
func (i *Informer) deliverWithheld(ev apiserver.Event) {
	if i.held {
		at := len(i.queue)
		for at > 0 && i.queue[at-1].ev.ResourceVersion > ev.ResourceVersion {
			at--
		}
		i.queue = append(i.queue[:at], append([]*delivery{{ev: ev}}, i.queue[at:]...)...)
		return
	}
	last, key := i.lastRV, storeKey(ev.Object)
	for _, d := range i.queue {
		if !d.done && d.ev.ResourceVersion < ev.ResourceVersion && storeKey(d.ev.Object) == key {
			d.done = true
			i.apply(d.ev)
		}
	}
	i.apply(ev)
	i.lastRV = max(last, ev.ResourceVersion)
}

func rvOf(o client.Object) uint64 {
	rv, _ := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
	return rv
}
