// Package poller is a small operator fed by its own goroutine: a manager
// Runnable starts a goroutine that polls an outside system (an image
// registry) every 10 seconds and sends a GenericEvent into a source.Channel
// for each Image whose status.latest is behind the registry; the controller
// reconciles Images (from their watch and from the channel) and writes the
// registry's latest version into status.latest. It is tested with package
// operatortest and default options: the goroutine and the source.Channel's
// goroutines are tasks of the process under the simulator's scheduler
// (sim/scheduler's adopt.go), so a crash ends them and a restart starts them
// again, deterministically.
//
// The test owns the registry: a fake that publishes versions at given
// instants of virtual time and is unavailable for twelve seconds (a 503).
//
// The buggy poller returns the registry's error from its
// wait.PollUntilContextCancel condition. wait's contract is that an error
// ends the poll: the goroutine returns, the manager runs on, and no later
// release reaches an Image until the pod restarts. The fixed poller logs the
// error and polls again at the next tick. The test's property (each Image's
// status.latest is the registry's latest at rest) catches it.
//
// # Known gaps
//
//   - The bug needs no cluster fault: the outage of the outside system is
//     the fake's own schedule. A crash during the outage hides it (the
//     restarted process polls again); most plans show it
//     (TestTheBugShowsWithoutACrash).
package poller
