package apiserver

import (
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The past, as a lagging apiserver serves it.
//
// In a cluster with several kube-apiservers, a client's list with
// resourceVersion "0" (how client-go's reflector lists first) is served from
// the watch cache of whichever apiserver it reaches, which may be behind
// etcd; its watch then continues from that list's resourceVersion, at the
// pace the lagging cache catches up. A restarted controller that lands on
// such an apiserver sees the world as it was (Sieve's stale-state pattern,
// "time travel"). The server keeps its whole watch log, so it can serve any
// past state.

// ListAsOf returns every object of kind gvk as it was at time at (the changes
// committed at or before it), in etcd key order, and the resourceVersion of
// that snapshot (the newest committed at or before at, of any kind).
func (w Watcher) ListAsOf(gvk schema.GroupVersionKind, at time.Time) ([]client.Object, uint64) {
	return w.listPast(gvk, func(ev Event) bool { return ev.At.After(at) })
}

// ListAtRV returns every object of kind gvk as it was at resourceVersion rv
// (the changes committed with a resourceVersion up to rv: the state just
// after the write that made rv, just before the one that made rv+1), in etcd
// key order, and the resourceVersion of that snapshot: the newest committed
// up to rv (a watch cache is never ahead of etcd). Unlike a time, a resourceVersion tells apart
// two writes committed at the same instant.
func (w Watcher) ListAtRV(gvk schema.GroupVersionKind, rv uint64) ([]client.Object, uint64) {
	return w.listPast(gvk, func(ev Event) bool { return ev.ResourceVersion > rv })
}

// listPast folds the watch log up to the first event for which beyond holds
// (the log is in commit order: resourceVersions rise and commit times never
// go back).
func (w Watcher) listPast(gvk schema.GroupVersionKind, beyond func(Event) bool) ([]client.Object, uint64) {
	state := map[objectKey]client.Object{}
	var rv uint64
	for _, ev := range w.s.log {
		if beyond(ev) {
			break
		}
		rv = ev.ResourceVersion
		if ev.GVK != gvk {
			continue
		}
		key := objectKey{ev.Object.GetNamespace(), ev.Object.GetName()}
		if ev.Type == watch.Deleted {
			delete(state, key)
		} else {
			state[key] = ev.Object
		}
	}
	keys := make([]objectKey, 0, len(state))
	for k := range state { // lint:order-independent sorted below
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b objectKey) int {
		switch {
		case keyLess(a, b):
			return -1
		case keyLess(b, a):
			return 1
		}
		return 0
	})
	out := make([]client.Object, len(keys))
	for i, k := range keys {
		out[i] = state[k]
	}
	return out, rv
}

// EventsAfter returns the changes to objects of kind gvk committed after
// resourceVersion rv, in order: what a watch from rv receives.
func (w Watcher) EventsAfter(gvk schema.GroupVersionKind, rv uint64) []Event {
	i, _ := slices.BinarySearchFunc(w.s.log, rv+1, func(ev Event, rv uint64) int {
		switch {
		case ev.ResourceVersion < rv:
			return -1
		case ev.ResourceVersion > rv:
			return 1
		}
		return 0
	})
	var out []Event
	for _, ev := range w.s.log[i:] {
		if ev.GVK == gvk {
			out = append(out, ev)
		}
	}
	return out
}
