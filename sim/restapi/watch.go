package restapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/forms"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// Watches over the REST config.
//
// A reflector (client-go's, under a SharedInformerFactory, a dynamic or a
// metadata informer factory) lists and watches through the transport. The
// apiserver it reaches is the process's own view of the cluster: its watch
// cache of the kind (Feed, given by package process from the process's
// informer of the kind), which applies each change after the plan's lag,
// holds it while a hold lasts and relists when the plan says. So a
// reflector's list at resourceVersion 0, its watch-list (sendInitialEvents)
// and its watch see what the process's controller-runtime cache would see,
// in the same order and at the same instants.
//
// Every event written to a watch stream wakes goroutines the simulator does
// not run (the stream's reader, the reflector, the informer's FIFO, its
// processor's listeners, the operator's handlers): settle (the bubble's
// synctest.Wait) lets them run until each has blocked or called into the
// simulator, before the kernel goes on. Watches are served in a
// testing/synctest bubble only.

// WatchEvent is one change as a process's watch cache applied it: its type
// (Added, Modified, Deleted), the object (shared: never changed) and the
// resourceVersion the cache had reached with it.
type WatchEvent struct {
	Type   watch.EventType
	Object client.Object
	RV     uint64
}

// Feed is a process's watch cache of one kind.
type Feed interface {
	// Snapshot is the cached objects (shared: never changed) and the
	// resourceVersion the cache has reached. They come in namespace/name
	// order, as kube-apiserver's watch cache lists them; with initial (a
	// watch-list's initial events, or a reflector's list, which stands for
	// them) in the order the feed gives (package process's: a shuffle of
	// namespace/name order drawn from the plan).
	Snapshot(initial bool) ([]client.Object, uint64)
	// Since is the events applied after resourceVersion rv, in order; false
	// if rv is older than the oldest event the feed kept (a watch from it is
	// answered 410 Expired, as an expired watch cache window is).
	Since(rv uint64) ([]WatchEvent, bool)
	// Subscribe calls fn with every later event, as it is applied; stop ends
	// the subscription.
	Subscribe(fn func(WatchEvent)) (stop func())
}

// Feeds gives the process's feed of a kind (its informer, created on first
// use).
type Feeds func(gvk schema.GroupVersionKind) (Feed, error)

// SetFeeds makes the transport serve watches and resourceVersion=0 lists
// from feeds; settle runs after every event written to a watch stream (see
// above). Without feeds (or settle) watches are refused.
func (t *Transport) SetFeeds(feeds Feeds, settle func()) { t.feeds, t.settle = feeds, settle }

// initialEventsEnd is the annotation of the bookmark that ends a
// watch-list's initial events (metav1.InitialEventsAnnotationKey).
const initialEventsEnd = metav1.InitialEventsAnnotationKey

// watchFilter is what a watch or list request selects.
type watchFilter struct {
	namespace string
	label     labels.Selector
	field     fields.Selector
}

func (t *Transport) filterOf(tg target, q map[string][]string) (watchFilter, error) {
	f := watchFilter{namespace: tg.namespace}
	o := &client.ListOptions{}
	if err := selectors(o, first(q, "labelSelector"), first(q, "fieldSelector")); err != nil {
		return f, err
	}
	f.label, f.field = o.LabelSelector, o.FieldSelector
	if tg.name != "" { // a watch of one object: /namespaces/ns/kind/name?watch=true
		sel := fields.OneTermEqualSelector("metadata.name", tg.name)
		if f.field != nil {
			sel = fields.AndSelectors(f.field, sel)
		}
		f.field = sel
	}
	if f.field != nil {
		for _, r := range f.field.Requirements() {
			if r.Field != "metadata.name" && r.Field != "metadata.namespace" {
				return f, apierrors.NewBadRequest(fmt.Sprintf("ctrlsim: process %s: field selector %q over a REST watch or a resourceVersion=0 list: only metadata.name and metadata.namespace are served (known gap of package restapi)", t.name, f.field))
			}
		}
	}
	return f, nil
}

func (f watchFilter) matches(obj client.Object) bool {
	if f.namespace != "" && obj.GetNamespace() != f.namespace {
		return false
	}
	if f.label != nil && !f.label.Matches(labels.Set(obj.GetLabels())) {
		return false
	}
	if f.field != nil && !f.field.Matches(fields.Set{"metadata.name": obj.GetName(), "metadata.namespace": obj.GetNamespace()}) {
		return false
	}
	return true
}

// cachedList serves a list at resourceVersion 0 from the feed
// (kube-apiserver answers it from its watch cache). A reflector's list
// (listedByReflector) stands for the initial events of the watch-list that
// client-go v0.37 would make, which reach its store in any order: it comes
// in the feed's order (the plan's shuffle). Any other client's (an
// operator's own List with ResourceVersion "0") comes in namespace/name
// order, as kube-apiserver v1.37's watch cache lists.
func (t *Transport) cachedList(tg target, q map[string][]string, accept string) (int, any, error) {
	initial := listedByReflector()
	list, err := forms.NewNativeList(t.server.Scheme(), tg.kind.GVK)
	if err != nil {
		return 0, nil, err
	}
	var partial *metav1.PartialObjectMetadataList // the metadata client's answer
	if asMetadata(accept) {
		partial = &metav1.PartialObjectMetadataList{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadataList"}}
	}
	call := kubeclient.Call{Verb: "list", Object: list, Namespace: tg.namespace}
	err = t.c.Do(call, func() error {
		filter, err := t.filterOf(tg, q)
		if err != nil {
			return err
		}
		feed, err := t.feeds(tg.kind.GVK)
		if err != nil {
			return err
		}
		objs, rv := feed.Snapshot(initial)
		var items []runtime.Object
		for _, o := range objs {
			if !filter.matches(o) {
				continue
			}
			items = append(items, o.DeepCopyObject())
			if partial != nil {
				partial.Items = append(partial.Items, *metadataOf(o))
			}
		}
		if partial != nil {
			partial.ResourceVersion = strconv.FormatUint(rv, 10)
		}
		if err := meta.SetList(list, items); err != nil {
			return err
		}
		list.SetResourceVersion(strconv.FormatUint(rv, 10))
		return nil
	})
	if err != nil {
		return 0, nil, err
	}
	if partial != nil {
		return http.StatusOK, partial, nil
	}
	if _, ok := list.(runtime.Unstructured); !ok {
		list.GetObjectKind().SetGroupVersionKind(tg.kind.GVK.GroupVersion().WithKind(tg.kind.GVK.Kind + "List"))
	}
	return http.StatusOK, list, nil
}

// reflectorFunc is the prefix of the functions of client-go's reflector: it
// lists from a goroutine of (*Reflector).list's own (its pager's), so one of
// them is on the stack of every list it makes.
const reflectorFunc = "k8s.io/client-go/tools/cache.(*Reflector)."

// listedByReflector reports whether the calling goroutine's list is a
// reflector's (the transport serves a request on the goroutine that makes
// it).
func listedByReflector() bool {
	pcs := make([]uintptr, 128)
	frames := goruntime.CallersFrames(pcs[:goruntime.Callers(3, pcs)])
	for {
		f, more := frames.Next()
		if strings.HasPrefix(f.Function, reflectorFunc) {
			return true
		}
		if !more {
			return false
		}
	}
}

// metadataOf is obj as the metadata client gets it.
func metadataOf(obj client.Object) *metav1.PartialObjectMetadata {
	p := meta.AsPartialObjectMetadata(obj)
	p = p.DeepCopy()
	p.TypeMeta = metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"}
	return p
}

// watch serves a watch: one call of the process (its trace step, latency,
// faults, crash points), answered with a stream of the feed's events.
func (t *Transport) watch(req *http.Request, tg target, q map[string][]string) (*http.Response, error) {
	if t.feeds == nil || t.settle == nil {
		err := t.notServed(fmt.Sprintf("watch of %s", tg.kind.GroupResource()))
		err.(*apierrors.StatusError).ErrStatus.Message += ": watches are served in a testing/synctest bubble only (run the world with package wallclock; operatortest does)"
		return nil, err
	}
	obj, err := t.newObject(tg)
	if err != nil {
		return nil, err
	}
	var st *stream
	call := kubeclient.Call{Verb: "watch", Object: obj, Namespace: tg.namespace, Name: tg.name}
	err = t.c.Do(call, func() error {
		filter, err := t.filterOf(tg, q)
		if err != nil {
			return err
		}
		feed, err := t.feeds(tg.kind.GVK)
		if err != nil {
			return err
		}
		accept := req.Header.Get("Accept")
		// Protobuf frames where the client prefers them and every event's
		// object has one: the kind's (a custom resource, unstructured, has
		// none), or its metadata's.
		_, kindHas := obj.(interface{ Marshal() ([]byte, error) })
		st = newStream(t, tg, asMetadata(accept), prefersProtobuf(accept) && (asMetadata(accept) || kindHas))
		switch rvText := first(q, "resourceVersion"); {
		case first(q, "sendInitialEvents") == "true":
			// watch-list: the cached objects as Added events, then the
			// bookmark that ends them.
			objs, rv := feed.Snapshot(true)
			for _, o := range objs {
				if filter.matches(o) {
					st.write(watch.Added, o)
				}
			}
			bm, err := t.newObject(tg)
			if err != nil {
				return err
			}
			bm.SetResourceVersion(strconv.FormatUint(rv, 10))
			bm.SetAnnotations(map[string]string{initialEventsEnd: "true"})
			st.write(watch.Bookmark, bm)
		case rvText == "" || rvText == "0":
			// from now on
		default:
			rv, err := strconv.ParseUint(rvText, 10, 64)
			if err != nil {
				return apierrors.NewBadRequest(fmt.Sprintf("invalid resource version %q", rvText))
			}
			evs, ok := feed.Since(rv)
			if !ok {
				return apierrors.NewResourceExpired(fmt.Sprintf("too old resource version: %d", rv))
			}
			for _, ev := range evs {
				if filter.matches(ev.Object) {
					st.write(ev.Type, ev.Object)
				}
			}
		}
		st.stop = feed.Subscribe(func(ev WatchEvent) {
			if !filter.matches(ev.Object) || !st.write(ev.Type, ev.Object) {
				return
			}
			t.settle()
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	contentType := "application/json"
	if st.proto {
		contentType = runtime.ContentTypeProtobuf + ";stream=watch"
	}
	return &http.Response{
		Status: "200 OK", StatusCode: http.StatusOK,
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:        http.Header{"Content-Type": []string{contentType}, "Transfer-Encoding": []string{"chunked"}},
		Body:          st,
		ContentLength: -1,
		Request:       req,
	}, nil
}

// stream is a watch response's body: watch events (metav1.WatchEvent, JSON
// one per line, or protobuf frames where the client prefers protobuf)
// written by the kernel as the feed applies them, read by the client's
// decoder. A read with nothing to read blocks on a channel of the bubble
// (durably: the bubble settles around it).
type stream struct {
	t      *Transport
	tg     target
	meta   bool // PartialObjectMetadata events (the metadata client's watch)
	proto  bool // protobuf frames (protobuf.go)
	mu     sync.Mutex
	buf    bytes.Buffer
	closed bool
	ready  chan struct{} // capacity 1: something was written, or the stream closed
	stop   func()
}

func newStream(t *Transport, tg target, asMeta, proto bool) *stream {
	return &stream{t: t, tg: tg, meta: asMeta, proto: proto, ready: make(chan struct{}, 1)}
}

// write appends one event; false if the client has closed the stream.
func (s *stream) write(typ watch.EventType, obj client.Object) bool {
	frame := encodeEvent(typ, obj, s.meta, s.proto, s.tg, s.t)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.buf.Write(frame)
	if !s.proto {
		s.buf.WriteByte('\n')
	}
	s.signal()
	return true
}

// lastEvent is the frame encodeEvent made last: a feed hands one event's
// object to each of its subscribers in turn, every watch of that kind in
// every process of the world, and their frames are the same bytes. Holding
// the object keeps its address from being reused for another.
var lastEvent struct {
	mu    sync.Mutex
	typ   watch.EventType
	obj   client.Object
	meta  bool
	proto bool
	gvk   schema.GroupVersionKind
	frame []byte
}

// encodeEvent is one watch event's frame: the JSON of a metav1.WatchEvent,
// built around the object's JSON as json.Marshal builds it (the object's
// bytes are already compact, so they are not scanned again), or, where proto
// and the object has one, its protobuf frame (protobufEvent).
func encodeEvent(typ watch.EventType, obj client.Object, asMeta, proto bool, tg target, t *Transport) []byte {
	lastEvent.mu.Lock()
	if lastEvent.obj == obj && lastEvent.typ == typ && lastEvent.meta == asMeta && lastEvent.proto == proto && lastEvent.gvk == tg.kind.GVK {
		frame := lastEvent.frame
		lastEvent.mu.Unlock()
		return frame
	}
	lastEvent.mu.Unlock() // encoded outside the lock: worlds of other tests may run beside this one
	var out runtime.Object = obj
	if asMeta {
		out = metadataOf(obj)
	} else if _, ok := obj.(runtime.Unstructured); !ok {
		c := obj.DeepCopyObject()
		c.GetObjectKind().SetGroupVersionKind(tg.kind.GVK)
		out = c
	}
	var frame []byte
	if proto {
		raw, ok := t.protobufOf(out)
		if !ok {
			panic(fmt.Sprintf("ctrlsim: a protobuf watch event of %s has no protobuf", tg.kind.GroupResource()))
		}
		frame = protobufEvent(string(typ), raw)
	} else {
		raw, err := json.Marshal(out)
		if err != nil {
			panic(fmt.Sprintf("ctrlsim: encoding a watch event of %s: %v", tg.kind.GroupResource(), err))
		}
		kind, err := json.Marshal(string(typ))
		if err != nil {
			panic(fmt.Sprintf("ctrlsim: encoding a watch event of %s: %v", tg.kind.GroupResource(), err))
		}
		frame = make([]byte, 0, len(raw)+len(kind)+20)
		frame = append(frame, `{"type":`...)
		frame = append(frame, kind...)
		frame = append(frame, `,"object":`...)
		frame = append(frame, raw...)
		frame = append(frame, '}')
	}
	lastEvent.mu.Lock()
	lastEvent.typ, lastEvent.obj, lastEvent.meta, lastEvent.proto, lastEvent.gvk, lastEvent.frame = typ, obj, asMeta, proto, tg.kind.GVK, frame
	lastEvent.mu.Unlock()
	return frame
}

func (s *stream) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// Read returns what was written, or blocks until something is; io.EOF once
// the client closed the stream.
func (s *stream) Read(p []byte) (int, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return 0, io.EOF
		}
		if s.buf.Len() > 0 {
			n, _ := s.buf.Read(p)
			s.mu.Unlock()
			return n, nil
		}
		s.mu.Unlock()
		<-s.ready
	}
}

// Close ends the watch (the client's Stop): the subscription ends and a
// blocked Read returns.
func (s *stream) Close() error {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	stop := s.stop
	s.signal()
	s.mu.Unlock()
	if !already && stop != nil {
		stop()
	}
	return nil
}
