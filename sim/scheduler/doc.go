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
//
// # Known gaps
//
//   - Goroutines started by code under test are scheduled only when hosted:
//     Host runs code that starts a known number of goroutines (controller-runtime's
//     workers) and adopts each at its first call into the simulator. Any other
//     goroutine of code under test runs concurrently and breaks determinism.
//   - A task that blocks on anything but the scheduler (a channel, a mutex held by
//     a parked task) deadlocks the run: the kernel waits for a yield that never
//     comes. The exception is a task made with GoOutside (a manager's
//     Runnable), inside a testing/synctest bubble only: the kernel settles the
//     bubble after resuming it and leaves it where it blocked (outside.go);
//     it never runs again, and if something else wakes it and it calls into
//     the simulator, the run stops with Err. Inside a task, clock.Sleep and clock.After wait in virtual time (After
//     sleeps, then returns a channel that already fired); the channels of
//     NewTimer, Tick and NewTicker cannot be awaited. apimachinery's wait.Poll*
//     helpers read the wall clock and must not be used by simulated code; poll
//     with the injected clock's Sleep instead.
//   - Waiting conditions are polled between steps (cost grows with the number of
//     waiting tasks), which is fine for the tens of tasks a scenario has.
package scheduler
