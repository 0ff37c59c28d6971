// Package noopstatus is a small kubebuilder-style operator with two bugs of
// different kinds, for the search's findings with no fault at all: for each
// App it makes two ConfigMaps, <name>-config and then <name>-credentials,
// both owned by the App, each holding the App's image (kept up to date),
// and counts them in the App's status. (Before it kept the image up to
// date, it had a third bug the random plans found once they ran beside the
// sweep's: a ConfigMap made before a change of the image kept the old one.)
//
//   - NoopStatus: it writes the status on every reconcile, changed or not,
//     and asks to be reconciled again every resync (15 s): at rest it keeps
//     sending updates that store nothing. The fault-free run shows it
//     (writes-at-rest), so the search reports it "with no fault at all"
//     (plan 0) and goes on.
//   - CrashBug: it decides it is done when the first ConfigMap exists, so a
//     process that dies between the two creates leaves the second missing
//     for ever (examples/twowrites' bug). Only a fault shows it: the
//     targeted plan of a crash right after the first create (converges).
//
// One default operatortest.Run of the operator with both reports both,
// the first with no fault and the second at its plan (TestBothBugsAreReportedByOneRun);
// so does one with KeepGoing, which lists one bug's signatures under another's
// only where the evidence says they share a root cause (TestKeepGoingReportsBothBugsApart).
//
// # Known gaps
//
//   - A teaching example: no finalizer, no Events
//     (TestTheOperatorWritesNoFinalizerAndNoEvent).
package noopstatus
