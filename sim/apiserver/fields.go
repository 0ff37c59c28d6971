package apiserver

import (
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Fields is the set a field selector on a list or watch of k matches o
// against: metadata.name, metadata.namespace (namespaced kinds) and the
// kind's own fields (see List).
func (k *Kind) Fields(o client.Object) fields.Set { return objectFields(k, o) }

// SupportsField reports whether a field selector on k may name f; a real
// server answers a list or watch naming another field with a 400.
func (k *Kind) SupportsField(f string) bool { return supportedField(k, f) }
