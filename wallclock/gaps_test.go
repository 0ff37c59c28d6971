package wallclock_test

// The tests of this file show Known gaps of doc.go (and of sim/scheduler's
// doc.go), each as it is today: a change that closes a gap breaks its test,
// and the item goes with it.

import (
	"fmt"
	mathrand "math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/util/workqueue"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/rng"
	"github.com/ctrlsim/ctrlsim/sim/scheduler"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// In a bubble, a task blocked on a mutex (held here by the test, outside
// the bubble; in a run, by a parked task) is not durably blocked: the
// kernel's settle (synctest.Wait) waits for it for ever, and nothing in the
// bubble can say so. Stuck, called from outside the bubble, names it.
func TestStuckNamesATaskBlockedOnAMutexInABubble(t *testing.T) {
	var mu sync.Mutex
	mu.Lock()
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		synctest.Test(t, func(t *testing.T) {
			s := scheduler.New(clock.New(clock.Epoch), rng.New(1).Stream("scheduler"))
			s.SetSettle(synctest.Wait)
			s.Go("p", "locker", func() {
				mu.Lock()
				mu.Unlock()
			})
			s.RunFor(time.Second)
			s.Close()
		})
	}()
	stuck := wallclock.Stuck()
	for !strings.Contains(stuck, "sync.Mutex.Lock") {
		runtime.Gosched() // until the task has reached the mutex
		stuck = wallclock.Stuck()
	}
	select {
	case <-ran:
		t.Fatal("the world ended while its task waited on the mutex")
	default:
	}
	mu.Unlock()
	<-ran
	if !strings.Contains(stuck, "TestStuckNamesATaskBlockedOnAMutexInABubble") || !strings.Contains(stuck, "scheduler.(*Scheduler).Go") {
		t.Fatalf("Stuck() = %q, want the task's goroutine, started by the scheduler's Go, waiting in this test", stuck)
	}
}

// The census names a client-go workqueue left at the world's close by the
// goroutine the queue started and the client-go function that started it:
// a stack dump holds only the go statement's place, so the line of the
// code that built the queue (this test) is not in it.
func TestTheCensusNamesAWorkqueueByClientGoNotByTheOperatorsLine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())
		synctest.Wait() // the queue's goroutine has started
		line, _ := wallclock.Census()
		q.ShutDown()
		if !strings.Contains(line, "started by k8s.io/client-go/util/workqueue.") || strings.Contains(line, "gaps_test.go") {
			t.Fatalf("census line %q: want the queue named by client-go's function and not by this test's line", line)
		}
	})
}

// A plain Typed queue with no metrics provider starts no goroutine (it waits
// on a sync.Cond, not on the clock): the census does not see it.
func TestTheCensusDoesNotSeeAPlainTypedQueue(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		q := workqueue.NewTyped[string]()
		q.Add("x")
		line, startedBy := wallclock.Census()
		q.ShutDown()
		if line != "" || len(startedBy) != 0 {
			t.Fatalf("census of a plain Typed queue: %q, goroutines started by %v; want nothing seen", line, startedBy)
		}
	})
}

// An informer factory built by the code under test itself runs client-go's
// goroutines in the bubble as clientgo.Setup's does: the census names
// them by client-go's functions, not by the code that built the factory.
func TestTheCensusDoesNotTellAnOperatorsInformerFactoryApart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
		f.Core().V1().ConfigMaps().Informer()
		stop := make(chan struct{})
		f.Start(stop)
		f.WaitForCacheSync(stop)
		line, startedBy := wallclock.Census()
		close(stop)
		f.Shutdown()
		clientgo := 0
		for _, by := range startedBy {
			if strings.HasPrefix(by, "k8s.io/client-go/") || strings.HasPrefix(by, "k8s.io/apimachinery/") {
				clientgo++
			}
		}
		if strings.Contains(line, "gaps_test.go") || clientgo == 0 {
			t.Fatalf("census of a running informer factory: %q, goroutines started by %v; want client-go's goroutines, not named by this test's line", line, startedBy)
		}
	})
}

// In a program that is not a test binary, SeedRandom seeds crypto/rand's
// Reader (two runs read the same bytes) but not the implicit draws of
// crypto/... (an ML-KEM key differs). It builds testdata/notatest, a binary
// linking the simulator: not under -short.
func TestAProgramThatIsNoTestSeedsCryptoRandsReaderButNotItsImplicitDraws(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary of the simulator")
	}
	bin := filepath.Join(t.TempDir(), "notatest")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/notatest").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	var read, key [2]string
	for i := range read {
		out, err := exec.Command(bin).CombinedOutput()
		if err != nil {
			t.Fatalf("notatest: %v\n%s", err, out)
		}
		if _, err := fmt.Sscanf(string(out), "read %s key %s", &read[i], &key[i]); err != nil {
			t.Fatalf("notatest printed %q: %v", out, err)
		}
	}
	if read[0] != read[1] || key[0] == key[1] {
		t.Fatalf("two runs with seed 7 read %v and generated keys %v: want the reads alike and the keys not", read, key)
	}
}

// retry's and wait's jitter (wait.Jitter) draws from math/rand's global
// generator: it follows what seeds that generator (SeedRandom's restart
// gives the same jitter again; one draw of math/rand in between shifts it),
// and nothing else does.
func TestRetryJitterDrawsFromTheGlobalMathRand(t *testing.T) {
	wallclock.Run(t, func(t *testing.T, _ *cluster.Wall) {
		restart := wallclock.SeedRandom(t, 7)
		first := wait.Jitter(time.Second, 1)
		restart()
		again := wait.Jitter(time.Second, 1)
		restart()
		_ = mathrand.Int63()
		shifted := wait.Jitter(time.Second, 1)
		if first != again || shifted == first {
			t.Fatalf("jitter %v, after restart %v, after one draw of math/rand %v: want the first two alike and the third not", first, again, shifted)
		}
	})
}

// A parallel test cannot set KUBECONFIG: its world's ctrl.GetConfig is not
// served, and KUBECONFIG stays what the machine's is.
func TestAParallelTestDoesNotServeKubeconfig(t *testing.T) {
	machine := os.Getenv("KUBECONFIG")
	var served, parallel string
	wallclock.Run(t, func(t *testing.T, _ *cluster.Wall) { served = os.Getenv("KUBECONFIG") })
	t.Run("parallel", func(t *testing.T) {
		t.Parallel()
		wallclock.Run(t, func(t *testing.T, _ *cluster.Wall) { parallel = os.Getenv("KUBECONFIG") })
		if served == machine || parallel != machine {
			t.Fatalf("KUBECONFIG: %q on the machine, %q in a world, %q in a parallel test's world; want the parallel one the machine's", machine, served, parallel)
		}
	})
}

// Two worlds built one after the other in one bubble: the second starts
// where the first left the bubble's clock, not at the bubble's start.
func TestASecondWorldInABubbleStartsWhereTheFirstLeftTheClock(t *testing.T) {
	wallclock.Run(t, func(t *testing.T, wall *cluster.Wall) {
		var starts []time.Time
		for range 2 {
			c, err := cluster.New(mustParse(t, "seed 1\n"), cluster.Options{Scheme: apiservertest.Scheme(), Wall: wall})
			if err != nil {
				t.Fatal(err)
			}
			starts = append(starts, c.Clock.Now())
			c.RunFor(10 * time.Second)
			c.Close()
		}
		if !starts[0].Equal(time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("the first world starts at %v, want the bubble's start", starts[0])
		}
		if d := starts[1].Sub(starts[0]); d < 10*time.Second {
			t.Fatalf("the second world starts %v after the first, want at least the 10s the first ran", d)
		}
	})
}
