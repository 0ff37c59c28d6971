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
//   - In a bubble, a goroutine that code under test starts itself (a
//     Runnable's poller, a goroutine of Setup or of a reconcile,
//     controller-runtime's source.Channel goroutines) becomes a task at its
//     first call into the simulator (adopt.go): it parks there, and after
//     the kernel's next settle it is adopted into the group of the hook it
//     called (Join: a process's client, queue, REST config) or else of the
//     task that created it, in the order of its creation site and goroutine
//     id, named <group>/go#N, and from then on runs only when the plan picks
//     it. Killed with its group it is frozen (never resumed; Close unwinds
//     it); one that first calls in through a dead incarnation's hook, or
//     whose creator was killed, never runs. Every call into the simulator
//     tells the running goroutine apart by its runtime g (getg: assembly on
//     amd64 and arm64, the goroutine id elsewhere). Goroutines the caller
//     waits for act as it: Host's start goroutine, and during Helped those
//     created at the site it names (controller-runtime's Kind source).
//
// # Costs
//
// Reading a goroutine's id (Caller, and a call from a goroutine other than
// the running one) prints its stack header: microseconds a call. Adopting a
// goroutine prints its whole stack once (where it was created).
//
// # Known gaps
//
//   - A goroutine of code under test is a task only from its first call into
//     the simulator: before it, and in a goroutine that never calls in
//     (source.Channel's reader of the operator's channel), its own code runs
//     alongside the task that woke it, as Go schedules it. Goroutines that
//     talk to each other only through channels of their own, several in one
//     step, may interleave differently from run to run; the order of their
//     first calls does not matter (adoption sorts them), but what they
//     compute before them may. A goroutine that never calls in is never
//     frozen: after its process dies it runs its own code on (a poller
//     reading an outside system), and stops for good at its first call
//     (TestAGoroutineThatNeverCallsInRunsOnAfterItsGroupDies).
//   - Goroutines created at one site by one task are ordered by goroutine id,
//     which follows creation order unless the Go runtime moved the creating
//     goroutine to another P between the go statements (ids come in batches
//     per P; never with GOMAXPROCS=1). wallclock.Run, the bubble every
//     operatortest run and catalogue run uses, pins the process to one P for
//     that reason (seen at GOMAXPROCS=4: about one run in 500 numbered a
//     Runnable's three pollers out of order); a bubble of one's own with
//     SetSettle at a higher GOMAXPROCS may still meet it
//     (wallclock.TestABubbleOfRunRunsOnOneP).
//   - Outside a bubble goroutines are not adopted: their calls into the
//     simulator run alongside the running task (process.Manager refuses
//     Runnables there, TestAnOutsideTaskNeedsABubble; a reconcile that
//     starts a goroutine is not checked).
//   - A goroutine whose first call has no group (Current, the virtual
//     clock's Sleep) and whose creator is no task (the kernel running a
//     process's Setup) is not adopted: its call runs as the running
//     goroutine's (TestAGoroutineTheKernelStartedCallsInAsTheRunningTask).
//   - A goroutine a killed task started that never called in before Close
//     and blocks on something of its own is left
//     (TestAGoroutineThatNeverCalledInIsLeftBlockedAtClose); so is a task
//     of GoOutside that ignores its context's cancellation at Close, and
//     synctest then reports the bubble deadlocked
//     (TestAnOutsideTaskThatIgnoresItsContextIsLeftAtClose).
//   - Outside a bubble a task that blocks on anything but the scheduler (a
//     channel, a timer, a mutex held by a parked task) deadlocks the run: the
//     kernel waits for a yield that never comes, virtual time stands still
//     (TestOutsideABubbleATaskBlockedOnAChannelHoldsTheRun). Inside one, a
//     task blocked on a mutex is not durably blocked: the kernel's settle
//     waits for ever, and only a watchdog outside the bubble can name it
//     (wallclock.TestStuckNamesATaskBlockedOnAMutexInABubble).
//   - Between waking and its first call into the simulator, a task that woke
//     outside runs its own code alongside the running task (as a real
//     goroutine would); code that touches kernel state before calling into
//     the simulator would race. Every hook of the simulator calls in first
//     (TestAnOutsideTaskWokenByAChannelRejoins).
//   - A killed task's deferred code that waits on a timer of the bubble
//     holds whoever killed it until the timer fires, virtual time standing
//     still: the bubble's clock moves ahead of virtual time (wallclock
//     reports it) (TestAKilledTasksDeferredTimerWaitHoldsItsKiller). Killed
//     by another task rather than by the kernel, the killer is meanwhile
//     taken for a task blocked outside and runs on alongside the kernel: a
//     data race, which a test cannot assert under -race.
//   - In a bubble the kernel settles the bubble (synctest.Wait) at every
//     step of the clock, even with no task, since a timer of the bubble may
//     wake a goroutine that calls in for the first time
//     (TestInABubbleTheKernelSettlesAtEveryStepOfTheClock).
//   - Waiting conditions are polled between steps (cost grows with the number of
//     waiting tasks), which is fine for the tens of tasks a scenario has
//     (TestWaitingConditionsArePolledBetweenSteps).
package scheduler
