// Package scheduler is the cooperative scheduler of the kernel: tasks (controller
// workers, model loops) are goroutines that run one at a time, handing control back
// to the kernel at every yield point: a client call, a clock wait (clock.Sleep and
// clock.After, through the clock's hooks), WaitUntil, or their end.
//
// # Contract
//
//   - Exactly one goroutine runs at any moment: the kernel's (RunUntil and timer
//     callbacks) or one task's. Control passes by channel handoff, so runs are
//     deterministic whatever GOMAXPROCS is.
//   - When several tasks are runnable, the Picker (a sim/rng stream of the plan)
//     chooses; tasks are offered in creation order. When none is runnable, the
//     clock fires its next timer (which may wake a sleeper, deliver an informer
//     event or ready a queue item).
//   - Kill ends a task at once: its deferred functions run, and every kernel call
//     they make unwinds instead of taking effect, so a killed reconcile's remaining
//     and deferred writes never reach the apiserver. IsKilled tells the unwinding
//     apart from the task's own panics; code that recovers panics must re-panic it.
//   - A panic a task does not recover is a harness bug: it is re-raised in the
//     kernel with the task's name.
//   - Host adopts goroutines started by hosted code (controller-runtime's
//     controller starts its workers itself): each becomes a task at its first
//     call into the simulator, numbered in arrival order (they run identical
//     code), and Host returns once all have arrived. A killed adopted task
//     leaves with runtime.Goexit and ends at EndIfKilled.
//   - This is the only package under sim/ with `go` statements (internal/lint).
//   - In a testing/synctest bubble (SetSettle) the kernel settles the bubble
//     after resuming any task, so a task may block outside the scheduler: on
//     a timer of the bubble (time.Sleep in a reconcile, retry and wait
//     helpers: wait.go), on a channel, on its context. It rejoins at its
//     first call into the simulator after it wakes (checkCaller) and runs
//     after the kernel's next settle, in task order (collect); woken by a
//     timer, at the timer's instant of virtual time (the clock's follower
//     stops there: SetWall). Killed while it waits, it unwinds when it wakes
//     (endDying); Close ends the waits still pending (closeWaiting). A task
//     waiting on a channel of the virtual clock (NewTimer, NewTicker, After)
//     rejoins likewise when the kernel fires that timer.
//   - Caller tells which task, if any, the calling goroutine is (caller.go),
//     for code shared by every goroutine (the global loggers).
//
// # Known gaps
//
//   - Goroutines started by code under test are scheduled only when hosted:
//     Host runs code that starts a known number of goroutines (controller-runtime's
//     workers) and adopts each at its first call into the simulator. Any other
//     goroutine of code under test (one a Runnable or Setup starts itself,
//     the goroutines of source.Channel) is not a task: its calls into the
//     simulator run concurrently with the running task and break determinism.
//   - Outside a bubble a task that blocks on anything but the scheduler (a
//     channel, a timer, a mutex held by a parked task) deadlocks the run: the
//     kernel waits for a yield that never comes. Inside one, a task blocked on
//     a mutex is not durably blocked: the kernel's settle waits for ever.
//   - Between waking and its first call into the simulator, a task that woke
//     outside runs its own code alongside the running task (as a real
//     goroutine would); code that touches kernel state before calling into
//     the simulator would race. Every hook of the simulator calls in first.
//   - A killed task's deferred code that waits on a timer while another task
//     (not the kernel) kills it blocks the killer's handoff: the bubble's
//     clock then moves ahead of virtual time (wallclock reports it).
//   - Reading a goroutine's id (Caller, and checkCaller while any task is
//     blocked outside) prints its stack header: microseconds a call.
//   - Waiting conditions are polled between steps (cost grows with the number of
//     waiting tasks), which is fine for the tens of tasks a scenario has.
package scheduler
