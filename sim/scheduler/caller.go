package scheduler

// Who is calling.
//
// Code that every goroutine of a test binary shares (controller-runtime's
// global logger ctrl.Log, klog) cannot be handed a task: it must find out
// which task, if any, calls it. Exactly one goroutine runs at a time under a
// scheduler, the kernel's or one task's, and the scheduler keeps that
// goroutine's id (read from its stack header, as outside.go does) in an
// atomic, so that any goroutine may ask without a data race: the answer is
// yes only for the one goroutine the scheduler runs, which then reads the
// kernel's state as any task does.

// GoroutineID is the calling goroutine's id: the key Caller takes. Reading it
// costs a stack header print (microseconds): callers on a hot path should not.
func GoroutineID() uint64 { return goid() }

// Caller reports whether the goroutine id (GoroutineID) is the one this
// scheduler runs now, and if so which task it is: nil for the kernel. A task
// blocked outside the scheduler that has just woken on a timer of the bubble
// (a reconcile after its time.Sleep) rejoins first (outside.go), and is then
// the running task.
func (s *Scheduler) Caller(id uint64) (t *Task, ok bool) {
	s.checkCallerID(id)
	if s.running.Load() != id {
		return nil, false
	}
	return s.current, true
}
