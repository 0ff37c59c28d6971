package process

import (
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/ctrlsim/ctrlsim/sim/scheduler"
)

// The global loggers: controller-runtime's ctrl.Log (log.Log, and every
// logger derived from it, such as r.Log = ctrl.Log.WithName("controllers")
// kept in a reconciler) and klog.
//
// They are process-global in Go, shared by every world of the test binary,
// so the simulator installs one sink in each (globalSink, at the first
// process made) that finds, for every line, the process that logged it: the
// scheduler of each live world is asked whether the calling goroutine is the
// one it runs (scheduler.Caller). A task's line goes to its process, as a
// "log" step attributed to its controller, worker and reconcile when it runs
// in one (as the context's logger's lines are: logs.go); a line the kernel
// logs while a process's Setup runs goes to that process. Lines from no
// process of a live world are dropped from controller-runtime's logger (as an
// unset one drops them) and written by klog's own text logger for klog.
//
// controller-runtime fulfils its global logger once: a test binary that
// calls ctrl.SetLogger itself before the first process is made keeps its own
// logger, and those lines do not reach the timeline (doc.go's Known gaps).

var (
	globalOnce  sync.Once
	globalMu    sync.Mutex
	globalProcs []*Process // live processes of every world, in creation order
)

// registerGlobal makes p a destination of the global loggers' lines until
// Close, installing the global sinks (and client-go's feature gates of
// the worlds: watchlist.go) on first use.
func registerGlobal(p *Process) {
	globalOnce.Do(func() {
		logf.SetLogger(logr.New(&globalSink{}))
		klog.SetLogger(logr.New(&globalSink{fallback: textlogger.NewLogger(textlogger.NewConfig()).GetSink()}))
		installWorldGates() // watchlist.go
	})
	globalMu.Lock()
	globalProcs = append(globalProcs, p)
	globalMu.Unlock()
}

func unregisterGlobal(p *Process) {
	globalMu.Lock()
	defer globalMu.Unlock()
	for i, q := range globalProcs {
		if q == p {
			globalProcs = append(globalProcs[:i:i], globalProcs[i+1:]...)
			return
		}
	}
}

// globalOwner is the process whose task (or Setup, in the kernel) is the
// calling goroutine, or nil.
func globalOwner() *Process {
	globalMu.Lock()
	procs := append([]*Process(nil), globalProcs...)
	globalMu.Unlock()
	if len(procs) == 0 {
		return nil
	}
	id := scheduler.GoroutineID()
	asked := map[*scheduler.Scheduler]bool{}
	for _, p := range procs {
		s := p.env.Scheduler
		if asked[s] {
			continue
		}
		asked[s] = true
		t, ok := s.Caller(id)
		if !ok {
			continue
		}
		// The calling goroutine runs under s: it may read the world's state.
		for _, q := range procs {
			if q.env.Scheduler != s {
				continue
			}
			if (t == nil && q.inSetup) || (t != nil && t.Group() == q.spec.Name) {
				return q
			}
		}
		return nil
	}
	return nil
}

// globalSink is the sink of the global loggers (see above). Names and values
// added to it show in its lines, as a reconciler's own logger's do.
type globalSink struct {
	name     string
	values   []any
	fallback logr.LogSink // lines from no process (klog's); nil drops them
}

func (s *globalSink) Init(info logr.RuntimeInfo) {
	if s.fallback != nil {
		s.fallback.Init(info)
	}
}

func (s *globalSink) Enabled(level int) bool { return level <= 0 }

func (s *globalSink) sink(p *Process) *traceSink {
	return &traceSink{p: p, m: p.mgr, name: s.name, values: s.values}
}

func (s *globalSink) Info(level int, msg string, kv ...any) {
	if level > 0 {
		return
	}
	if p := globalOwner(); p != nil {
		s.sink(p).Info(level, msg, kv...)
		return
	}
	if s.fallback != nil {
		s.fallback.Info(level, msg, kv...)
	}
}

func (s *globalSink) Error(err error, msg string, kv ...any) {
	if p := globalOwner(); p != nil {
		s.sink(p).Error(err, msg, kv...)
		return
	}
	if s.fallback != nil {
		s.fallback.Error(err, msg, kv...)
	}
}

func (s *globalSink) WithValues(kv ...any) logr.LogSink {
	c := *s
	c.values = append(append([]any(nil), s.values...), kv...)
	if s.fallback != nil {
		c.fallback = s.fallback.WithValues(kv...)
	}
	return &c
}

func (s *globalSink) WithName(name string) logr.LogSink {
	c := *s
	if s.fallback != nil {
		c.fallback = s.fallback.WithName(name)
	}
	if s.name != "" {
		name = s.name + "." + name
	}
	c.name = name
	return &c
}
