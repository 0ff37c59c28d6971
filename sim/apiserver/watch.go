package apiserver

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type subscription struct {
	fn     func(Event)
	active bool
}

// notify calls the watchers of ev's kind in subscription order.
func (s *Server) notify(ev Event) {
	subs := s.subs[ev.GVK]
	for _, sub := range subs {
		if sub.active {
			sub.fn(ev)
		}
	}
}

// Watcher is the watch side of the server, as informers use it: unauthenticated
// list-then-watch of one kind across all namespaces. (Informers of a real process
// list and watch with its credentials; see Known gaps.)
type Watcher struct{ s *Server }

// Watcher returns the server's watch side.
func (s *Server) Watcher() Watcher { return Watcher{s} }

// List returns every object of kind gvk in etcd key order and the resourceVersion of
// the snapshot. The objects are the stored immutable snapshots: deep-copy before
// changing one.
func (w Watcher) List(gvk schema.GroupVersionKind) ([]client.Object, uint64) {
	k, ok := w.s.kinds.byGVK(gvk)
	if !ok {
		return nil, w.s.rv
	}
	if !k.isStorage() {
		return w.versionList(k)
	}
	ks := w.s.store(k)
	keys := ks.keys()
	out := make([]client.Object, len(keys))
	for i, key := range keys {
		out[i] = ks.objects[key]
	}
	return out, w.s.rv
}

// Watch calls fn synchronously, in resourceVersion order, for every change to an
// object of kind gvk committed after the call, until stop is called. A
// non-storage version of a custom resource gets the changes converted
// (versions.go).
func (w Watcher) Watch(gvk schema.GroupVersionKind, fn func(Event)) (stop func()) {
	sub := &subscription{fn: fn, active: true}
	w.s.subs[gvk] = append(w.s.subs[gvk], sub)
	return func() {
		if !sub.active {
			return
		}
		sub.active = false
		subs := w.s.subs[gvk]
		for i, x := range subs {
			if x == sub {
				w.s.subs[gvk] = append(subs[:i:i], subs[i+1:]...)
				break
			}
		}
	}
}
