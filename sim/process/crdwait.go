package process

import (
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A controller whose Kind source names a kind the apiserver does not serve
// yet (its CRD not yet established: an operator that installs it in main.go
// or a Runnable) starts as controller-runtime's Kind source starts: it asks
// for the informer at once and then every 10 s (wait.PollUntilContextCancel
// in pkg/internal/source/kind.go), logging "if kind is a CRD, it should be
// installed before calling Start" each time, and the controller gives up
// after its CacheSyncTimeout (2 minutes by default): the manager then exits
// and the process restarts.

// kindSourcePoll is the Kind source's informer poll interval.
const kindSourcePoll = 10 * time.Second

// cacheSyncTimeout is controller-runtime's default CacheSyncTimeout.
const cacheSyncTimeout = 2 * time.Minute

// unservedKind is the first kind of the controller's pending sources that the
// server does not serve.
func (h *hosted) unservedKind() (schema.GroupVersionKind, bool) {
	h.mu.Lock()
	srcs := append([]source.TypedSource[reconcile.Request](nil), *h.watches...)
	h.mu.Unlock()
	for _, src := range srcs {
		v := reflect.ValueOf(src)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			continue
		}
		typ := v.Elem().FieldByName("Type")
		if !typ.IsValid() {
			continue
		}
		obj, ok := typ.Interface().(client.Object)
		if !ok {
			continue
		}
		gvk, err := h.m.cache.gvkOf(obj)
		if err != nil {
			continue
		}
		if _, served := h.m.p.env.Server.KindFor(gvk); !served {
			return gvk, true
		}
	}
	return schema.GroupVersionKind{}, false
}

// waitServed polls until every source's kind is served, then starts the
// controller; past the CacheSyncTimeout the incarnation exits.
func (h *hosted) waitServed(gvk schema.GroupVersionKind, since time.Time) {
	m, p := h.m, h.m.p
	p.record(trace.Step{Op: "log", Result: fmt.Sprintf("ERROR if kind is a CRD, it should be installed before calling Start: controller %s: no matches for kind %q in version %q",
		h.name, gvk.Kind, gvk.GroupVersion().String())})
	p.env.Clock.AfterFunc(kindSourcePoll, func() {
		if p.mgr != m || !p.started || m.stopped.Load() {
			return // that incarnation is gone
		}
		if gvk, waiting := h.unservedKind(); waiting {
			if p.env.Clock.Now().Sub(since) >= cacheSyncTimeout {
				reason := fmt.Sprintf("controller %s: failed to wait for caches to sync kind source %s: timed out waiting for cache to be synced", h.name, gvk)
				p.record(trace.Step{Op: "setup", Result: "error: " + reason})
				p.terminate(reason, true)
				return
			}
			h.waitServed(gvk, since)
			return
		}
		if err := h.start(); err != nil {
			p.record(trace.Step{Op: "setup", Result: "error: " + err.Error()})
			p.terminate("controller "+h.name+" failed to start: "+err.Error(), true)
		}
	})
}
