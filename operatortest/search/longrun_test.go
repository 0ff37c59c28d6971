package search

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// progressHooks replaces the progress line's hooks for one test: lines
// logged are kept (safe from the watcher's goroutine too), the ticker is ch,
// ticked by hand, and the clock reads *now.
type progressHooks struct {
	mu    sync.Mutex
	lines []string
	ticks chan time.Time
	now   time.Time
}

func hookProgress(t *testing.T, every time.Duration) *progressHooks {
	h := &progressHooks{ticks: make(chan time.Time), now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	oldEvery, oldLog, oldNow, oldTicker, oldSweep := ProgressEvery, LogProgress, progressNow, progressTicker, NoSweep
	ProgressEvery, NoSweep = every, true
	LogProgress = func(_ *testing.T, format string, args ...any) {
		h.mu.Lock()
		defer h.mu.Unlock()
		h.lines = append(h.lines, fmt.Sprintf(format, args...))
	}
	progressNow = func() time.Time {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.now
	}
	progressTicker = func(time.Duration) (<-chan time.Time, func()) { return h.ticks, func() {} }
	t.Cleanup(func() {
		ProgressEvery, LogProgress, progressNow, progressTicker, NoSweep = oldEvery, oldLog, oldNow, oldTicker, oldSweep
	})
	return h
}

// advance moves the clock on by d and ticks twice: the second tick is taken
// only once the watcher has logged what the first one showed it.
func (h *progressHooks) advance(d time.Duration) {
	h.mu.Lock()
	h.now = h.now.Add(d)
	now := h.now
	h.mu.Unlock()
	h.ticks <- now
	h.ticks <- now
}

func (h *progressHooks) logged() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.lines...)
}

// running is what the exploration in this process runs now ("": nothing).
func running() string {
	what := ""
	longRuns.Range(func(_, v any) bool {
		l := v.(*longRun)
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.what != "" {
			what = l.what
		}
		return true
	})
	return what
}

// deleted is violated when the seed object kind namespace/name is deleted.
func deleted(name, kind, namespace, obj string) world.Property {
	return world.Property{Name: name, Check: func(h *world.History) error {
		for _, ev := range h.Run().Log {
			if ev.Type == watch.Deleted && ev.GVK.Kind == kind && ev.Object.GetNamespace() == namespace && ev.Object.GetName() == obj {
				return fmt.Errorf("%s %s/%s deleted at resourceVersion %d", kind, namespace, obj, ev.ResourceVersion)
			}
		}
		return nil
	}}
}

func twoSeedOptions(props ...world.Property) world.Options {
	return world.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []world.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).
				Complete(reconcile.Func(func(context.Context, reconcile.Request) (reconcile.Result, error) { return reconcile.Result{}, nil }))
		}}},
		Objects: []client.Object{
			&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "token"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "app"}},
		},
		Properties: props,
		Checks:     60,
		Workers:    1,
	}
}

// A plan or shrink candidate that runs longer than two progress periods is
// named, with what it is doing and its plan, at the next period, while it
// runs; one that has not run that long is not.
func TestAPlanThatRunsLongIsNamedWhileItRuns(t *testing.T) {
	h := hookProgress(t, time.Minute)
	var tried []string // what ran when the clock was moved on
	slow := world.Property{Name: "slow", Check: func(*world.History) error {
		what := running()
		switch {
		case what == "plan 3" && !contains(tried, what):
			tried = append(tried, what)
			h.advance(time.Minute) // one period: not long yet
			h.advance(2 * time.Minute)
		case strings.HasPrefix(what, "shrink candidate ") && len(tried) == 1:
			tried = append(tried, what)
			h.advance(3 * time.Minute)
		}
		return nil
	}}
	o := twoSeedOptions(slow, deleted("app-kept", "ConfigMap", "team", "app"))
	res, err := Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught || len(tried) != 2 {
		t.Fatalf("the exploration did not run plan 3 and then shrink (caught %v, ran long: %q)", res.Caught, tried)
	}
	var long []string // each tick after the clock moved logs it: once each
	for _, l := range h.logged() {
		if strings.Contains(l, " has run for ") && !contains(long, l) {
			long = append(long, l)
		}
	}
	want := []string{
		"operatortest: plan 3 has run for 3m0s, judging it against its fault-free runs: seed ",
		"operatortest: " + tried[1] + " has run for 3m0s, judging it to see whether it still violates: seed ",
	}
	if len(long) != 2 || !strings.HasPrefix(long[0], want[0]) || !strings.HasPrefix(long[1], want[1]) {
		t.Errorf("the lines naming a plan that ran long: %q, want two, starting %q", long, want)
	}
}

// With KeepGoing each distinct violation is printed when first judged (its
// signature, plan number and verdict), and saved as soon as it is shrunk:
// the first one's plan file is there when the second is found.
func TestAKeepGoingExplorationSaysWhatItFindsAsItFindsIt(t *testing.T) {
	h := hookProgress(t, time.Hour)
	t.Chdir(t.TempDir())
	t.Setenv("CTRLSIM_ARTIFACTS", t.TempDir())
	var savedAtFound [][]string
	log := LogProgress
	LogProgress = func(t *testing.T, format string, args ...any) {
		if strings.HasPrefix(format, "%s") && len(args) == 1 && strings.HasPrefix(fmt.Sprint(args[0]), "operatortest: found ") {
			files, _ := filepath.Glob(filepath.Join("testdata", "ctrlsim", "*.plan"))
			savedAtFound = append(savedAtFound, files)
		}
		log(t, format, args...)
	}
	o := twoSeedOptions(deleted("app-kept", "ConfigMap", "team", "app"), deleted("token-kept", "Secret", "team", "token"))
	o.KeepGoing, o.Expect = true, world.AnyProperty
	Run(t, o)
	var found []string
	for _, l := range h.logged() {
		if strings.HasPrefix(l, "operatortest: found ") {
			found = append(found, l)
		}
	}
	if len(found) < 2 {
		t.Fatalf("%d found lines, want one for each of the two properties: %q", len(found), found)
	}
	for _, l := range found {
		ok := strings.HasPrefix(l, "operatortest: found app-kept ConfigMap at plan ") && strings.Contains(l, ": app-kept at ") && strings.Contains(l, "ConfigMap team/app deleted") ||
			strings.HasPrefix(l, "operatortest: found token-kept Secret at plan ") && strings.Contains(l, ": token-kept at ") && strings.Contains(l, "Secret team/token deleted")
		if !ok {
			t.Errorf("a found line without its signature, plan and verdict: %s", l)
		}
	}
	if len(savedAtFound) < 2 || len(savedAtFound[0]) != 0 || len(savedAtFound[1]) != 1 {
		t.Errorf("the plans saved when each violation was found: %q, want none at the first and the first's at the second", savedAtFound)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
