// Package clusterip is the smallest operator that passes a user's override
// to a Service whose apiserver may refuse it: a BrokerService is a broker's
// client Service, and its spec.clusterIP is passed to the Service as it is.
// The CRD's schema accepts any short string; kube-apiserver an address of
// the service range, at creation only (the field is immutable). A user who
// sets another value gets the apiserver's refusal back from every
// reconcile, which fails and retries with back-off until the user fixes
// the value: an error at rest by design, in every run.
// status.observedGeneration records the generation whose Service was
// written.
//
// The pattern's trap for a test harness: the same invalid value is met by
// the Service's creation in a run whose operator was slowed past the user's
// edit, and by an update of the Service in one that made it first, and
// kube-apiserver answers the two differently: a create's address goes to
// the IP allocator before validation, which answers `Internal error
// occurred: failed to parse service IP "ac"` (a 500 with no field), an
// update's to validation, which answers with field errors on
// spec.clusterIP and spec.clusterIPs (a 422). Two reasons, two texts, one
// cause: the user's value, which the BrokerService holds at one field path
// (operatortest's verdicts compare an error that refuses a write for the
// reconciled object's own value by that value).
//
// The buggy twin (Buggy) records the observed generation before it writes
// the Service, and skips the Service of a generation it has observed (a
// common shortcut): a crash between the two writes, or a refused write,
// leaves the Service behind the user's last valid edit for good.
//
// # Known gaps
//
//   - No EndpointSlice is read back; the Service selects pods no workload
//     makes
//     (examples/patterns.TestInvalidClusterIPsServiceSelectsNoPodAndNoEndpointSliceIsRead).
package clusterip
