// Package traps holds small operators that each fall into one trap of an
// operator under test that starts goroutines the simulator does not know of
// (a census of the bubble's goroutines names them), and the twin that avoids it:
//
//   - a client-go operator in k8s.io/sample-controller's style that builds
//     its own workqueue (workqueue.NewTypedRateLimitingQueueWithConfig),
//     which now holds: the queue runs on virtual time;
//   - a client-go operator whose start builds a real workqueue and never
//     uses it (holds);
//   - a controller-runtime operator that builds its own client-go
//     workqueue beside its controllers (for work it hands out itself;
//     holds);
//   - a controller-runtime operator whose reconciler keeps an expiring
//     cache (TTLCache, written here: a library of the kind whose New starts
//     a janitor goroutine that runs until Stop), never stopped: no failure,
//     the janitor is abandoned with each world and named once in the
//     test's output; its twin stops it when its process's context ends;
//   - a Runnable that waits on a channel made outside the world's run (its
//     bubble never settles: the world cannot step or close);
//   - a reconciler that works for wall time at each reconcile (Slow), its
//     plans past Options.PlanTimeout.
//
// Each other trap but the janitor fails its test with one line naming the queue or the
// goroutine, within seconds (wallclock's census.go, operatortest/search's
// longrun.go), and a plan past its wall-clock bound is cut and counted; the
// twins hold.
//
// # Known gaps
//
//   - The traps fail the test (t.Fatal), so their tests run them in a
//     child test binary and read its output
//     (TestAWorldThatCannotStepEndsTheTestNamingWhatItWaitsFor).
package traps
