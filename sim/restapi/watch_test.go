package restapi_test

import (
	"context"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

// fakeFeed is a process's watch cache of ConfigMaps, written by the test.
type fakeFeed struct {
	objs  []client.Object
	rv    uint64
	start uint64
	log   []restapi.WatchEvent
	subs  []func(restapi.WatchEvent)
}

func (f *fakeFeed) Snapshot(bool) ([]client.Object, uint64) { return f.objs, f.rv }
func (f *fakeFeed) Since(rv uint64) ([]restapi.WatchEvent, bool) {
	if rv < f.start {
		return nil, false
	}
	var out []restapi.WatchEvent
	for _, ev := range f.log {
		if ev.RV > rv {
			out = append(out, ev)
		}
	}
	return out, true
}
func (f *fakeFeed) Subscribe(fn func(restapi.WatchEvent)) func() {
	f.subs = append(f.subs, fn)
	return func() {}
}

func (f *fakeFeed) emit(typ watch.EventType, name, n string, labels map[string]string) {
	f.rv++
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: labels, ResourceVersion: strconv.FormatUint(f.rv, 10)}, Data: map[string]string{"n": n}}
	ev := restapi.WatchEvent{Type: typ, Object: cm, RV: f.rv}
	f.log = append(f.log, ev)
	for _, s := range f.subs {
		s(ev)
	}
}

// feedWorld is a REST config whose watches and resourceVersion=0 lists are
// served from feed; settles counts the settles after events.
func feedWorld(t *testing.T, feed *fakeFeed, settles *int) kubernetes.Interface {
	clk := clock.New(clock.Epoch)
	server := apiserver.New(apiserver.Options{Scheme: newScheme(t), Clock: clk,
		Later: func(d time.Duration, f func()) { clk.AfterFunc(d, f) }})
	server.CreateDefaultNamespaces()
	c := kubeclient.New(server, apiserver.Admin, kubeclient.Options{})
	tr := restapi.New(c, server, "op", nil)
	tr.SetFeeds(func(gvk schema.GroupVersionKind) (restapi.Feed, error) {
		if gvk.Kind != "ConfigMap" {
			t.Fatalf("feed of %v asked", gvk)
		}
		return feed, nil
	}, func() { *settles++ })
	return kubernetes.NewForConfigOrDie(tr.Config())
}

// A list at resourceVersion 0 (a reflector's) is answered from the
// process's watch cache, not the apiserver: here a ConfigMap only the feed
// has, with the feed's resourceVersion. A list without one reaches the
// apiserver.
func TestAListAtResourceVersionZeroIsTheProcesssWatchCache(t *testing.T) {
	feed := &fakeFeed{}
	feed.emit(watch.Added, "cached", "1", nil)
	feed.objs = []client.Object{feed.log[0].Object}
	cs := feedWorld(t, feed, new(int))
	got, err := cs.CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Items) != 1 || got.Items[0].Name != "cached" || got.ResourceVersion != "1" {
		t.Errorf("rv=0 list: %d items, rv %q, want the feed's one ConfigMap at rv 1", len(got.Items), got.ResourceVersion)
	}
	live, err := cs.CoreV1().ConfigMaps("default").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range live.Items {
		if cm.Name == "cached" {
			t.Errorf("a list without resourceVersion was answered from the feed")
		}
	}
}

// A watch from a resourceVersion gets the feed's events after it, then the
// later ones as they come (each followed by a settle), filtered by the
// label selector; from a resourceVersion older than the feed it is 410
// Expired, so a reflector relists.
func TestAWatchStreamsTheFeedFromItsResourceVersion(t *testing.T) {
	feed := &fakeFeed{start: 1}
	feed.emit(watch.Added, "a", "1", map[string]string{"app": "x"})
	feed.emit(watch.Added, "b", "1", map[string]string{"app": "y"})
	feed.emit(watch.Modified, "a", "2", map[string]string{"app": "x"})
	settles := 0
	cs := feedWorld(t, feed, &settles)
	ctx := context.Background()
	w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: "1", LabelSelector: "app=x"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	next := func() (watch.EventType, string) {
		select {
		case ev := <-w.ResultChan():
			cm := ev.Object.(*corev1.ConfigMap)
			return ev.Type, cm.Name + "=" + cm.Data["n"] + "@" + cm.ResourceVersion
		case <-time.After(5 * time.Second):
			t.Fatal("no event")
			return "", ""
		}
	}
	if typ, got := next(); typ != watch.Modified || got != "a=2@3" {
		t.Errorf("first event %s %s, want the logged MODIFIED a=2@3 (b filtered out, a's add before rv 1)", typ, got)
	}
	feed.emit(watch.Deleted, "a", "2", map[string]string{"app": "x"})
	if typ, got := next(); typ != watch.Deleted || got != "a=2@4" {
		t.Errorf("next event %s %s, want DELETED a=2@4", typ, got)
	}
	if settles != 1 {
		t.Errorf("%d settles after one streamed event, want 1", settles)
	}
	_, err = cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Errorf("watch from rv 0: %v", err)
	}
	feed.start = 3
	_, err = cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{ResourceVersion: "2"})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Errorf("watch from rv 2 with the feed from 3: %v, want 410 Expired", err)
	}
}

// A watch-list (sendInitialEvents, as client-go's reflector asks first)
// gets the cached objects as ADDED events, then the bookmark that ends
// them, at the feed's resourceVersion.
func TestAWatchListSendsTheCacheThenItsBookmark(t *testing.T) {
	feed := &fakeFeed{}
	feed.emit(watch.Added, "a", "1", nil)
	feed.emit(watch.Added, "b", "1", nil)
	feed.objs = []client.Object{feed.log[0].Object, feed.log[1].Object}
	cs := feedWorld(t, feed, new(int))
	w, err := cs.CoreV1().ConfigMaps("").Watch(context.Background(), metav1.ListOptions{SendInitialEvents: ptr.To(true), AllowWatchBookmarks: true, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []string
	for len(got) < 3 {
		ev := <-w.ResultChan()
		cm := ev.Object.(*corev1.ConfigMap)
		got = append(got, string(ev.Type)+" "+cm.Name+" "+cm.ResourceVersion+" "+cm.Annotations[metav1.InitialEventsAnnotationKey])
	}
	want := []string{"ADDED a 1 ", "ADDED b 2 ", "BOOKMARK  2 true"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %q, want %q", i, got[i], want[i])
		}
	}
}
