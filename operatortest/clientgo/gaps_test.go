package clientgo_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
)

// Once a world has run an operator set up by Setup, utilruntime's error
// handlers are one, the logger, with no backoff, outside every world too,
// for the rest of the binary (client-go's default is two: the logger and a
// 1 ms backoff).
func TestSetupDropsTheErrorBackoffForTheWholeBinary(t *testing.T) {
	file := filepath.Join(t.TempDir(), "none.plan")
	if err := os.WriteFile(file, []byte("seed 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("ctrlsim.plan", file); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("ctrlsim.plan", "")
	o := operatortest.Options{
		Scheme: clientgoscheme.Scheme, Workers: 1,
		Managers: []operatortest.Manager{{Name: "cg", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			<-ctx.Done()
			return nil
		})}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}},
	}
	if _, err := operatortest.Explore(t, o); err != nil {
		t.Fatal(err)
	}
	if n := len(utilruntime.ErrorHandlers); n != 1 {
		t.Errorf("after the exploration, outside its worlds: %d error handlers, want the one Setup left", n)
	}
}

// An event broadcaster's correlator is client-go's, on the bubble's clock
// (time.Now) rather than the scheduler's: the same Event recorded twice is
// one Event of count 2 (the correlator's patch), stamped with the bubble's
// time; the simulator's own recorder would write it twice
// (sim/process.TestARepeatedEventIsWrittenAgainNotCounted).
func TestABroadcastersCorrelatorCountsByTheBubblesClock(t *testing.T) {
	file := filepath.Join(t.TempDir(), "none.plan")
	if err := os.WriteFile(file, []byte("seed 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := flag.Set("ctrlsim.plan", file); err != nil {
		t.Fatal(err)
	}
	defer flag.Set("ctrlsim.plan", "")
	var events []corev1.Event
	var created time.Time
	o := operatortest.Options{
		Scheme: clientgoscheme.Scheme, Workers: 1,
		Managers: []operatortest.Manager{{Name: "cg", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			b := record.NewBroadcaster(record.WithContext(ctx))
			b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: env.Clientset.CoreV1().Events("")})
			rec := b.NewRecorder(clientgoscheme.Scheme, corev1.EventSource{Component: "announcer"})
			cm, err := env.Clientset.CoreV1().ConfigMaps("shop").Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			rec.Event(cm, corev1.EventTypeNormal, "Again", "the same message")
			rec.Event(cm, corev1.EventTypeNormal, "Again", "the same message")
			<-ctx.Done()
			return nil
		})}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}}},
		Properties: []operatortest.Property{{Name: "events", Check: func(h *operatortest.History) error {
			var l corev1.EventList
			if err := h.List(&l); err != nil {
				return err
			}
			events = l.Items
			var cm corev1.ConfigMap
			if err := h.Get(client.ObjectKey{Namespace: "shop", Name: "web"}, &cm); err != nil {
				return err
			}
			created = cm.CreationTimestamp.Time
			return nil
		}}},
	}
	if _, err := operatortest.Explore(t, o); err != nil {
		t.Fatal(err)
	}
	if len(events) != 1 {
		t.Fatalf("%d Events, want the one the correlator counted twice", len(events))
	}
	e := events[0]
	if e.Reason != "Again" || e.Count != 2 || !e.FirstTimestamp.Time.Equal(created) || !e.LastTimestamp.Time.Equal(created) {
		t.Errorf("Event %s: count %d, first %v, last %v; want Again, 2, both at the bubble's %v",
			e.Reason, e.Count, e.FirstTimestamp, e.LastTimestamp, created)
	}
}

// Ten controllers woken at one instant (each after its own
// WaitForCacheSync) take the tokens of their clientset's client-side rate
// limiter (client-go's default: 5 a second, a burst of 10) before their
// first call into the simulator, in the order Go's scheduler runs them: the
// one that finds the bucket empty waits for the next token (its create
// comes about 100 ms after the other nine's), another in each run, and 8
// replays of one plan give more than one trace hash (measured: 8 in 8).
// Without the limit they agree (TestTenControllersSyncingTheirOwnCachesDeterminism).
func TestTenControllersTakingTheClientsTokensPartReplays(t *testing.T) {
	if hashes := fleetHashes(t, 0); len(hashes) < 2 {
		t.Errorf("8 replays of one plan gave one trace hash: the rate limiter's tokens are taken in one order")
	}
}
