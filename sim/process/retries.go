package process

import (
	"fmt"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
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
	now := p.env.Clock.Now()
	var out []Retry
	for _, h := range p.mgr.controllers {
		for _, d := range h.q.Waiting() {
			failed, ok := h.failed[d.Item]
			if d.Requeues == 0 || !ok || !d.ReadyAt.After(now) {
				continue // a delay asked for (RequeueAfter), or due now
			}
			out = append(out, Retry{Controller: h.name, Key: d.Item.String(), Failed: failed.Sub(p.env.Start),
				Due: d.ReadyAt.Sub(p.env.Start), Requeues: d.Requeues})
		}
	}
	for _, f := range p.mgr.retries {
		out = append(out, f()...)
	}
	return out
}

// rateLimited records that the hosted controller asked for req's
// rate-limited retry now.
func (h *hosted) rateLimited(req reconcile.Request) {
	if h.failed == nil {
		h.failed = map[reconcile.Request]time.Time{}
	}
	h.failed[req] = h.m.p.env.Clock.Now()
}
