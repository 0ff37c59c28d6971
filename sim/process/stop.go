package process

// A clean stop: a graceful shutdown between reconciles, as a manager whose
// context is cancelled (SIGTERM: a rolling update, a node drain) lets its
// workers finish the reconcile in hand and exits. Unlike Crash, no reconcile
// is cut: the process leaves no intermediate state of its own making. The
// fault-free run of a faulted run's downtime (operatortest) replays each
// crash so.

// StopCleanly stops the process between reconciles: at once when none of
// its controllers' workers is reconciling, else when a worker ends a
// reconcile, or is about to begin one, while no other is in one. It does
// not restart by itself (StartAgain starts it); a start pending (a
// CrashLoopBackOff) is cancelled. A worker's reconcile that began while
// another was in flight runs to its end: with several workers the stop
// waits for a moment none is reconciling. Code outside the reconcilers (a
// Runnable, leader election) is stopped where it is, as Crash stops it.
func (p *Process) StopCleanly(reason string) {
	if p.pending != nil {
		p.pending.Stop()
		p.pending = nil
	}
	if !p.started {
		return
	}
	p.stopping = reason
	p.stopIfIdle(nil)
}

// StartAgain starts a stopped process now, as a new incarnation (empty cache
// and queues, Setup run again); one whose clean stop waits for a reconcile
// starts again right after it stops; a running process goes on.
func (p *Process) StartAgain() {
	if p.stopping != "" {
		p.startAfterStop = true
		return
	}
	if p.started || !p.bound {
		return
	}
	p.scheduleStart(0)
}

// stopIfIdle stops the process if a clean stop is asked and no worker but
// self is reconciling. Called from inside self's task, it does not return
// when it stops.
func (p *Process) stopIfIdle(self *worker) {
	if p.stopping == "" || !p.started {
		return
	}
	for _, w := range p.workers { // lint:order-independent any of them
		if w != self && w.reconcile != 0 {
			return
		}
	}
	reason := p.stopping
	p.stopping = ""
	if p.startAfterStop {
		p.startAfterStop = false
		p.scheduleStart(0) // after the stop, at this instant
	}
	p.terminate(reason, false)
}
