// Package traps holds small operators that each fall into one trap of an
// operator under test that starts goroutines the simulator does not know of
// (issue 53), and the twin that avoids it:
//
//   - a client-go operator in k8s.io/sample-controller's style that builds
//     its own workqueue (workqueue.NewTypedRateLimitingQueueWithConfig),
//     where operatortest.ClientGoQueue is the queue to use;
//   - a client-go operator whose start builds a real workqueue and never
//     uses it;
//   - a controller-runtime operator that builds its own client-go
//     workqueue beside its controllers (for work it hands out itself);
//   - a controller-runtime operator whose reconciler keeps an expiring
//     cache (TTLCache, written here: a library of the kind whose New starts
//     a janitor goroutine that runs until Stop), never stopped; its twin
//     stops it when its process's context ends.
//
// Each trap fails its test with one line naming the queue or the
// goroutine, within seconds (wallclock's census.go); the twins hold.
//
// # Known gaps
//
//   - The traps fail the test (t.Fatal), so their tests run them in a
//     child test binary and read its output.
package traps
