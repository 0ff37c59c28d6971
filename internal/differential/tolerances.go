package differential

// Tolerances are known divergences that the comparison normalises away on both sides,
// so that a generated sequence can find the next one. Each has a focused test that
// shows it (divergence_test.go); drop the tolerance once the model is fixed.
type Tolerances struct {
	// ListItemTypeMeta: the items of a custom resource list carry apiVersion and kind
	// on a real server (the JSON items keep them); the model's are empty.
	ListItemTypeMeta bool
	// UnservedSubresourceAuthz: a request for a subresource the kind does not have
	// (configmaps/status) is authorized before routing on a real server (403 for a
	// user without the permission, then 404); the model answers 404 first. Sequences
	// make such requests as the admin only.
	UnservedSubresourceAuthz bool
	// UnservedNotFoundDetails: the 404 for a path a real server does not serve has
	// empty details; the model's names the object and resource.
	UnservedNotFoundDetails bool
	// CustomResourceStrategicPatchChecksFirst: a strategic merge patch of a custom
	// resource is a 415 on a real server before the object is looked up (also when it
	// does not exist); the model answers 404 for a missing object. Sequences send no
	// strategic merge patches to custom resources.
	CustomResourceStrategicPatchChecksFirst bool
	// RBACUpdateCreates: an update of a Role or RoleBinding that does not exist
	// creates it on a real server (their strategies' AllowCreateOnUpdate is true); the
	// model answers 404. Sequences do not update Roles and RoleBindings (they patch them).
	RBACUpdateCreates bool
	// AdmissionNamesGenerateName: admission errors for a create with generateName name
	// the object by its generateName on a real server ("gen-"); the model's name it "".
	// Normalised by dropping the name.
	AdmissionNamesGenerateName bool
	// CustomResourceJSONStorage: a custom resource is stored as JSON, so a write that
	// adds a field with its zero value, or an empty status where there was none (the
	// first status update with an empty status: create drops status), changes the
	// stored object on a real server: a new resourceVersion, and for spec a new
	// generation. The model stores Go values, where zero and absent are one, and sees
	// no change. Sequences' status updates of Widgets always set a status, and their
	// patches of Widgets carry no zero values.
	CustomResourceJSONStorage bool
	// AlreadyExistsBeingDeleted: a create that collides with an object being deleted
	// says "object is being deleted: ..." on a real server. Normalised by dropping the
	// prefix.
	AlreadyExistsBeingDeleted bool
	// UIDPreconditionStorageError: an update whose uid does not match is refused by
	// the storage layer on a real server, and its 409 message wraps the precondition
	// in "StorageError: invalid object, Code: 4, Key: /registry/..., ResourceVersion:
	// 0, AdditionalErrorMsg: ". Normalised by dropping the wrapper.
	UIDPreconditionStorageError bool
	// CallerTypeMetaKept: controller-runtime's client restores the caller's apiVersion
	// and kind after Update, Patch and their status variants (client.go
	// resetGroupVersionKind); kubeclient clears them. Objects of the sequences carry
	// TypeMeta after a list of custom resources. Normalised by dropping TypeMeta from
	// objects.
	CallerTypeMetaKept bool
	// FinalizedObjectKeepsVersion: an update or patch that removes the last finalizer of
	// a deleting object deletes it and answers with the request's object, which was
	// never stored: on a real server it carries the previous resourceVersion
	// (registry/generic/registry/store.go deleteWithoutFinalizers); the model's carries
	// the deletion's. Normalised by dropping the resourceVersion of such answers.
	FinalizedObjectKeepsVersion bool
	// DuplicateCauses: the 422 for a finalizer added to a deleting custom resource
	// lists the cause twice on a real server (the message, an aggregate, once).
	// Normalised by dropping repeated causes.
	DuplicateCauses bool
}

// Avoids reports whether a generated op would only show a tolerated divergence again.
func (t Tolerances) Avoids(op Op) bool {
	if t.UnservedSubresourceAuthz && op.AsSA && (op.Verb == UpdateStatus || op.Verb == StatusPatch) && !kinds[op.Kind].status {
		return true
	}
	if t.RBACUpdateCreates && op.Verb == Update && (op.Kind == Role || op.Kind == RoleBinding) {
		return true
	}
	if t.CustomResourceJSONStorage && op.Verb == UpdateStatus && op.Kind == Widget && op.Mutation != SetStatus {
		return true
	}
	if t.CustomResourceStrategicPatchChecksFirst && op.Verb == StrategicPatch && op.Kind == Widget {
		return true
	}
	return false
}
