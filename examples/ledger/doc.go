// Package ledger is a small operator that waits and retries as real operators
// do, with client-go's helpers, tested in the simulator with package
// operatortest, where its sleeps, polls and back-offs take virtual time.
//
// For each ConfigMap labelled ledger.ctrlsim.dev/item (an item, with data
// amount) it records the item in the ledger, the ConfigMap "ledger" of the
// item's namespace: data[<item>] = <amount>. The ledger is made by the
// operator's bootstrap Runnable, which first waits 5 s (time.Sleep: standing
// for a slow start-up step). A reconcile waits for the ledger to reach its
// cache with wait.PollUntilContextTimeout (every second, for 30 s), then
// records the item with retry.RetryOnConflict(retry.DefaultRetry, ...): two
// workers record items at once, so their updates of the one ledger conflict.
// The loggers are the global ones kept in the structs (ctrl.Log.WithName),
// as kubebuilder's scaffold of old did.
//
// With Buggy set, the recording carries a classic misuse of
// RetryOnConflict: it reads the ledger once, before the retries, so every
// retry sends the same stale object and meets the same conflict; and it logs
// the final conflict and carries on, so the item is never recorded. The test
// finds it.
//
// # Known gaps
//
//   - A teaching example: the ledger is a ConfigMap, no finalizer, an item's
//     entry stays after the item is deleted
//     (TestADeletedItemsEntryStaysInTheLedger).
//   - retry.DefaultRetry jitters its 10 ms back-off with the global math/rand,
//     which does not follow the plan's seed: runs where a conflict is retried
//     can differ in their trace times (not in their verdicts)
//     (TestTheRetrysBackOffIsJitteredOutsideThePlan).
package ledger
