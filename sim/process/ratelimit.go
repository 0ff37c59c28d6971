package process

import (
	"time"

	"golang.org/x/time/rate"
)

// ClientRate is a client-side rate limit: client-go's token bucket
// (flowcontrol.NewTokenBucketRateLimiter, which rest.Config's QPS and Burst
// make), QPS requests a second on average, Burst at once. Each client of the
// process has its own bucket, as each clientset does: Client names the
// client a controller's calls go through ("" for calls outside a
// controller's worker); nil, one client per controller.
type ClientRate struct {
	QPS    float64
	Burst  int
	Client func(controller string) string
}

// throttle reserves a token of the calling controller's client's bucket and
// returns how long the call waits for it before it is sent (0 when the
// bucket has one, or the process has no rate limit). The bucket is x/time/rate's,
// the one client-go's limiter holds, given the virtual time.
func (p *Process) throttle() time.Duration {
	r := p.spec.ClientRate
	if r == nil {
		return 0
	}
	controller := ""
	if w, ok := p.workers[p.env.Scheduler.Current()]; ok {
		controller = w.c.name
	}
	if r.Client != nil {
		controller = r.Client(controller)
	}
	l := p.limiters[controller]
	if l == nil {
		if p.limiters == nil {
			p.limiters = map[string]*rate.Limiter{}
		}
		l = rate.NewLimiter(rate.Limit(r.QPS), r.Burst)
		p.limiters[controller] = l
	}
	now := p.env.Clock.Now()
	return l.ReserveN(now, 1).DelayFrom(now)
}
