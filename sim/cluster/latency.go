package cluster

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/sim/informer"
	"github.com/ctrlsim/ctrlsim/sim/rng"
)

// Timing is how long API calls and watch deliveries take in a world without
// faults. Every API call of a process (not a cached read, which never leaves the
// process) spends Read or Write before it commits in the apiserver model and
// Response after it, before the caller has the answer; every committed change
// reaches each informer Delivery after its commit. All are drawn from the plan's
// seed, one stream per process (and per informer), so a process's next reconcile
// sometimes sees its own last write and sometimes does not, as in a real cluster.
// A plan's latency faults add to the request leg, its lag faults to Delivery; Heal
// removes what the faults added, never the defaults.
type Timing struct {
	Read, Write Dist // client call to commit (the request's way and the server's work)
	Response    Dist // commit to the caller having the response
	Delivery    Dist // commit to the event being applied to a watching informer
}

// Dist is a latency distribution: uniform in [Lo, Hi]; with probability TailP,
// uniform in [Hi, Tail] instead (the occasional slow request).
type Dist struct {
	Lo, Hi, Tail time.Duration
	TailP        float64
}

// Draw draws one duration from d with s.
func (d Dist) Draw(s *rng.Stream) time.Duration {
	if d.TailP > 0 && s.Bool(d.TailP) {
		return s.Duration(d.Hi, d.Tail)
	}
	return s.Duration(d.Lo, d.Hi)
}

// DefaultTiming is of the order of a real kube-apiserver with its etcd on one
// machine, as envtest runs them. Measured here against envtest (v1.37.1, on the
// project's shared 2-core machine; internal/envtestenv TestMeasureLatency, three
// runs): a live read takes a median 1.8-2.6 ms (p90 2.6-3.3 ms), a write 2.1-3.0
// ms (p90 3.1-4.2 ms), and the write's watch event reaches the writer's informer
// a median 3-30 µs before the response reaches the writer (p90: 270-390 µs
// after): at the response, the writer's cache already holds its write 51-60% of
// the time. These ranges give the same shape: reads a median 1.5 ms, writes 2.3
// ms, delivery minus response a median 0 and p90 0.3 ms, the own write in the
// cache at the response half of the time.
var DefaultTiming = Timing{
	Read:     Dist{Lo: 500 * time.Microsecond, Hi: 2 * time.Millisecond, Tail: 6 * time.Millisecond, TailP: 0.05},
	Write:    Dist{Lo: 1 * time.Millisecond, Hi: 3 * time.Millisecond, Tail: 10 * time.Millisecond, TailP: 0.05},
	Response: Dist{Lo: 100 * time.Microsecond, Hi: 500 * time.Microsecond, Tail: 2 * time.Millisecond, TailP: 0.05},
	Delivery: Dist{Lo: 50 * time.Microsecond, Hi: 550 * time.Microsecond, Tail: 5 * time.Millisecond, TailP: 0.05},
}

// injector is what processes ask the plan: the faults, with the default timing
// under them.
type injector struct {
	*faults
	timing Timing
}

// Lag is the delivery time of the next event on process's informer of gvk: the
// default delivery time plus what the plan's lag faults add.
func (in injector) Lag(process string, gvk schema.GroupVersionKind) informer.Lag {
	s := in.c.Stream("delivery/" + process + "/" + KindName(gvk))
	extra := in.faults.Lag(process, gvk)
	d := in.timing.Delivery
	return func() time.Duration {
		lag := d.Draw(s)
		if extra != nil {
			lag += extra()
		}
		return lag
	}
}

// CallLatency is the time the next API call of process spends before it commits
// and after it, until the caller has the response: the defaults plus what the
// plan's latency faults add to the request.
func (in injector) CallLatency(process string, write bool) (request, response time.Duration) {
	s := in.c.Stream("call/" + process)
	d := in.timing.Read
	if write {
		d = in.timing.Write
	}
	request = d.Draw(s) + in.faults.Latency(process)
	return request, in.timing.Response.Draw(s)
}
