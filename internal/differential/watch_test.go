package differential

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// watchedEvent is one watch event as the comparison sees it: the object's state
// and its resourceVersion as a rank among the versions the run saw (events and
// responses), so that "the version of the last write" and "a newer one" compare.
type watchedEvent struct {
	Type       watch.EventType
	Name       string
	Finalizers []string
	Deleting   bool
	RV         string
}

// finalizedObjectScript makes a kind's objects go through the three ways a watch
// sees a deletion: the last finalizer removed by an update, the last finalizer
// removed by a merge patch, and a delete without finalizers.
func finalizedObjectScript(k string) []Op {
	return []Op{
		{Verb: Create, Kind: k, Namespace: "a", Name: "one", Finalizer: true},
		{Verb: Delete, Kind: k, Namespace: "a", Name: "one"},
		{Verb: Get, Kind: k, Namespace: "a", Name: "one"},
		{Verb: Update, Kind: k, Namespace: "a", Name: "one", Mutation: RemoveFinalizers},
		{Verb: Create, Kind: k, Namespace: "a", Name: "two", Finalizer: true, V: 1},
		{Verb: Delete, Kind: k, Namespace: "a", Name: "two", Propagation: metav1.DeletePropagationOrphan},
		{Verb: MergePatch, Kind: k, Namespace: "a", Name: "two", Mutation: RemoveFinalizers},
		{Verb: Create, Kind: k, Namespace: "a", Name: "three"},
		{Verb: Delete, Kind: k, Namespace: "a", Name: "three"},
	}
}

// TestWatchOfAFinalizedObject: when the last finalizer of a deleting object is
// removed, the object is deleted, and a watch's Deleted event carries the last
// state that was stored (its finalizers still there, deletionTimestamp set), not
// the update's object, with a resourceVersion newer than any write's: the deletion's
// (k8s.io/apiserver registry/generic/registry/store.go Update -> errEmptiedFinalizers
// -> deleteWithoutFinalizers deletes the stored object without writing the update;
// storage/etcd3/watcher.go sends the previous value with the delete's revision).
func TestWatchOfAFinalizedObject(t *testing.T) {
	r := needReal(t)
	for _, k := range []string{ConfigMap, Widget} {
		t.Run(k, func(t *testing.T) {
			names := nextNames()
			ops := finalizedObjectScript(k)
			model := watchModel(t, names, k, ops)
			real := watchReal(t, r, names, k, ops)
			if d := cmp.Diff(model, real); d != "" {
				t.Errorf("the watch events of the model differ from kube-apiserver's (-model +real):\n%s", d)
			}
			for _, e := range real {
				if e.Type == watch.Deleted && e.Name != "three" && len(e.Finalizers) == 0 {
					t.Errorf("kube-apiserver's Deleted event of %s carries no finalizers: %+v", e.Name, e)
				}
			}
		})
	}
}

// watchModel runs ops on a fresh model and returns the watch events of kind k in the
// run's namespace "a".
func watchModel(t *testing.T, names Names, k string, ops []Op) []watchedEvent {
	t.Helper()
	m := NewModel()
	s := newSide(m, names)
	s.do(ctx, Op{Verb: Create, Kind: Namespace, Namespace: "a"})
	gvk, err := apiutil.GVKForObject(kinds[k].newObj(), Scheme)
	if err != nil {
		t.Fatal(err)
	}
	var events []watch.Event
	stop := m.Server.Watcher().Watch(gvk, func(e apiserver.Event) {
		if e.Object.GetNamespace() == names.Namespace("a") {
			events = append(events, watch.Event{Type: e.Type, Object: e.Object.DeepCopyObject()})
		}
	})
	defer stop()
	runOps(t, s, ops)
	return summarize(events, s)
}

// watchReal runs ops (a finalizedObjectScript) on envtest with a watch of kind k in
// the run's namespace "a" open from before the first, and returns its events up to
// the third Deleted one.
func watchReal(t *testing.T, r *Real, names Names, k string, ops []Op) []watchedEvent {
	t.Helper()
	s := newSide(r, names)
	s.do(ctx, Op{Verb: Create, Kind: Namespace, Namespace: "a"})
	wc, err := client.NewWithWatch(r.Config, client.Options{Scheme: Scheme, Mapper: r.admin.RESTMapper()})
	if err != nil {
		t.Fatal(err)
	}
	w, err := wc.Watch(ctx, kinds[k].newList(), client.InNamespace(names.Namespace("a")))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	runOps(t, s, ops)
	const deletes = 3 // one, two and three
	var events []watch.Event
	timeout := time.After(10 * time.Second)
	for deleted := 0; deleted < deletes; {
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch closed after %d events", len(events))
			}
			if e.Type == watch.Error {
				t.Fatalf("watch error: %v", e.Object)
			}
			events = append(events, e)
			if e.Type == watch.Deleted {
				deleted++
			}
		case <-timeout:
			t.Fatalf("%d Deleted events within 10s, want %d; events: %v", deleted, deletes, summarize(events, s))
		}
	}
	return summarize(events, s)
}

func runOps(t *testing.T, s *side, ops []Op) {
	t.Helper()
	for _, op := range ops {
		if r := s.do(ctx, op); r.err != nil {
			t.Fatalf("%s: %v", op, r.err)
		}
	}
}

// summarize ranks resourceVersions among those of the events and of every version
// the side's client saw.
func summarize(events []watch.Event, s *side) []watchedEvent {
	var rvs []uint64
	add := func(o client.Object) {
		if v, err := strconv.ParseUint(o.GetResourceVersion(), 10, 64); err == nil && !slices.Contains(rvs, v) {
			rvs = append(rvs, v)
		}
	}
	for _, e := range events {
		add(e.Object.(client.Object))
	}
	for _, versions := range s.seen { // lint:order-independent a set, sorted below
		for _, o := range versions {
			add(o)
		}
	}
	slices.Sort(rvs)
	out := make([]watchedEvent, len(events))
	for i, e := range events {
		o := e.Object.(client.Object)
		v, _ := strconv.ParseUint(o.GetResourceVersion(), 10, 64)
		out[i] = watchedEvent{
			Type: e.Type, Name: o.GetName(), Finalizers: o.GetFinalizers(),
			Deleting: o.GetDeletionTimestamp() != nil,
			RV:       fmt.Sprintf("rv-%d", slices.Index(rvs, v)+1),
		}
	}
	return out
}
