package informer

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// Stale is a lagging apiserver that a process's informers list and watch
// through (the plan's stale fault): an informer that starts before Until lists
// the state as it was Age earlier, and until Until every event reaches it Age
// after its commit (or at Until, when the lagging apiserver has caught up),
// as client-go's reflector gets them from an apiserver whose watch cache is
// Age behind etcd. Lag faults add to it; holds still hold.
//
// With RV set, the lagging apiserver's watch cache is at that resourceVersion
// instead (the state just after the write that made RV: exact where two
// writes share an instant): an informer that starts before Until lists that
// state, and every later event reaches it at Until, when the cache has caught
// up (a watch cache whose etcd watch stalled, then resumes). With Kinds set,
// only the informers of the kinds it holds are behind, the others are fresh:
// kube-apiserver keeps one watch cache per resource, and one can lag while
// the others do not.
type Stale struct {
	Age   time.Duration
	Until time.Time
	RV    uint64
	Kinds func(schema.GroupVersionKind) bool // nil: every kind
	Scope string                             // how Kinds reads in a trace ("group/version/Kind"); "": every kind
}

// Describe is what a process's trace says of its stale start: how far
// behind the lagging apiserver is, and until when (since start). A fault
// with neither RV nor Kinds reads as it always has.
func (s Stale) Describe(until time.Duration) string {
	what, rest := "its informers list and watch through an apiserver", ""
	if s.Scope != "" {
		what, rest = "its informers of "+s.Scope+" list and watch through a watch cache", "; its other informers are fresh"
	}
	if s.RV > 0 {
		return fmt.Sprintf("%s at resourceVersion %d until %s%s", what, s.RV, until, rest)
	}
	return fmt.Sprintf("%s %s behind until %s%s", what, s.Age, until, rest)
}

// covers reports whether the informers of gvk are behind.
func (s *Stale) covers(gvk schema.GroupVersionKind) bool {
	return s.Kinds == nil || s.Kinds(gvk)
}

// PastSource is what a stale informer needs of its source besides Source: the
// state as it was, and the events since (apiserver.Watcher has both). A Source
// without them gives no staleness.
type PastSource interface {
	ListAsOf(gvk schema.GroupVersionKind, at time.Time) ([]client.Object, uint64)
	ListAtRV(gvk schema.GroupVersionKind, rv uint64) ([]client.Object, uint64)
	EventsAfter(gvk schema.GroupVersionKind, rv uint64) []apiserver.Event
}

// WithStale makes the informers the cache starts before s.Until stale.
func WithStale(s Stale) Option { return func(c *Cache) { c.stale = &s } }

// staleNow reports whether the informer is behind now.
func (i *Informer) staleNow() bool {
	return i.stale != nil && i.timers.Now().Before(i.stale.Until)
}

// list is what the informer starts from: the source's list; or, for a stale
// informer, the list of the past and the events committed since, which
// receive then queues, each due Age after its commit.
func (i *Informer) list() ([]client.Object, uint64, []apiserver.Event) {
	if past, ok := i.src.(PastSource); ok && i.staleNow() {
		objs, rv := past.ListAsOf(i.gvk, i.timers.Now().Add(-i.stale.Age))
		if i.stale.RV > 0 {
			objs, rv = past.ListAtRV(i.gvk, i.stale.RV)
		}
		return objs, rv, past.EventsAfter(i.gvk, rv)
	}
	objs, rv := i.src.List(i.gvk)
	return objs, rv, nil
}

// due is when an event committed at at reaches a stale informer: Age
// after its commit, at the latest when the lagging apiserver has caught up
// (with RV, when it has caught up).
func (s *Stale) due(at time.Time) time.Time {
	if s.RV > 0 {
		return s.Until
	}
	d := at.Add(s.Age)
	if d.After(s.Until) {
		return s.Until
	}
	return d
}

// Behind reports whether the cache's stale view is in force now (its lagging
// watch cache has not caught up yet).
func (c *Cache) Behind() bool {
	return c.stale != nil && c.timers.Now().Before(c.stale.Until)
}

// CatchUp ends the cache's staleness now, as a lagging watch cache that has
// caught up: each stale informer applies every event it has queued (in order,
// now, unless a hold still holds it), later events reach it without the
// stale delay, and informers started from now on list fresh. It reports
// whether a stale view was in force (false: nothing to catch up). The
// cluster's heal calls it: the heal ends every fault.
func (c *Cache) CatchUp() bool {
	if !c.Behind() {
		return false
	}
	c.stale.Until = c.timers.Now()
	for _, i := range c.Informers() {
		if i.stale == c.stale {
			i.catchUp()
		}
	}
	return true
}

// catchUp applies what a stale informer has queued, as release does.
func (i *Informer) catchUp() {
	if i.stopped || i.held {
		return
	}
	if n := len(i.queue); n > 0 {
		i.applyThrough(i.queue[n-1].ev.ResourceVersion)
	}
	if now := i.timers.Now(); len(i.queue) == 0 && i.lastDue.After(now) {
		i.lastDue = now
	}
}
