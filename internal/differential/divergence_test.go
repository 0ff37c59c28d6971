package differential

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
)

// The tests in this file each pin one divergence between the model and a real
// kube-apiserver that the generated sequences found, as a short script.
// TestDivergence* tests show a divergence that was fixed: they require the same
// outcome on both. TestKnownGap* tests show a divergence the model keeps on purpose
// (listed in sim/apiserver/doc.go): they require it to still be there, so that
// closing a gap is noticed.

// A list of custom resources decodes into typed items that keep apiVersion and kind:
// the server sends them in every item of a custom resource list (the items are
// unstructured JSON), and the typed decoder only clears the list's own TypeMeta.
// Built-in lists have none in their items.
func TestDivergenceCustomResourceListItemsCarryTypeMeta(t *testing.T) {
	compareScript(t,
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: Widget, Namespace: "a", Name: "one"},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "one"},
		Op{Verb: List, Kind: Widget, Namespace: "a"},
		Op{Verb: List, Kind: ConfigMap, Namespace: "a"},
	)
}

// Authorization runs before routing: a request for a subresource the kind does not
// serve (configmaps/status) is denied with 403 to a user without the permission, and
// only an authorized user gets the 404 (k8s.io/apiserver pkg/server/config.go
// DefaultBuildHandlerChain: WithAuthorization wraps the mux).
func TestDivergenceUnservedSubresourceIsAuthorizedFirst(t *testing.T) {
	compareScript(t,
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "one"},
		Op{Verb: UpdateStatus, Kind: ConfigMap, AsSA: true, Namespace: "a", Name: "one", Mutation: NoChange},
		Op{Verb: StatusPatch, Kind: ConfigMap, AsSA: true, Namespace: "a", Name: "one", Mutation: SetLabel},
		Op{Verb: UpdateStatus, Kind: ConfigMap, Namespace: "a", Name: "one", Mutation: NoChange},
	)
}

// The 404 for a path the server does not serve (the status subresource of a kind
// without one) comes from the mux, not from a registry: its details are empty.
func TestDivergenceUnservedSubresourceNotFoundHasNoDetails(t *testing.T) {
	compareScript(t,
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "one"},
		Op{Verb: StatusPatch, Kind: ConfigMap, Namespace: "a", Name: "one", Mutation: SetLabel},
		Op{Verb: UpdateStatus, Kind: Role, Namespace: "a", Name: "missing", Mutation: NoChange},
	)
}

// A strategic merge patch of a custom resource is refused with 415 before the object
// is read: the patch handler checks the patch type against the kind first
// (k8s.io/apiserver pkg/endpoints/handlers/patch.go PatchResource), so a missing object
// or namespace does not turn it into a 404.
func TestDivergenceCustomResourceStrategicPatchIs415First(t *testing.T) {
	compareScript(t,
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: Widget, Namespace: "a", Name: "one"},
		Op{Verb: StrategicPatch, Kind: Widget, Namespace: "a", Name: "one", Mutation: SetLabel},
		Op{Verb: StrategicPatch, Kind: Widget, Namespace: "a", Name: "missing", Mutation: SetLabel},
		Op{Verb: StrategicPatch, Kind: Widget, Namespace: "b", Name: "one", Mutation: RemoveFinalizers},
	)
}

// An update (PUT) of a Role or RoleBinding that does not exist creates it: their
// strategies allow create on update (pkg/registry/rbac/role/strategy.go,
// rolebinding/strategy.go AllowCreateOnUpdate; also ClusterRole(Binding), Lease,
// Service, Endpoints, Event, LimitRange, RuntimeClass). Admission then sees a create,
// so NamespaceLifecycle refuses it in a missing namespace with the namespace's 404.
func TestDivergenceUpdateCreatesRolesAndRoleBindings(t *testing.T) {
	compareScript(t,
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Update, Kind: Role, Namespace: "a", Name: "role", Mutation: SetContent, V: 1},
		Op{Verb: Update, Kind: RoleBinding, Namespace: "a", Name: "one", Mutation: SetContent},
		Op{Verb: Update, Kind: RoleBinding, Namespace: "b", Name: "one", Mutation: SetContent},
		Op{Verb: Delete, Kind: Role, Namespace: "a", Name: "role"},
		Op{Verb: Update, Kind: Role, Namespace: "a", Name: "role", Mutation: SetContent, V: 2},
		Op{Verb: Update, Kind: ConfigMap, Namespace: "a", Name: "one", Mutation: SetContent},
	)
}

// A create with generateName in a terminating namespace is refused with the
// generateName as the object's name: the create handler hands admission the
// generateName when the name is empty (k8s.io/apiserver pkg/endpoints/handlers/create.go),
// and NamespaceLifecycle's Forbidden names it.
func TestDivergenceTerminatingNamespaceErrorNamesGenerateName(t *testing.T) {
	compareScript(t,
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Delete, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", GenerateName: true},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "one"},
	)
}

// A custom resource is stored as JSON, where a field set to its zero value differs
// from an absent one, so writes that a typed object cannot tell apart from no change
// are real writes: a new resourceVersion (and watch event), and for spec a new
// generation. Create drops the status (apiextensions-apiserver
// pkg/registry/customresource/strategy.go PrepareForCreate), so the first status
// update with an empty status (a typed client always sends "status": {}) stores one;
// a merge patch of "size": 0 adds the field. Doing either again changes nothing.
func TestKnownGapCustomResourceZeroValuesAreWrites(t *testing.T) {
	knownGapScript(t, "custom resources are typed Go values, not JSON",
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: Widget, Namespace: "a", Name: "one"},
		Op{Verb: UpdateStatus, Kind: Widget, Namespace: "a", Name: "one", Mutation: NoChange},
		Op{Verb: UpdateStatus, Kind: Widget, Namespace: "a", Name: "one", Mutation: NoChange},
		Op{Verb: Get, Kind: Widget, Namespace: "a", Name: "one"},
	)
	knownGapSteps(t, "custom resources are typed Go values, not JSON",
		Step{"create Widget without size", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}, Spec: apiservertest.WidgetSpec{Color: "red"}}
			return o, c.Create(ctx, o)
		}},
		Step{`merge patch {"spec":{"size":0}}`, func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}}
			return o, c.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"size":0}}`)))
		}},
		Step{"the same patch again", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}}
			return o, c.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"size":0}}`)))
		}},
	)
}

// A create that collides with an object that is being deleted (a finalizer holds it,
// or a terminating namespace) is an AlreadyExists whose message starts with
// "object is being deleted: " (k8s.io/apiserver pkg/registry/generic/registry/store.go
// Create), which tells a client to wait rather than adopt the old object.
func TestDivergenceCreateOverDeletingObjectSaysBeingDeleted(t *testing.T) {
	compareScript(t,
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "one", Finalizer: true},
		Op{Verb: Delete, Kind: ConfigMap, Namespace: "a", Name: "one"},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "one"},
		Op{Verb: Delete, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
	)
}

// An update whose object carries the uid of an earlier incarnation (deleted and
// re-created under the same name) is refused by the storage layer's precondition
// check (k8s.io/apiserver pkg/storage/etcd3/store.go GuaranteedUpdate ->
// storage.NewInvalidObjError), so the 409's message is the storage error's text,
// with the etcd key: `Operation cannot be fulfilled on configmaps "one": StorageError:
// invalid object, Code: 4, Key: /registry/configmaps/<ns>/one, ResourceVersion: 0,
// AdditionalErrorMsg: Precondition failed: UID in precondition: ..., UID in object meta: ...`.
func TestDivergenceUIDPreconditionIsAStorageError(t *testing.T) {
	compareScript(t,
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "one"},
		Op{Verb: Delete, Kind: ConfigMap, Namespace: "a", Name: "one"},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "one", V: 1},
		Op{Verb: Update, Kind: ConfigMap, Namespace: "a", Name: "one", Mutation: SetContent, RV: RVStale},
		Op{Verb: Create, Kind: Widget, Namespace: "a", Name: "one"},
		Op{Verb: Delete, Kind: Widget, Namespace: "a", Name: "one"},
		Op{Verb: Create, Kind: Widget, Namespace: "a", Name: "one", V: 1},
		Op{Verb: UpdateStatus, Kind: Widget, Namespace: "a", Name: "one", Mutation: SetStatus, RV: RVStale},
	)
}

// An update or patch that removes the last finalizer of a deleting object deletes it,
// and answers with the object of the request, which was never stored: its
// resourceVersion is the one the object had before (k8s.io/apiserver
// pkg/registry/generic/registry/store.go deleteWithoutFinalizers: "return the object
// in the request instead"), not that of the deletion.
func TestDivergenceRemovingTheLastFinalizerAnswersWithThePreviousVersion(t *testing.T) {
	compareScript(t,
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "one", Finalizer: true},
		Op{Verb: Delete, Kind: ConfigMap, Namespace: "a", Name: "one"},
		Op{Verb: Get, Kind: ConfigMap, Namespace: "a", Name: "one"},
		Op{Verb: Update, Kind: ConfigMap, Namespace: "a", Name: "one", Mutation: RemoveFinalizers},
		Op{Verb: Create, Kind: Widget, Namespace: "a", Name: "one", Finalizer: true},
		Op{Verb: Delete, Kind: Widget, Namespace: "a", Name: "one"},
		Op{Verb: MergePatch, Kind: Widget, Namespace: "a", Name: "one", Mutation: RemoveFinalizers},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "two"},
	)
}

// A finalizer added to a deleting custom resource is refused with a 422 whose details
// list the "no new finalizers" cause twice (the custom resource strategy's
// ValidateUpdate runs the object-meta update validation that the generic
// rest.BeforeUpdate runs too); the message, an aggregate, names it once. A built-in
// kind lists it once.
func TestDivergenceNewFinalizerOnDeletingCustomResourceHasTwoCauses(t *testing.T) {
	compareScript(t,
		Op{Verb: Create, Kind: Namespace, Namespace: "a"},
		Op{Verb: Create, Kind: Widget, Namespace: "a", Name: "one", Finalizer: true, V: 1},
		Op{Verb: Delete, Kind: Widget, Namespace: "a", Name: "one"},
		Op{Verb: MergePatch, Kind: Widget, Namespace: "a", Name: "one", Mutation: AddFinalizer},
		Op{Verb: Create, Kind: ConfigMap, Namespace: "a", Name: "one", Finalizer: true, V: 1},
		Op{Verb: Delete, Kind: ConfigMap, Namespace: "a", Name: "one"},
		Op{Verb: MergePatch, Kind: ConfigMap, Namespace: "a", Name: "one", Mutation: AddFinalizer},
	)
}

// controller-runtime's client gives the caller's object back its apiVersion and kind
// after Update, Patch and the status subresource's Update and Patch (client.go
// resetGroupVersionKind; Create and Get leave them empty for typed objects).
func TestDivergenceUpdateAndPatchKeepTheCallersTypeMeta(t *testing.T) {
	cmTM := metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}
	wTM := metav1.TypeMeta{APIVersion: apiservertest.GroupVersion.String(), Kind: "Widget"}
	merge := client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"labels":{"app":"b"}}}`))
	compareSteps(t,
		Step{"create ConfigMap with TypeMeta", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &corev1.ConfigMap{TypeMeta: cmTM, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}}
			return o, c.Create(ctx, o)
		}},
		Step{"update ConfigMap with TypeMeta", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &corev1.ConfigMap{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "one"}, o); err != nil {
				return nil, err
			}
			o.TypeMeta = cmTM
			o.Data = map[string]string{"k": "v"}
			return o, c.Update(ctx, o)
		}},
		Step{"patch ConfigMap with TypeMeta", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &corev1.ConfigMap{TypeMeta: cmTM, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}}
			return o, c.Patch(ctx, o, merge)
		}},
		Step{"create Widget", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}}
			return o, c.Create(ctx, o)
		}},
		Step{"status patch Widget with TypeMeta", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &apiservertest.Widget{TypeMeta: wTM, ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}}
			return o, c.Status().Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"status":{"phase":"x"}}`)))
		}},
	)
}

// A Secret's stringData is merged into data and dropped on write
// (pkg/apis/core/v1/conversion.go Convert_v1_Secret_To_core_Secret).
func TestDivergenceSecretStringData(t *testing.T) {
	compareSteps(t, Step{"create Secret with stringData", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
		o := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}, StringData: map[string]string{"k": "v"}}
		return o, c.Create(ctx, o)
	}})
}

// An immutable ConfigMap's data cannot change (pkg/apis/core/validation
// ValidateConfigMapUpdate: "field is immutable when `immutable` is set").
func TestDivergenceImmutableConfigMap(t *testing.T) {
	compareSteps(t,
		Step{"create immutable ConfigMap", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}, Data: map[string]string{"k": "v"}, Immutable: ptr.To(true)}
			return o, c.Create(ctx, o)
		}},
		Step{"change its data", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}}
			return o, c.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"data":{"k":"w"}}`)))
		}},
	)
}

// A RoleBinding's roleRef cannot change (pkg/apis/rbac/validation
// ValidateRoleBindingUpdate: "cannot change roleRef").
func TestDivergenceRoleBindingRoleRefIsImmutable(t *testing.T) {
	compareSteps(t,
		Step{"create RoleBinding", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"},
				RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "one"}}
			return o, c.Create(ctx, o)
		}},
		Step{"change its roleRef", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "one"}}
			return o, c.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(`{"roleRef":{"name":"two"}}`)))
		}},
	)
}

// A delete whose propagation policy removes the last finalizer of a deleting object
// (the orphan or foregroundDeletion finalizer an earlier delete added: envtest has no
// garbage collector to remove it) deletes the object, but not with a resourceVersion
// precondition, even the current one: the generic registry checks the precondition
// (rest.BeforeDelete), gives up its finalizer update (updateForGracefulDeletionAndFinalizers:
// errDeleteNow, with an empty object), takes that object's resourceVersion, "", as the
// new precondition, and the storage delete refuses it with a 409 whose message is the
// storage error (`StorageError: invalid object, Code: 4, Key: /registry/roles/<ns>/one,
// ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in
// precondition: , ResourceVersion in object meta: <rv>`). A uid precondition holds.
// Found by TestModelMatchesKubeAPIServer on a Role; the same for every kind.
func TestDivergenceDeleteThatRemovesTheLastFinalizerFailsAResourceVersionPrecondition(t *testing.T) {
	ops := []Op{{Verb: Create, Kind: Namespace, Namespace: "a"}}
	for i, k := range []string{Role, ConfigMap, Widget, RoleBinding} {
		first := []metav1.DeletionPropagation{metav1.DeletePropagationOrphan, metav1.DeletePropagationForeground}[i%2]
		ops = append(ops,
			Op{Verb: Create, Kind: k, Namespace: "a", Name: "one"},
			Op{Verb: Delete, Kind: k, Namespace: "a", Name: "one", Propagation: first},
			Op{Verb: Get, Kind: k, Namespace: "a", Name: "one"},
			// The current resourceVersion, and the policy's finalizer gone: 409.
			Op{Verb: Delete, Kind: k, Namespace: "a", Name: "one", RV: RVSet, Propagation: metav1.DeletePropagationBackground},
			// Both preconditions: the uid holds, the resourceVersion fails the same way.
			Op{Verb: Delete, Kind: k, Namespace: "a", Name: "one", RV: RVSet, UID: RVSet, Propagation: metav1.DeletePropagationBackground},
			// A precondition that does not hold fails first, with the registry's message.
			Op{Verb: Delete, Kind: k, Namespace: "a", Name: "one", RV: RVStale, Propagation: metav1.DeletePropagationBackground},
			// No policy: the finalizer stays, and the precondition holds.
			Op{Verb: Delete, Kind: k, Namespace: "a", Name: "one", RV: RVSet},
			Op{Verb: Get, Kind: k, Namespace: "a", Name: "one"},
			// A uid precondition alone: deleted.
			Op{Verb: Delete, Kind: k, Namespace: "a", Name: "one", UID: RVSet, Propagation: metav1.DeletePropagationBackground},
			Op{Verb: Get, Kind: k, Namespace: "a", Name: "one"},
		)
	}
	c := compareScript(t, ops...)
	if e := c.Real[4].Error; e == nil || e.Code != 409 {
		t.Errorf("kube-apiserver must refuse the delete with the current resourceVersion, got %s", c.Real[4])
	}
}

// A namespace's delete preconditions are checked by the namespace registry itself
// (pkg/registry/core/namespace/storage Delete), with messages of its own: "Precondition
// failed: UID in precondition: ..., UID in object meta: ..." (and the same for the
// resourceVersion), before it marks the namespace Terminating.
func TestDivergenceNamespaceDeletePreconditions(t *testing.T) {
	deleteNS := func(pre metav1.Preconditions) func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
		return func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			return nil, c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, client.Preconditions(pre))
		}
	}
	c := compareSteps(t,
		Step{"delete namespace, another uid", deleteNS(metav1.Preconditions{UID: ptr.To(types.UID("6a1b7c2e-0000-4000-8000-000000000000"))})},
		Step{"delete namespace, another resourceVersion", deleteNS(metav1.Preconditions{ResourceVersion: ptr.To("1")})},
		Step{"delete namespace, both", deleteNS(metav1.Preconditions{UID: ptr.To(types.UID("6a1b7c2e-0000-4000-8000-000000000000")), ResourceVersion: ptr.To("1")})},
		Step{"get namespace", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &corev1.Namespace{}
			return o, c.Get(ctx, client.ObjectKey{Name: ns}, o)
		}},
	)
	for i := range 3 {
		if e := c.Real[i].Error; e == nil || e.Code != 409 {
			t.Errorf("kube-apiserver must refuse %s with a 409, got %s", c.Ops[i], c.Real[i])
		}
	}
}

// A status update of a built-in kind writes the request's metadata: the status
// strategies of most built-in kinds reset only spec (Deployment also its labels;
// pkg/registry/apps/deployment/strategy.go deploymentStatusStrategy.PrepareForUpdate),
// so annotations and finalizers come from the request, and a status update whose
// object lacks the finalizer that a delete with the Orphan policy added (a client
// that has not seen that delete's write) removes it, and with it the deleting
// Deployment. A custom resource's status update keeps all the stored metadata.
// Found by TestModelMatchesKubeAPIServer (-rapid.seed=31337 -rapid.checks=800).
func TestDivergenceStatusUpdateWritesTheRequestsMetadata(t *testing.T) {
	ops := []Op{{Verb: Create, Kind: Namespace, Namespace: "a"}}
	for _, k := range []string{Deployment, Widget} {
		ops = append(ops,
			Op{Verb: Create, Kind: k, Namespace: "a", Name: "one", V: 1},
			Op{Verb: UpdateStatus, Kind: k, Namespace: "a", Name: "one", Mutation: SetStatus, V: 1}, // a status (TestKnownGapCustomResourceZeroValuesAreWrites)
			Op{Verb: UpdateStatus, Kind: k, Namespace: "a", Name: "one", Mutation: SetAnnotation, V: 2},
			Op{Verb: UpdateStatus, Kind: k, Namespace: "a", Name: "one", Mutation: SetLabel, V: 3},
			Op{Verb: UpdateStatus, Kind: k, Namespace: "a", Name: "one", Mutation: AddFinalizer, V: 4},
			Op{Verb: StatusPatch, Kind: k, Namespace: "a", Name: "one", Mutation: SetAnnotation, V: 5},
			Op{Verb: StatusPatch, Kind: k, Namespace: "a", Name: "one", Mutation: RemoveFinalizers},
			Op{Verb: Get, Kind: k, Namespace: "a", Name: "one"},
			Op{Verb: Create, Kind: k, Namespace: "a", Name: "two", V: 1},
			Op{Verb: Delete, Kind: k, Namespace: "a", Name: "two", Propagation: metav1.DeletePropagationOrphan},
			Op{Verb: UpdateStatus, Kind: k, Namespace: "a", Name: "two", Mutation: SetStatus, V: 2, RV: RVNone},
			Op{Verb: Get, Kind: k, Namespace: "a", Name: "two"},
		)
	}
	compareScript(t, ops...)
}

// A finalized namespace (spec.finalizers emptied through the finalize subresource)
// that still has the orphan finalizer of its first delete is deleted by the generic
// store, with the same storage error for a resourceVersion precondition as any kind
// (TestDivergenceDeleteThatRemovesTheLastFinalizerFailsAResourceVersionPrecondition).
func TestDivergenceFinalizedNamespaceDeleteFailsAResourceVersionPrecondition(t *testing.T) {
	get := func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
		o := &corev1.Namespace{}
		return o, c.Get(ctx, client.ObjectKey{Name: ns}, o)
	}
	del := func(policy metav1.DeletionPropagation, withRV bool) func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
		return func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			opts := []client.DeleteOption{client.PropagationPolicy(policy)}
			if withRV {
				o := &corev1.Namespace{}
				if err := c.Get(ctx, client.ObjectKey{Name: ns}, o); err != nil {
					return nil, err
				}
				opts = append(opts, client.Preconditions{ResourceVersion: &o.ResourceVersion})
			}
			return nil, c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, opts...)
		}
	}
	c := compareSteps(t,
		Step{"delete namespace, orphan", del(metav1.DeletePropagationOrphan, false)},
		Step{"get namespace", get},
		Step{"finalize namespace", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := &corev1.Namespace{}
			if err := c.Get(ctx, client.ObjectKey{Name: ns}, o); err != nil {
				return nil, err
			}
			o.Spec.Finalizers = nil
			return o, c.SubResource("finalize").Update(ctx, o)
		}},
		Step{"delete namespace, background, current resourceVersion", del(metav1.DeletePropagationBackground, true)},
		Step{"get namespace", get},
		Step{"delete namespace, background", del(metav1.DeletePropagationBackground, false)},
		Step{"get namespace", get},
	)
	if e := c.Real[3].Error; e == nil || e.Code != 409 {
		t.Errorf("kube-apiserver must refuse the delete with the current resourceVersion, got %s", c.Real[3])
	}
}
