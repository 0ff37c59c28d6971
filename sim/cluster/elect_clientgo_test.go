package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/fake"
	coordinationv1client "k8s.io/client-go/kubernetes/typed/coordination/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/leaderelection"
	"k8s.io/client-go/tools/leaderelection/resourcelock"
	"k8s.io/klog/v2"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The simulator's leader election (sim/process elect.go) against client-go's
// own LeaderElector, the code controller-runtime's manager runs, in the same
// two scenarios: candidates a (from 0s) and b (from 1s) for one Lease with
// controller-runtime's durations (15s, 10s, 2s); then either a dies at 21s
// (nothing released), or every Lease update fails from 20s to 40s so that a
// loses the Lease itself. client-go's elector runs on a fake clientset inside
// a testing/synctest bubble: its timers follow the bubble's virtual time and
// its calls take none. The simulator's calls take their latency (about a
// millisecond each), so times are compared to 100ms; the retry jitter is drawn
// from math/rand upstream and from the plan's seed here, so a takeover's time
// is compared by the rule both must keep: at the first retry at least
// LeaseDuration after the candidate saw the record last change, and at most
// RetryPeriod*(1+1.2) later.

// election is what one side did: the Lease writes in order, each candidate's
// Lease reads, and when a candidate gave up leading.
type election struct {
	writes []leaseWrite
	gets   map[string][]time.Duration
	lost   map[string]time.Duration
}

// leaseWrite is one Lease write: when, the holder's candidate (a or b), and
// the record's transitions and acquire time.
type leaseWrite struct {
	at          time.Duration
	by          string
	transitions int32
	acquired    time.Duration
}

func (w leaseWrite) String() string {
	return fmt.Sprintf("%v by %s (transitions %d, acquired %v)", w.at, w.by, w.transitions, w.acquired)
}

func (e *election) write(at time.Duration, l *coordinationv1.Lease, start time.Time) {
	by, _, _ := strings.Cut(*l.Spec.HolderIdentity, "_")
	e.writes = append(e.writes, leaseWrite{at: at, by: by, transitions: *l.Spec.LeaseTransitions, acquired: l.Spec.AcquireTime.Sub(start)})
}

const electionRun = 80 * time.Second

func clientGoElection(t *testing.T, failUpdates bool) *election {
	e := &election{gets: map[string][]time.Duration{}, lost: map[string]time.Duration{}}
	synctest.Test(t, func(t *testing.T) {
		start := time.Now() // lint:wall-clock the bubble's virtual clock
		var mu sync.Mutex
		cs := fake.NewClientset()
		cs.PrependReactor("*", "leases", func(a k8stesting.Action) (bool, runtime.Object, error) {
			mu.Lock()
			defer mu.Unlock()
			at := time.Since(start) // lint:wall-clock the bubble's virtual clock
			switch a := a.(type) {
			case k8stesting.UpdateAction:
				if failUpdates && at >= 20*time.Second && at < 40*time.Second {
					return true, nil, errors.New("injected: 500")
				}
				e.write(at, a.GetObject().(*coordinationv1.Lease), start)
			case k8stesting.CreateAction:
				e.write(at, a.GetObject().(*coordinationv1.Lease), start)
			}
			return false, nil, nil
		})
		run := func(ctx context.Context, id string) {
			le, err := leaderelection.NewLeaderElector(leaderelection.LeaderElectionConfig{
				Lock: &resourcelock.LeaseLock{
					LeaseMeta:  metav1.ObjectMeta{Namespace: "default", Name: "stamper-lock"},
					Client:     countingLeases{cs.CoordinationV1(), func() { mu.Lock(); e.gets[id] = append(e.gets[id], time.Since(start)); mu.Unlock() }}, // lint:wall-clock the bubble's virtual clock
					LockConfig: resourcelock.ResourceLockConfig{Identity: id + "_1"},
				},
				LeaseDuration: 15 * time.Second, RenewDeadline: 10 * time.Second, RetryPeriod: 2 * time.Second,
				Callbacks: leaderelection.LeaderCallbacks{
					OnStartedLeading: func(context.Context) {},
					OnStoppedLeading: func() { mu.Lock(); e.lost[id] = time.Since(start); mu.Unlock() }, // lint:wall-clock the bubble's virtual clock
				},
			})
			if err != nil {
				t.Error(err)
				return
			}
			le.Run(klog.NewContext(ctx, logr.Discard()))
		}
		ctxA, stopA := context.WithCancel(context.Background())
		ctxB, stopB := context.WithCancel(context.Background())
		go run(ctxA, "a")
		time.Sleep(time.Second)
		go run(ctxB, "b")
		time.Sleep(20 * time.Second)
		if !failUpdates {
			stopA() // a dies at 21s: nothing released (ReleaseOnCancel is false)
			synctest.Wait()
			mu.Lock()
			delete(e.lost, "a") // (its Run returns through OnStoppedLeading: not a loss)
			mu.Unlock()
		}
		time.Sleep(electionRun - 21*time.Second)
		mu.Lock()
		writes := len(e.writes)
		mu.Unlock()
		stopA()
		stopB()
		synctest.Wait()
		e.writes = e.writes[:writes]
	})
	return e
}

// countingLeases is the lock's clientset, counting each candidate's reads.
type countingLeases struct {
	coordinationv1client.LeasesGetter
	get func()
}

func (c countingLeases) Leases(ns string) coordinationv1client.LeaseInterface {
	return countingLease{c.LeasesGetter.Leases(ns), c.get}
}

type countingLease struct {
	coordinationv1client.LeaseInterface
	get func()
}

func (c countingLease) Get(ctx context.Context, name string, o metav1.GetOptions) (*coordinationv1.Lease, error) {
	c.get()
	return c.LeaseInterface.Get(ctx, name, o)
}

func simElection(t *testing.T, failUpdates bool) *election {
	text := "seed 1\ncrash process=a at=21s\n"
	if failUpdates {
		text = "seed 1\napi verb=update resource=leases code=500 from=20s until=40s\n"
	}
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	opts := replicas()
	opts.Processes[1].StartDelay = time.Second
	c, err := cluster.New(p, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	e := &election{gets: map[string][]time.Duration{}, lost: map[string]time.Duration{}}
	start := c.Clock.Now()
	c.Server.Watcher().Watch(coordinationv1.SchemeGroupVersion.WithKind("Lease"), func(ev apiserver.Event) {
		e.write(ev.At.Sub(start), ev.Object.(*coordinationv1.Lease), start)
	})
	c.RunFor(electionRun)
	for _, s := range c.Trace.Steps() {
		switch {
		case s.Op == "get" && s.Object == "Lease default/stamper-lock":
			e.gets[s.Process] = append(e.gets[s.Process], s.At)
		case s.Op == "log" && s.Result == "leader election lost":
			e.lost[s.Process] = s.At
		}
	}
	return e
}

func near(a, b time.Duration) bool {
	d := a - b
	return d > -100*time.Millisecond && d < 100*time.Millisecond
}

// leaderWrites are the writes by who before until.
func leaderWrites(e *election, who string, until time.Duration) []leaseWrite {
	var out []leaseWrite
	for _, w := range e.writes {
		if w.by == who && w.at < until {
			out = append(out, w)
		}
	}
	return out
}

// sameWrites compares two sides' writes to 100ms.
func sameWrites(t *testing.T, what string, sim, real []leaseWrite) {
	t.Helper()
	if len(sim) != len(real) {
		t.Fatalf("%s: the simulator made %d writes, client-go %d:\nsim:    %v\nclient-go: %v", what, len(sim), len(real), sim, real)
	}
	for i := range sim {
		s, r := sim[i], real[i]
		if !near(s.at, r.at) || s.by != r.by || s.transitions != r.transitions || !near(s.acquired, r.acquired) {
			t.Fatalf("%s: write %d is %v in the simulator, %v in client-go", what, i, s, r)
		}
	}
}

// checkTakeover: b took the Lease over, at its first read at least
// LeaseDuration after the read in which it saw a's last write, and no later
// than the longest retry after that; and then renewed every RetryPeriod.
func checkTakeover(t *testing.T, side string, e *election, aLast time.Duration) {
	t.Helper()
	var took *leaseWrite
	var after []leaseWrite
	for i, w := range e.writes {
		if w.by == "b" && w.transitions == 1 {
			took, after = &e.writes[i], e.writes[i+1:]
			break
		}
	}
	if took == nil {
		t.Fatalf("%s: b never took the Lease over: %v", side, e.writes)
	}
	var saw time.Duration = -1
	for _, g := range e.gets["b"] {
		if g > aLast {
			saw = g
			break
		}
	}
	if saw < 0 || took.at < saw+15*time.Second || took.at > saw+15*time.Second+2*time.Second+2400*time.Millisecond+100*time.Millisecond {
		t.Fatalf("%s: b saw a's last write at %v and took over at %v; want within [+15s, +19.5s]", side, saw, took.at)
	}
	if !near(took.acquired, took.at) {
		t.Errorf("%s: the takeover's AcquireTime is %v, written at %v", side, took.acquired, took.at)
	}
	var renewals []leaseWrite
	for _, w := range after {
		if w.by == "b" {
			renewals = append(renewals, w)
		}
	}
	if len(renewals) < 5 {
		t.Fatalf("%s: b renewed %d times after taking over: %v", side, len(renewals), renewals)
	}
	if !near(renewals[0].at, took.at) { // renew's first poll is immediate
		t.Errorf("%s: b's first renewal at %v, want at once after %v", side, renewals[0].at, took.at)
	}
	for i := 1; i < len(renewals); i++ {
		if gap := renewals[i].at - renewals[i-1].at; gap < 2*time.Second || gap > 2*time.Second+100*time.Millisecond {
			t.Errorf("%s: b's renewals %v and %v are %v apart, want RetryPeriod", side, renewals[i-1], renewals[i], gap)
		}
	}
}

func TestLeaderElectionMatchesClientGoWhenTheLeaderDies(t *testing.T) {
	real, sim := clientGoElection(t, false), simElection(t, false)
	sameWrites(t, "a's writes until it dies", leaderWrites(sim, "a", electionRun), leaderWrites(real, "a", electionRun))
	aWrites := leaderWrites(real, "a", electionRun)
	aLast := aWrites[len(aWrites)-1].at
	checkTakeover(t, "client-go", real, aLast)
	checkTakeover(t, "simulator", sim, aLast)
}

func TestLeaderElectionMatchesClientGoWhenRenewalsFail(t *testing.T) {
	real, sim := clientGoElection(t, true), simElection(t, true)
	sameWrites(t, "a's writes until updates fail", leaderWrites(sim, "a", 20*time.Second), leaderWrites(real, "a", 20*time.Second))
	if !near(sim.lost["a"], real.lost["a"]) || real.lost["a"] == 0 {
		t.Fatalf("a stopped leading at %v in the simulator, %v in client-go", sim.lost["a"], real.lost["a"])
	}
	for side, e := range map[string]*election{"client-go": real, "simulator": sim} {
		for _, w := range e.writes {
			if w.at >= 20*time.Second && w.at < 40*time.Second {
				t.Errorf("%s: a write went through while updates fail: %v", side, w)
			}
		}
	}
}
