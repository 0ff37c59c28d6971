package apiserver

import (
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Event is one entry of the watch log: a committed change to one object.
//
// Object is the stored snapshot after the change (for Deleted, the last state of
// the object with the resourceVersion of the deletion, as etcd3 watch delivers it).
// Snapshots are shared and immutable: a receiver that wants to modify one
// deep-copies it first.
type Event struct {
	Type            watch.EventType // watch.Added, watch.Modified or watch.Deleted
	GVK             schema.GroupVersionKind
	Object          client.Object
	ResourceVersion uint64
	At              time.Time // when the change was committed (virtual time)
}
