// Package drift is the smallest operator that corrects drift the way GitOps
// controllers do, with a server-side dry run: a Site is served by a Service
// <name>-web it owns (its port from spec.port, to the pods' 8080), applied
// with server-side apply (field manager "drift", ForceOwnership). To tell
// drift from the server's defaults (a Service gains a clusterIP, a session
// affinity, IP families, a port's target port), it applies the desired
// Service as a dry run and compares the answer's spec with the live
// Service's (read from the apiserver): only a difference is drift, and only
// drift is corrected, by the apply for real, stamped with the time of the
// correction (annotation drift.ctrlsim.dev/corrected-at). The Site's status
// gives the Service's cluster IP.
//
// The pattern's trap for a test harness: the dry runs themselves, which a
// harness must serve as kube-apiserver does (answered, nothing stored), the
// allocated cluster IP, and the correction's time.
//
// The buggy twin (Buggy) compares its desired Service with the live one
// without the dry run: the server's defaults look like drift at every
// reconcile, and each correction's new time is a write of the Service that
// wakes the controller again, for ever.
//
// # Known gaps
//
//   - One child, one port; drift of the Service's labels or annotations is
//     not looked for, only of its spec. A user's change of the port itself is
//     not corrected: the apply keeps the user's port beside the Site's, both
//     named http, and the Service is refused at every reconcile, as on a real
//     cluster (examples/patterns.TestDriftOnlyLooksAtTheServicesSpec).
package drift
