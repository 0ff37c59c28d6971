// Package registry is the smallest operator that writes into a namespace
// it does not own: a RegisteredApp's image is registered as a ConfigMap
// (<namespace>.<name>) in the cluster's registry namespace
// (RegistryNamespace, registry-system), which the operator's install made
// (a kustomize Namespace beside its Deployment), and removed from it when
// the app is deleted (under the operator's finalizer: an object in another
// namespace cannot be owned). status.registered records the image last
// registered. The entry is created once a live read shows the app alive
// (a restart onto a cache from before the app's deletion would bring back
// the entry its finalizer removed, and nothing would collect it), and
// written with create-or-update (a crash between
// the entry's write and the status write finds the entry there on the next
// reconcile), and the operator watches its entries: a restart onto a cache
// that still shows the app's old image writes the old image, and the
// reconcile that follows the cache's catching up may still see the entry
// as it was before that write; the write's own event brings it back.
//
// The pattern's trap for a test harness: the registry namespace is the
// cluster's set-up, seeded by the test as the install made it. A workload
// that deletes it (as it deletes the operator's own custom resources)
// makes every later registration fail (the namespace is gone, or
// Terminating), an error at rest that no user of the operator causes.
//
// The buggy twin (Buggy) registers with a plain create whenever status does
// not yet show the image, and takes AlreadyExists as an error: a crash
// right after the entry's create, before the status write, leaves it
// failing at every reconcile.
//
// # Known gaps
//
//   - No registry server: an entry is a ConfigMap holding the image alone,
//     which nothing reads, and no Service fronts the registry
//     (examples/patterns.TestRegistryEntryIsAConfigMapWithTheImageAlone).
package registry
