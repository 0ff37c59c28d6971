// Package finalizer is the smallest operator with a finalizer and external
// cleanup: a Bucket is registered with an external storage provider, which
// the operator must tell when the Bucket goes. The provider's state is the
// ConfigMap cloud-buckets of the Bucket's namespace (one key per bucket, its
// region): the operator does not own it, as it does not own a cloud
// provider's. The operator adds its finalizer before it registers a bucket,
// and on deletion removes the registration, then the finalizer.
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
//   - The provider is in the cluster (a ConfigMap) so that the generic
//     oracles see it; a real provider is outside, and its calls are not
//     faulted here.
package finalizer
