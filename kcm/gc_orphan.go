package kcm

import (
	"net/http"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"unsafe"
)

// Orphaning's patches, one dependent after the other.
//
// attemptToOrphanWorker orphans an owner's dependents from a goroutine per
// dependent (GarbageCollector.orphanDependents), made in the order of the
// owner's dependents map; the scheduler numbers goroutines made at one site
// by their ids (sim/scheduler's adopt.go), so the same plan would patch them
// in a new order in some runs. When the orphan queue hands a worker an owner
// with several dependents, their patches take turns in the order of the
// dependents' namespace and name: each of those goroutines waits, before its
// first request, until the one before it has made its own (or the
// collector's incarnation has ended). Upstream's patches run at once; here
// they run one after the other, in one of the orders a real cluster can
// give. Dependents of one owner that share a namespace and a name (two
// kinds) take no turns.

// orphanTurn is the order of one owner's orphaning patches.
type orphanTurn struct {
	owner any
	keys  []string        // the dependents' namespace/name, sorted
	open  []chan struct{} // closed when keys[i]'s patch may go
	done  []bool
}

// orphanStart is called with each owner the orphan queue hands a worker.
func (f *gcFlusher) orphanStart(owner any) {
	keys := dependentKeys(owner)
	slices.Sort(keys)
	if len(keys) < 2 || len(slices.Compact(slices.Clone(keys))) != len(keys) {
		return
	}
	t := &orphanTurn{owner: owner, keys: keys, open: make([]chan struct{}, len(keys)), done: make([]bool, len(keys))}
	for i := range t.open {
		t.open[i] = make(chan struct{})
	}
	close(t.open[0])
	f.mu.Lock()
	f.turns = append(f.turns, t)
	f.mu.Unlock()
}

// orphanEnd is called when the worker is done with owner.
func (f *gcFlusher) orphanEnd(owner any) {
	f.mu.Lock()
	f.turns = slices.DeleteFunc(f.turns, func(t *orphanTurn) bool { return t.owner == owner })
	f.mu.Unlock()
}

// turnOf is the turn r waits for: a patch of a dependent whose orphaning
// takes turns, from orphanDependents' goroutine, not yet made.
func (f *gcFlusher) turnOf(r *http.Request) (*orphanTurn, int) {
	if r.Method != http.MethodPatch {
		return nil, 0
	}
	f.mu.Lock()
	none := len(f.turns) == 0
	f.mu.Unlock()
	if none || !fromOrphanDependents() {
		return nil, 0
	}
	key := pathKey(r.URL.Path)
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, t := range f.turns {
		for i, k := range t.keys {
			if k == key && !t.done[i] {
				return t, i
			}
		}
	}
	return nil, 0
}

// advance lets the next patch of t go once keys[i]'s has been made.
func (f *gcFlusher) advance(t *orphanTurn, i int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if t.done[i] {
		return
	}
	t.done[i] = true
	if i+1 < len(t.open) {
		close(t.open[i+1])
	}
}

// fromOrphanDependents reports whether the calling goroutine is one of
// orphanDependents'.
func fromOrphanDependents() bool {
	pc := make([]uintptr, 64)
	n := runtime.Callers(2, pc)
	frames := runtime.CallersFrames(pc[:n])
	for {
		fr, more := frames.Next()
		if strings.Contains(fr.Function, "garbagecollector.(*GarbageCollector).orphanDependents") {
			return true
		}
		if !more {
			return false
		}
	}
}

// pathKey is the namespace/name of a request path (/api/v1/namespaces/NS/RESOURCE/NAME,
// /apis/G/V/namespaces/NS/RESOURCE/NAME, or a cluster-scoped one: /NAME last).
func pathKey(path string) string {
	seg := strings.Split(strings.Trim(path, "/"), "/")
	ns := ""
	for i := 0; i+1 < len(seg); i++ {
		if seg[i] == "namespaces" && i+3 < len(seg) {
			ns = seg[i+1]
			break
		}
	}
	return ns + "/" + seg[len(seg)-1]
}

// dependentKeys are the namespace/name of owner's dependents (a graph node's
// dependents map, read under its dependentsLock through reflect).
func dependentKeys(owner any) []string {
	v := reflect.ValueOf(owner)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	lockField := v.FieldByName("dependentsLock")
	deps := v.FieldByName("dependents")
	if !lockField.IsValid() || !deps.IsValid() || deps.Kind() != reflect.Map || !lockField.CanAddr() {
		return nil
	}
	lock, ok := reflect.NewAt(lockField.Type(), unsafe.Pointer(lockField.UnsafeAddr())).Interface().(*sync.RWMutex)
	if !ok {
		return nil
	}
	lock.RLock()
	defer lock.RUnlock()
	var keys []string
	iter := deps.MapRange()
	for iter.Next() { // lint:order-independent sorted by the caller
		d := iter.Key()
		if d.Kind() != reflect.Pointer || d.IsNil() {
			continue
		}
		id := d.Elem().FieldByName("identity")
		if !id.IsValid() {
			continue
		}
		keys = append(keys, id.FieldByName("Namespace").String()+"/"+id.FieldByName("OwnerReference").FieldByName("Name").String())
	}
	return keys
}
