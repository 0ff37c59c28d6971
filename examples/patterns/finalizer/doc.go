// Package finalizer is the smallest operator with a finalizer and external
// cleanup: a Bucket is registered with an external storage provider, which
// the operator must tell when the Bucket goes. The provider's record of a
// bucket is a ConfigMap cloud-bucket-<name> with its region: the operator
// does not own it (the garbage collector would delete it on its own), as a
// bucket at a cloud provider is not owned by its Bucket. The operator adds its finalizer before it registers a bucket,
// and on deletion removes the registration, then the finalizer.
//
// The provider is called only for a Bucket the apiserver holds now: the
// update that adds the finalizer confirms it, and when the cache already
// shows the finalizer, a live read does. A restart onto a lagging apiserver
// lists a Bucket deleted since, finalizer and all; registering it from that
// view leaks a bucket for ever (the suite's 1,000 plans found this in the
// operator as first written: reports/falsealarms.md).
//
// The pattern's trap for a test harness: a Bucket deleted and re-created by
// the workload while its finalizer is still being processed; the re-create
// meets AlreadyExists until the cleanup is done.
//
// The buggy twin (Buggy) removes the finalizer before the cleanup: a process
// that dies between the two leaves the bucket registered for ever, its
// Bucket gone.
//
// # Known gaps
//
//   - The provider is in the cluster (ConfigMaps) so that the generic
//     oracles see it; a real provider is outside, and its calls fail and
//     time out in their own ways, not modelled here
//     (examples/patterns.TestFinalizersProviderIsAConfigMapInTheCluster).
package finalizer
