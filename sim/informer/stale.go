package informer

import (
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
type Stale struct {
	Age   time.Duration
	Until time.Time
}

// PastSource is what a stale informer needs of its source besides Source: the
// state as it was, and the events since (apiserver.Watcher has both). A Source
// without them gives no staleness.
type PastSource interface {
	ListAsOf(gvk schema.GroupVersionKind, at time.Time) ([]client.Object, uint64)
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
		return objs, rv, past.EventsAfter(i.gvk, rv)
	}
	objs, rv := i.src.List(i.gvk)
	return objs, rv, nil
}

// due is when an event committed at at reaches a stale informer: Age
// after its commit, at the latest when the lagging apiserver has caught up.
func (s *Stale) due(at time.Time) time.Time {
	d := at.Add(s.Age)
	if d.After(s.Until) {
		return s.Until
	}
	return d
}
