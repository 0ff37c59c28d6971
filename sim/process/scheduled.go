package process

import (
	"fmt"
	"time"
)

// Work a controller has scheduled.
//
// A controller of the cluster's may have work that it has scheduled for a
// time of its own and that a real cluster does then, whatever else happens:
// the kubelet kills a deleted pod's containers at its grace period's end (a
// process that ignores SIGTERM). A run whose heal budget ends before that
// time judges a world that a real cluster changes at it; Scheduled lists
// that work, so that a run is judged after it (cluster.Phases.Scheduled).

// Scheduled is work a controller of the process has scheduled: What to do
// to the object Key ("namespace/name", or "name") of Kind, due At.
type Scheduled struct {
	Controller, Kind, Key, What string
	At                          time.Time
}

func (s Scheduled) String() string {
	return fmt.Sprintf("%s %s %s: %s", s.Controller, s.Kind, s.Key, s.What)
}

// AddScheduled adds f to the work the incarnation reports as scheduled
// (Process.Scheduled): a model of the cluster's hosted in the process
// calls it from its Setup.
func (m *Manager) AddScheduled(f func() []Scheduled) {
	m.scheduled = append(m.scheduled, f)
}

// Scheduled is the work the current incarnation's controllers have
// scheduled for after now (AddScheduled), in the order they were added.
func (p *Process) Scheduled() []Scheduled {
	if p.mgr == nil || !p.started {
		return nil
	}
	now := p.env.Clock.Now()
	var out []Scheduled
	for _, f := range p.mgr.scheduled {
		for _, s := range f() {
			if s.At.After(now) {
				out = append(out, s)
			}
		}
	}
	return out
}
