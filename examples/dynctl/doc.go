// Package dynctl is the smallest dynamic controller of the kind a
// resource-graph operator starts for each resource at run time: a dynamic
// informer of one resource, a dynamic client, workers under
// wait.UntilWithContext, and a client-go rate-limited workqueue that the
// controller builds in its own constructor (New), as such operators do.
// For each ConfigMap labelled dynctl.ctrlsim.dev/summarize=yes it keeps a
// ConfigMap <name>-summary, owned by it, that says how many keys its data
// has.
//
// The controller keeps an expiring LRU of the summaries it wrote lately
// (a log line says when one is rewritten within a minute), whose janitor
// New starts and nothing stops, as such libraries' janitors tick forever
// when nothing calls their Close: the run ends, nothing fails for it, and
// the test's output names it once, in one line, by the frame that started
// it (TestAJanitorTickingForeverIsNamedOnce).
//
// It is tested unchanged with package operatortest and default Options:
// the test's Setup is what the operator's main does (build the controller
// on operatortest/clientgo's Env, start the factory, run), and the queue
// New builds is client-go's own, running in the world on virtual time.
//
// The Buggy controller forgets a key whose sync failed instead of retrying
// it (AddRateLimited): an error answer to its summary's write leaves the
// summary missing or stale when nothing changes the ConfigMap again. The
// generic oracles catch it; nothing in the test names the bug.
//
// # Known gaps
//
//   - The correct controller is explored at default Options' 100 plans in
//     make test (4 s); at the 1,000 plans the false-alarm suite gives its
//     correct operators it holds too, measured by hand (`go test -run
//     TestTheCorrectControllerHolds -ctrlsim.checks=1000`, 55 s on 2 shared
//     cores, 2026-11-29), not in any make target.
//   - The test's Setup builds the controller on Env's dynamic informer
//     factory, as the operator's main would build one from its kubeconfig;
//     a factory the operator builds itself starts its informers in Go map
//     order (operatortest/clientgo's Known gaps), safe here with one
//     resource (TestTheBuggyControllerIsCaughtAndItsTwinHoldsOnItsPlan
//     replays a plan twice with one trace hash).
package dynctl
