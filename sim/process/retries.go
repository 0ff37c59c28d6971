package process

import (
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/queue"
)

// A controller's retries.
//
// controller-runtime requeues a key rate-limited when its reconcile fails (an
// error that is not terminal, Requeue): the key waits in the queue's per-item
// back-off, which doubles with each failure not forgiven since (5 ms up to
// 1000 s by default) and is not shortened by the end of what failed it. A
// run whose faults (a lagging cache's conflicts, a 429) grew that back-off
// can end with the key's retry still to come: the controller has work left
// that a real cluster would do minutes later. Retries lists those keys, so
// that a run is judged after them (cluster.Phases.Retries).

// Retry is a key a controller of the process holds in back-off: its last
// attempt asked for a rate-limited retry at Failed, due at Due (both from
// the start of the run).
type Retry struct {
	Controller, Key string
	Failed, Due     time.Duration
	Requeues        int
}

func (r Retry) String() string {
	return fmt.Sprintf("%s %s: failed at %v, %d requeues, retry due at %v", r.Controller, r.Key, r.Failed, r.Requeues, r.Due)
}

// Retries are the keys the current incarnation's controllers (controller-runtime's,
// and the queues of NewClientGoQueue that NameQueue did not name) hold in
// back-off with a retry due after now, controller by controller in the
// order they started, each one's earliest due first.
func (p *Process) Retries() []Retry {
	if p.mgr == nil || !p.started {
		return nil
	}
	var out []Retry
	for _, h := range p.mgr.controllers {
		out = append(out, retriesOf(p, h.name, h.q, h.failed, reconcile.Request.String)...)
	}
	for _, f := range p.mgr.retries {
		out = append(out, f()...)
	}
	return out
}

// retriesOf are the items q holds in back-off (requeues not forgiven, a
// rate-limited retry asked for at failed's time) with a retry due after now:
// not a delay asked for (RequeueAfter, AddAfter), nor one due now.
func retriesOf[T comparable](p *Process, controller string, q queue.Queue[T], failed failures[T], key func(T) string) []Retry {
	now := p.env.Clock.Now()
	var out []Retry
	for _, d := range q.Waiting() {
		at, ok := failed[d.Item]
		if d.Requeues == 0 || !ok || !d.ReadyAt.After(now) {
			continue
		}
		out = append(out, Retry{Controller: controller, Key: key(d.Item), Failed: at.Sub(p.env.Start),
			Due: d.ReadyAt.Sub(p.env.Start), Requeues: d.Requeues})
	}
	return out
}

// failures are when each item's last rate-limited retry was asked for.
type failures[T comparable] map[T]time.Time

func (f *failures[T]) record(item T, at time.Time) {
	if *f == nil {
		*f = failures[T]{}
	}
	(*f)[item] = at
}
