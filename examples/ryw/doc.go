// Package ryw is the smallest operator whose bug controller-runtime's
// read-your-writes consistency fixes (v0.25's
// client.CacheOptions.EnableReadYourWritesConsistency, set in main's
// manager.Options.Client.Cache), tested with the option off and on.
//
// For each ConfigMap labelled ryw.ctrlsim.dev/app it keeps one Secret with a
// generated name (<name>-xxxxx), owned by the ConfigMap and labelled with
// its name, and publishes the Secret's name in the ConfigMap's annotation
// ryw.ctrlsim.dev/secret. A generated name cannot be looked up, so each
// reconcile lists the ConfigMap's Secrets from the cache and makes one when
// there is none. That is crash-safe: after a crash between the create and
// the annotation, the restarted process lists the Secret and adopts it.
//
// Its bug is the stale list: the annotation's update triggers the next
// reconcile, whose list comes from an informer that may not have seen the
// Secret the process made a moment before (watch lag), so it makes a second
// one (and, while the lag lasts, a third). With read-your-writes
// consistency on, the same code is correct: controller-runtime's client
// remembers the resourceVersion of each write's answer, and the List waits
// until the Secrets' informer has seen it. Nothing in the test names the
// bug: with the option off the generic oracles catch the second Secret
// (converges, update-summaries); on, the operator holds over 100 plans and
// on the plan that caught it off (ryw_test.go). In the simulator the option
// hosts controller-runtime's own client (sim/process ryw.go), and the wait
// is in virtual time.
//
// What read-your-writes does not fix, and so what the test's fault profile
// leaves out: it is a promise about one process's own writes, kept in its
// memory. A restart onto a lagging apiserver (the stale fault) starts with
// no memory of the writes before it and a cache that may not have them,
// and makes a second Secret all the same; a write whose answer never came
// back (a timeout after the commit) has no resourceVersion to wait for;
// and other actors' writes are not waited for: a user who deletes and
// re-creates the ConfigMap while the cache lags gets a Secret made for the
// old one, which the garbage collector then deletes (the user steps are off:
// update-summaries counts that Secret as a duplicate, generated names past
// their prefix's first being duplicates). A live read (the manager's
// APIReader, as examples/staleview does) covers those.
//
// # Known gaps
//
//   - It is a teaching example: no Events, no status, no cleanup of a second
//     Secret once made (TestNoEventNoStatusAndNoSecretIsDeleted).
package ryw
