package apiserver

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/patch"
)

// optimisticLockErrorMsg is registry.OptimisticLockErrorMsg.
const optimisticLockErrorMsg = "the object has been modified; please apply your changes to the latest version and try again"

// maxNameGenerationCreateAttempts is the generic registry's retry count for
// generateName collisions.
const maxNameGenerationCreateAttempts = 8

// request resolves obj's kind and checks namespace scoping. The namespace of a
// cluster-scoped request is dropped, as the client's URL for it has none.
func (s *Server) request(u User, verb, subresource string, obj runtime.Object, namespace, name string) (Request, error) {
	k, err := s.kinds.forObject(obj)
	if err != nil {
		return Request{}, err
	}
	if !k.Namespaced {
		namespace = ""
	} else if namespace == "" && verb != "list" {
		// Only list (and watch) have a route across all namespaces. (client-go refuses most such
		// requests before sending them; see kubeclient.)
		return Request{}, errNotServed(k, name, verb)
	}
	return Request{User: u, Verb: verb, Kind: k, Subresource: subresource, Namespace: namespace, Name: name}, nil
}

// Get reads one object into obj.
func (s *Server) Get(u User, key client.ObjectKey, obj client.Object) error {
	r, err := s.request(u, "get", "", obj, key.Namespace, key.Name)
	if err != nil {
		return err
	}
	if err := s.admit(r); err != nil {
		return err
	}
	stored, ok, err := s.storedIn(r.Kind, objectKey{r.Namespace, key.Name})
	if !ok {
		return apierrors.NewNotFound(r.Kind.GroupResource(), key.Name)
	}
	if err != nil {
		return err
	}
	copyInto(obj, stored)
	return nil
}

// List reads the objects of list's kind that match opts, in etcd key order.
func (s *Server) List(u User, list client.ObjectList, opts *client.ListOptions) error {
	if opts == nil {
		opts = &client.ListOptions{}
	}
	r, err := s.request(u, "list", "", list, opts.Namespace, "")
	if err != nil {
		return err
	}
	if opts.FieldSelector != nil {
		// A list for one name is authorized as a request for that name.
		if name, ok := opts.FieldSelector.RequiresExactMatch("metadata.name"); ok {
			r.Name = name
		}
	}
	if err := s.admit(r); err != nil {
		return err
	}
	items, err := s.selectObjects(r, opts.LabelSelector, opts.FieldSelector)
	if err != nil {
		return err
	}
	start := 0
	if opts.Continue != "" {
		start, err = s.decodeContinue(opts.Continue, items)
		if err != nil {
			return err
		}
	}
	end := len(items)
	next := ""
	if opts.Limit > 0 && int64(end-start) > opts.Limit {
		end = start + int(opts.Limit)
		last := items[end-1]
		next = fmt.Sprintf("%s/%s", last.GetNamespace(), last.GetName())
	}
	out := make([]runtime.Object, 0, end-start)
	for _, o := range items[start:end] {
		c := o.DeepCopyObject()
		if r.Kind.Custom {
			// The items of a custom resource list are unstructured JSON that carry
			// apiVersion and kind; the typed decoder clears only the list's own.
			c.GetObjectKind().SetGroupVersionKind(r.Kind.GVK)
		} else {
			c.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		}
		out = append(out, c)
	}
	if err := meta.SetList(list, out); err != nil {
		return apierrors.NewInternalError(err)
	}
	if ul, ok := list.(*unstructured.UnstructuredList); ok {
		// The response's JSON names the list kind, as the unstructured decoder reads it.
		ul.SetGroupVersionKind(r.Kind.GVK.GroupVersion().WithKind(r.Kind.GVK.Kind + "List"))
	}
	list.SetResourceVersion(strconv.FormatUint(s.rv, 10))
	list.SetContinue(next)
	return nil
}

// decodeContinue returns the index after the key a continue token names.
func (s *Server) decodeContinue(token string, items []client.Object) (int, error) {
	for i, o := range items {
		if fmt.Sprintf("%s/%s", o.GetNamespace(), o.GetName()) > token {
			return i, nil
		}
	}
	return len(items), nil
}

// selectObjects returns the stored objects of r's kind in r's namespace (all when
// empty) matching the selectors, in etcd key order.
func (s *Server) selectObjects(r Request, ls labels.Selector, fs fields.Selector) ([]client.Object, error) {
	if fs != nil && !fs.Empty() {
		for _, req := range fs.Requirements() {
			if !supportedField(r.Kind, req.Field) {
				return nil, apierrors.NewBadRequest(fmt.Sprintf("field label not supported: %s", req.Field))
			}
		}
	}
	ks := s.store(r.Kind)
	var out []client.Object
	for _, key := range ks.keys() {
		if r.Namespace != "" && key.namespace != r.Namespace {
			continue
		}
		o := ks.objects[key]
		if !r.Kind.isStorage() {
			// The version's own storage decodes (converts) every object
			// before its selectors see it.
			var err error
			if o, err = s.fromStorage(r.Kind, o); err != nil {
				return nil, err
			}
		}
		if ls != nil && !ls.Matches(labels.Set(o.GetLabels())) {
			continue
		}
		if fs != nil && !fs.Empty() && !fs.Matches(objectFields(r.Kind, o)) {
			continue
		}
		out = append(out, o)
	}
	return out, nil
}

// supportedField: every kind supports metadata.name and metadata.namespace
// (generic.ObjectMetaFieldsSet); a few kinds add their own.
func supportedField(k *Kind, f string) bool {
	switch f {
	case "metadata.name", "metadata.namespace":
		return true
	case "status.phase":
		return k.GVK.GroupKind() == schema.GroupKind{Kind: "Namespace"} || k.GVK.GroupKind() == schema.GroupKind{Kind: "Pod"}
	case "type":
		return k.GVK.GroupKind() == schema.GroupKind{Kind: "Secret"}
	}
	return false
}

func objectFields(k *Kind, o client.Object) fields.Set {
	set := fields.Set{"metadata.name": o.GetName()}
	if k.Namespaced {
		set["metadata.namespace"] = o.GetNamespace()
	}
	switch x := o.(type) {
	case *corev1.Namespace:
		set["status.phase"] = string(x.Status.Phase)
	case *corev1.Pod:
		set["status.phase"] = string(x.Status.Phase)
	case *corev1.Secret:
		set["type"] = string(x.Type)
	}
	return set
}

// WriteOptions are the options of a write request that the model honours:
// the fieldManager of metav1.CreateOptions, UpdateOptions and PatchOptions
// ("" means the User-Agent's, User.Agent), PatchOptions.Force (server-side
// apply only), and their dryRun (["All"]: the write is admitted, validated
// and answered, and nothing is stored; any other value is refused).
type WriteOptions struct {
	FieldManager string
	Force        *bool
	DryRun       []string
}

// Create stores a new object and copies the stored object back into obj.
func (s *Server) Create(u User, obj client.Object) error {
	return s.CreateWith(u, obj, WriteOptions{})
}

// CreateWith is Create with the request's options.
func (s *Server) CreateWith(u User, obj client.Object, o WriteOptions) error {
	r, err := s.request(u, "create", "", obj, obj.GetNamespace(), "")
	if err != nil {
		return err
	}
	if err := validateWriteOptions(o, "CreateOptions"); err != nil {
		return err
	}
	r.manager = managerOrUserAgent(o.FieldManager, u.Agent)
	r.dryRun = len(o.DryRun) > 0
	if err := s.admit(r); err != nil {
		return err
	}
	if err := crdCreateRefused(r.Kind, obj.GetName()); err != nil {
		return err
	}
	if r.Kind.Namespaced && r.Kind.GVK.GroupKind() != (schema.GroupKind{Kind: "Namespace"}) {
		name := obj.GetName()
		if name == "" {
			name = obj.GetGenerateName() // admission names the object by its prefix
		}
		if err := s.namespaceLifecycle(r, name); err != nil {
			return err
		}
	}
	if obj.GetResourceVersion() != "" {
		// etcd3 store.Create: storage.ErrResourceVersionSetOnCreate, sent as a 500.
		return apierrors.NewInternalError(errors.New("resourceVersion should not be set on objects to be created"))
	}
	generated := obj.GetName() == "" && obj.GetGenerateName() != ""
	var created client.Object
	for attempt := 0; ; attempt++ {
		created, err = s.create(r, obj)
		if err == nil || !generated || !apierrors.IsAlreadyExists(err) || attempt == maxNameGenerationCreateAttempts-1 {
			break
		}
	}
	if err != nil {
		return err
	}
	if err := s.ambiguous(r); err != nil {
		return err
	}
	copyInto(obj, created)
	return nil
}

func (s *Server) create(r Request, in client.Object) (client.Object, error) {
	obj, err := bodyCopy(r.Kind, in)
	if err != nil {
		return nil, err
	}
	if !r.Kind.Unstructured() {
		serializeTimes(reflect.ValueOf(obj)) // the body reaches a real server serialized
	}
	defaultBuiltin(r.Kind, obj) // decoded with the v1 defaults
	if !r.applied {
		// The create handler's FieldManager.UpdateNoErrors, before admission.
		obj = s.trackUpdate(r.Kind, "", nil, obj, r.manager)
	}
	managed := obj.GetManagedFields()
	if err := s.storageObjectInUseProtection(r, obj); err != nil { // admission_storage.go
		return nil, err
	}
	if obj, err = s.mutate(r, OpCreate, obj, nil); err != nil {
		return nil, err
	}
	defaultBuiltin(r.Kind, obj) // so is a mutating webhook's patched object
	stamp(r.Kind, obj)
	obj.SetNamespace(r.Namespace)
	obj.SetCreationTimestamp(s.now())
	obj.SetUID(types.UID(s.newUID()))
	obj.SetDeletionTimestamp(nil)
	obj.SetDeletionGracePeriodSeconds(nil)
	obj.SetManagedFields(managed)
	generated := false
	if obj.GetName() == "" && obj.GetGenerateName() != "" {
		obj.SetName(s.generateName(obj.GetGenerateName()))
		generated = true
	}
	s.podTopologyLabels(obj)
	// The service registry's allocation (beginCreate), before the strategy.
	txn, err := s.allocateService(r.Kind, obj, nil) // serviceip.go
	if err != nil {
		return nil, err
	}
	stored := false
	defer func() {
		if !stored {
			txn.revert()
		}
	}()
	if st, ok := hosted(r.Kind, obj); ok {
		// kube-apiserver's own strategy and validation (builtin_validation.go).
		if err := s.beforeCreateBuiltin(r.Kind, st, obj); err != nil {
			return nil, err
		}
	} else {
		prepareForCreate(r.Kind, obj)
		if err := validateCreate(r.Kind, obj); err != nil {
			return nil, err
		}
	}
	if sc := r.Kind.schema; sc != nil {
		if err := sc.admit(r.Kind, obj, nil, ""); err != nil {
			return nil, err
		}
	}
	if err := s.crdWrite(r.Kind, "", obj, nil); err != nil {
		return nil, err
	}
	if err := s.validate(r, OpCreate, obj.GetName(), obj, nil); err != nil {
		return nil, err
	}
	if old, exists := s.store(r.Kind).get(objectKey{r.Namespace, obj.GetName()}); exists {
		if generated {
			return nil, apierrors.NewGenerateNameConflict(r.Kind.GroupResource(), obj.GetName(), 1)
		}
		err := apierrors.NewAlreadyExists(r.Kind.GroupResource(), obj.GetName())
		if old.GetDeletionTimestamp() != nil {
			// generic registry Store.Create: tell the client to wait, not adopt.
			err.ErrStatus.Message = "object is being deleted: " + err.ErrStatus.Message
		}
		return nil, err
	}
	if r.dryRun {
		return s.dryRunAnswer(r.Kind, obj) // (the Service's allocation reverted)
	}
	stored = true
	txn.commit() // (Services only: never a conversion that can fail)
	return s.store1(r.Kind, watch.Added, obj)
}

// dryRunAnswer is what a dry-run write answers: obj as it would be stored
// and read back (k8s.io/apiserver's DryRunnableStorage copies the object it
// would have written), its resourceVersion the one it came with (none for a
// create, the stored object's for an update), nothing committed.
func (s *Server) dryRunAnswer(k *Kind, obj client.Object) (client.Object, error) {
	rv := obj.GetResourceVersion()
	stored, err := s.toStorage(k, obj)
	if err != nil {
		return nil, err
	}
	out, err := s.fromStorage(k, stored)
	if err != nil {
		return nil, err
	}
	out.SetResourceVersion(rv)
	return out, nil
}

// write commits obj for r (commit), unless r is a dry run.
func (s *Server) write(r Request, typ watch.EventType, obj client.Object) {
	if r.dryRun {
		return
	}
	s.commit(r.Kind, typ, obj)
}

// store1 commits obj, an object of k's version, in the storage version and
// returns it as stored, read back in k's version (the storage codec's
// encode, then its decode of what was written, as etcd3's store answers).
func (s *Server) store1(k *Kind, typ watch.EventType, obj client.Object) (client.Object, error) {
	stored, err := s.toStorage(k, obj)
	if err != nil {
		return nil, err
	}
	if !k.isStorage() {
		stored.SetResourceVersion("")
	}
	s.commit(k, typ, stored)
	return s.fromStorage(k, stored)
}

// Update replaces an object (subresource "") or one of its subresources ("status";
// "finalize" for namespaces) and copies the result into obj.
func (s *Server) Update(u User, obj client.Object, subresource string) error {
	return s.UpdateWith(u, obj, subresource, WriteOptions{})
}

// UpdateWith is Update with the request's options.
func (s *Server) UpdateWith(u User, obj client.Object, subresource string, o WriteOptions) error {
	if err := validateWriteOptions(o, "UpdateOptions"); err != nil {
		return err
	}
	r, existing, err := s.target(u, "update", subresource, obj)
	r.manager = managerOrUserAgent(o.FieldManager, u.Agent)
	r.dryRun = len(o.DryRun) > 0
	if apierrors.IsNotFound(err) && subresource == "" && r.Kind != nil && r.Kind.CreateOnUpdate {
		return s.createOnUpdate(r, obj)
	}
	if err != nil {
		return err
	}
	in, err := bodyCopy(r.Kind, obj)
	if err != nil {
		return err
	}
	in.SetNamespace(r.Namespace)
	out, err := s.updateAdmitted(r, in, existing, true, nil)
	if err != nil {
		return err
	}
	if err := s.ambiguous(r); err != nil {
		return err
	}
	copyInto(obj, out)
	return nil
}

// target admits a request for an existing object (or its subresource) and returns
// the stored object. Authorization comes first: it runs before routing, so a
// subresource the kind does not serve is a 403 to a user without permission and
// a 404 to others.
func (s *Server) target(u User, verb, subresource string, obj client.Object, checks ...func(Request) error) (Request, client.Object, error) {
	r, err := s.request(u, verb, subresource, obj, obj.GetNamespace(), obj.GetName())
	if err != nil {
		return r, nil, err
	}
	if err := s.admit(r); err != nil {
		return r, nil, err
	}
	for _, check := range checks {
		if err := check(r); err != nil {
			return r, nil, err
		}
	}
	if err := s.checkSubresource(r); err != nil {
		return r, nil, err
	}
	existing, ok, err := s.storedIn(r.Kind, objectKey{r.Namespace, obj.GetName()})
	if !ok {
		return r, nil, apierrors.NewNotFound(r.Kind.GroupResource(), obj.GetName())
	}
	return r, existing, err
}

// createOnUpdate is an Update of a missing object of a kind whose strategy allows
// create on update: NamespaceLifecycle admission applies as for a create, and the
// object is created from the body.
func (s *Server) createOnUpdate(r Request, obj client.Object) error {
	if uid := obj.GetUID(); uid != "" {
		// The body's uid is a storage precondition, and nothing is stored.
		return apierrors.NewConflict(r.Kind.GroupResource(), r.Name,
			fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: %v, UID in object meta: ",
				r.Kind.storageKey(r.Namespace, r.Name), uid))
	}
	if r.Kind.Namespaced {
		// Admission runs inside the store's update, after its storage precondition.
		if err := s.namespaceLifecycle(r, obj.GetName()); err != nil {
			return err
		}
	}
	in, err := bodyCopy(r.Kind, obj)
	if err != nil {
		return err
	}
	in.SetResourceVersion("")
	created, err := s.create(r, in)
	if err != nil {
		return err
	}
	if err := s.ambiguous(r); err != nil {
		return err
	}
	copyInto(obj, created)
	return nil
}

func (s *Server) checkSubresource(r Request) error {
	switch r.Subresource {
	case "":
		return nil
	case "status":
		if r.Kind.Status {
			return nil
		}
	case "finalize":
		if r.Kind.GVK.GroupKind() == (schema.GroupKind{Kind: "Namespace"}) {
			return nil
		}
	}
	return errNotServed(r.Kind, r.Name, r.Verb)
}

// update is the generic registry Store.Update with BeforeUpdate. in is owned by the
// server. uidPrecondition is true for Update, whose object's uid is a precondition
// (rest.DefaultUpdatedObjectInfo.Preconditions); a patch has none.
func (s *Server) update(r Request, in, existing client.Object, uidPrecondition bool) (client.Object, error) {
	k := r.Kind
	// The request body reaches a real server serialized (a patch result is compared
	// and stored serialized): a time that differs from the stored one only below
	// the serialized precision is no change.
	if u, ok := in.(*unstructured.Unstructured); ok {
		// A patch result is JSON already; pruning and metadata coercion remain.
		if err := wireForm(k, u, &u); err != nil {
			return nil, err
		}
		in = u
	} else {
		serializeTimes(reflect.ValueOf(in))
		defaultBuiltin(k, in) // decoded with the v1 defaults
	}
	if !r.applied {
		// The update handler's first transformer (and each non-apply
		// patcher's last step): FieldManager.UpdateNoErrors.
		in = s.trackUpdate(k, r.Subresource, existing, in, r.manager)
	}
	managed := in.GetManagedFields()
	in, err := s.mutate(r, OpUpdate, in, existing)
	if err != nil {
		return nil, err
	}
	defaultBuiltin(k, in) // so is a mutating webhook's patched object
	if uidPrecondition && in.GetUID() != "" && in.GetUID() != existing.GetUID() {
		// etcd3 GuaranteedUpdate's precondition check, interpreted as a conflict.
		return nil, apierrors.NewConflict(k.GroupResource(), r.Name,
			fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: %v, UID in object meta: %v",
				k.storageKey(r.Namespace, r.Name), in.GetUID(), existing.GetUID()))
	}
	newRV, err := parseRV(in.GetResourceVersion())
	if err != nil {
		return nil, invalid(k, r.Name, field.ErrorList{field.Invalid(field.NewPath("metadata", "resourceVersion"), in.GetResourceVersion(), err.Error())})
	}
	existingRV, _ := parseRV(existing.GetResourceVersion())
	switch {
	case newRV == 0 && k.UnconditionalUpdate:
		in.SetResourceVersion(existing.GetResourceVersion())
	case newRV == 0:
		qualifiedKind := schema.GroupKind{Group: k.GVK.Group, Kind: k.Resource}
		return nil, apierrors.NewInvalid(qualifiedKind, r.Name, field.ErrorList{
			field.Invalid(field.NewPath("metadata", "resourceVersion"), newRV, "must be specified for an update")})
	case newRV != existingRV:
		return nil, apierrors.NewConflict(k.GroupResource(), r.Name, errors.New(optimisticLockErrorMsg))
	}
	stamp(k, in)
	var txn *serviceTxn
	if r.Subresource == "" {
		// The service registry's allocation (beginUpdate), before the strategy.
		if txn, err = s.allocateService(k, in, existing); err != nil { // serviceip.go
			return nil, err
		}
	}
	stored := false
	defer func() {
		if !stored {
			txn.revert()
		}
	}()

	// rest.BeforeUpdate
	obj := prepareForUpdate(k, r.Subresource, in, existing)
	obj.SetGeneration(existing.GetGeneration())
	if obj.GetUID() == "" {
		obj.SetUID(existing.GetUID())
	}
	obj.SetCreationTimestamp(existing.GetCreationTimestamp())
	obj.SetDeletionTimestamp(existing.GetDeletionTimestamp())
	if existing.GetDeletionGracePeriodSeconds() != nil && obj.GetDeletionGracePeriodSeconds() == nil {
		obj.SetDeletionGracePeriodSeconds(existing.GetDeletionGracePeriodSeconds())
	}
	// The strategies keep the managedFields the field manager computed
	// (a status strategy that keeps the stored metadata keeps these).
	obj.SetManagedFields(managed)
	c := diff(obj, existing)
	if r.Subresource == "" {
		bumpGeneration(k, obj, existing, c)
		c.meta = c.meta || obj.GetGeneration() != existing.GetGeneration()
	}
	if st, ok := hosted(k, obj); ok {
		if err := s.validateUpdateBuiltin(k, st, r.Subresource, obj, existing); err != nil {
			return nil, err
		}
	} else if err := validateUpdate(k, obj, existing); err != nil {
		return nil, err
	}
	if err := s.crdWrite(k, r.Subresource, obj, existing); err != nil {
		return nil, err
	}
	if sc := k.schema; sc != nil {
		if err := sc.admit(k, obj, existing, r.Subresource); err != nil {
			return nil, err
		}
		c = diff(obj, existing) // defaulting and pruning may have changed it
		if r.Subresource == "" {
			bumpGeneration(k, obj, existing, c)
			c.meta = c.meta || obj.GetGeneration() != existing.GetGeneration()
		}
	}
	if err := s.validate(r, OpUpdate, r.Name, obj, existing); err != nil {
		return nil, err
	}
	if s.movedDuringAdmission(r, existing) {
		return nil, errMovedDuringAdmission // (admission_wait.go)
	}
	if shouldDeleteDuringUpdate(obj, existing) {
		// Store.Update gives up the write (errEmptiedFinalizers) and deletes the stored
		// object (deleteWithoutFinalizers): the watch's Deleted event carries that last
		// stored state, finalizers and all, with the deletion's resourceVersion (etcd3
		// watcher: the previous value at the delete's revision). The response is the
		// request's object, which was never stored, with the last stored version.
		answer := obj.DeepCopyObject().(client.Object)
		answer.SetResourceVersion(existing.GetResourceVersion())
		raw, _ := s.store(k).get(objectKey{r.Namespace, r.Name}) // existing, in the storage version
		s.write(r, watch.Deleted, raw.DeepCopyObject().(client.Object))
		return answer, nil
	}
	if !c.any() {
		// The same object again: a real server skips the write (no new
		// resourceVersion, no watch event).
		stored = true
		txn.commit()
		return existing, nil
	}
	if r.dryRun {
		return s.dryRunAnswer(k, obj)
	}
	stored = true
	txn.commit()
	return s.store1(k, watch.Modified, obj)
}

// shouldDeleteDuringUpdate: the last finalizer of a deleting object is gone
// (registry.ShouldDeleteDuringUpdate; for namespaces also spec.finalizers,
// ShouldDeleteNamespaceDuringUpdate).
func shouldDeleteDuringUpdate(obj, existing client.Object) bool {
	if len(obj.GetFinalizers()) > 0 || existing.GetDeletionTimestamp() == nil {
		return false
	}
	if g := existing.GetDeletionGracePeriodSeconds(); g != nil && *g != 0 {
		return false
	}
	if ns, ok := obj.(*corev1.Namespace); ok && len(ns.Spec.Finalizers) > 0 {
		return false
	}
	return true
}

func parseRV(s string) (uint64, error) {
	if s == "" {
		return 0, nil
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("invalid resource version %q", s)
	}
	return v, nil
}

// Patch applies a patch to an object (or its status) and copies the result into obj.
func (s *Server) Patch(u User, obj client.Object, pt types.PatchType, data []byte, subresource string) error {
	return s.PatchWith(u, obj, pt, data, subresource, WriteOptions{})
}

// PatchWith is Patch with the request's options. A patch of type
// application/apply-patch+yaml is server-side apply (apply.go).
func (s *Server) PatchWith(u User, obj client.Object, pt types.PatchType, data []byte, subresource string, o WriteOptions) error {
	r, existing, err := s.target(u, "patch", subresource, obj, func(r Request) error {
		return patch.CheckType(pt, r.Kind.Strategic) // the handler checks the media type before reading the object
	})
	r.manager = managerOrUserAgent(o.FieldManager, u.Agent)
	r.dryRun = len(o.DryRun) > 0
	if isApply(pt) {
		return s.apply(r, obj, existing, err, data, o)
	}
	if err != nil {
		return err
	}
	patched, err := patch.Apply(existing, pt, data, patch.Options{
		Strategic: r.Kind.Strategic, GroupResource: r.Kind.GroupResource(), Name: r.Name,
		PatchOptions: metav1.PatchOptions{FieldManager: o.FieldManager, Force: o.Force, DryRun: o.DryRun},
	})
	if err != nil {
		return err
	}
	// patch.Apply has rejected a changed name or namespace (400), as the real handler does.
	out, err := s.updateAdmitted(r, patched.(client.Object), existing, false, func(existing client.Object) (client.Object, error) {
		again, err := patch.Apply(existing, pt, data, patch.Options{
			Strategic: r.Kind.Strategic, GroupResource: r.Kind.GroupResource(), Name: r.Name,
		})
		if err != nil {
			return nil, err
		}
		return again.(client.Object), nil
	})
	if err != nil {
		return err
	}
	if err := s.ambiguous(r); err != nil {
		return err
	}
	copyInto(obj, out)
	return nil
}

// Delete deletes the object obj names, as the generic registry Store.Delete does (a
// pod gracefully: graceful.go), and as the namespace registry does for namespaces.
func (s *Server) Delete(u User, obj client.Object, opts *client.DeleteOptions) error {
	r, err := s.request(u, "delete", "", obj, obj.GetNamespace(), obj.GetName())
	if err != nil {
		return err
	}
	if opts != nil {
		if err := validateDeleteOptions(opts.DryRun); err != nil {
			return err
		}
		r.dryRun = len(opts.DryRun) > 0
	}
	if err := s.admit(r); err != nil {
		return err
	}
	if err := s.delete(r, opts); err != nil {
		return err
	}
	return s.ambiguous(r)
}

func (s *Server) delete(r Request, opts *client.DeleteOptions) error {
	k := r.Kind
	existing, ok := s.store(k).get(objectKey{r.Namespace, r.Name})
	if !ok {
		return apierrors.NewNotFound(k.GroupResource(), r.Name)
	}
	if opts == nil {
		opts = &client.DeleteOptions{}
	}
	if !k.isStorage() {
		// The delete decodes the stored object in the request's version
		// (webhook admission sees it so), which may fail to convert.
		old, err := s.fromStorage(k, existing)
		if err != nil {
			return err
		}
		if err := s.validate(r, OpDelete, r.Name, nil, old); err != nil {
			return err
		}
	} else if err := s.validate(r, OpDelete, r.Name, nil, existing); err != nil {
		return err
	}
	if s.movedDuringAdmission(r, existing) {
		return s.delete(r, opts) // validated again on the object as it is now (admission_wait.go)
	}
	if k.GVK.GroupKind() == (schema.GroupKind{Kind: "Namespace"}) {
		return s.deleteNamespace(r, existing.(*corev1.Namespace), opts)
	}
	if pre := opts.Preconditions; pre != nil {
		// rest.BeforeDelete names the kind where a resource belongs.
		gr := schema.GroupResource{Group: k.GVK.Group, Resource: k.GVK.Kind}
		if pre.UID != nil && *pre.UID != existing.GetUID() {
			return apierrors.NewConflict(gr, r.Name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *pre.UID, existing.GetUID()))
		}
		if pre.ResourceVersion != nil && *pre.ResourceVersion != existing.GetResourceVersion() {
			return apierrors.NewConflict(gr, r.Name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *pre.ResourceVersion, existing.GetResourceVersion()))
		}
	}
	if done, err := s.deleteCRD(r, existing, opts); done {
		return err
	}
	return s.deleteGeneric(r, existing, opts)
}

// markAsDeleting is registry.markAsDeleting: generation +1 on the first deletion
// (where tracked), deletionTimestamp now, grace period 0.
func (s *Server) markAsDeleting(obj client.Object) {
	now := s.now()
	if obj.GetDeletionTimestamp() == nil && obj.GetGeneration() > 0 {
		obj.SetGeneration(obj.GetGeneration() + 1)
	}
	if ts := obj.GetDeletionTimestamp(); ts == nil || ts.After(now.Time) {
		obj.SetDeletionTimestamp(&now)
	}
	var zero int64
	obj.SetDeletionGracePeriodSeconds(&zero)
}

// gcFinalizers is deletionFinalizersForGarbageCollection for kinds whose default
// policy is background deletion: the orphan and foregroundDeletion finalizers the
// delete options ask for.
func gcFinalizers(current []string, opts *client.DeleteOptions) (bool, []string) {
	orphan, foreground := false, false
	hasOrphan, hasForeground := false, false
	for _, f := range current {
		hasOrphan = hasOrphan || f == metav1.FinalizerOrphanDependents
		hasForeground = hasForeground || f == metav1.FinalizerDeleteDependents
	}
	switch {
	case opts.PropagationPolicy != nil:
		orphan = *opts.PropagationPolicy == metav1.DeletePropagationOrphan
		foreground = *opts.PropagationPolicy == metav1.DeletePropagationForeground
	default:
		// shouldOrphanDependents / shouldDeleteDependentsInForeground: an existing
		// finalizer stands when no policy is given.
		orphan, foreground = hasOrphan, hasForeground && !hasOrphan
	}
	out := []string{}
	for _, f := range current {
		if f != metav1.FinalizerOrphanDependents && f != metav1.FinalizerDeleteDependents {
			out = append(out, f)
		}
	}
	if orphan {
		out = append(out, metav1.FinalizerOrphanDependents)
	}
	if foreground {
		out = append(out, metav1.FinalizerDeleteDependents)
	}
	if orphan == hasOrphan && foreground == hasForeground {
		return false, current
	}
	return true, out
}

// deleteNamespace is the namespace registry's Delete
// (pkg/registry/core/namespace/storage/storage.go).
func (s *Server) deleteNamespace(r Request, ns *corev1.Namespace, opts *client.DeleteOptions) error {
	if immortalNamespaces[ns.Name] {
		return apierrors.NewForbidden(r.Kind.GroupResource(), ns.Name, errors.New("this namespace may not be deleted"))
	}
	gr := r.Kind.GroupResource()
	if pre := opts.Preconditions; pre != nil {
		if pre.UID != nil && *pre.UID != ns.UID {
			return apierrors.NewConflict(gr, ns.Name, fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, ns.UID))
		}
		if pre.ResourceVersion != nil && *pre.ResourceVersion != ns.ResourceVersion {
			return apierrors.NewConflict(gr, ns.Name, fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *pre.ResourceVersion, ns.ResourceVersion))
		}
	}
	if ns.DeletionTimestamp.IsZero() {
		obj := ns.DeepCopy()
		now := s.now()
		obj.DeletionTimestamp = &now
		obj.Status.Phase = corev1.NamespaceTerminating
		if changed, finalizers := gcFinalizers(obj.Finalizers, opts); changed {
			obj.Finalizers = finalizers
		}
		s.write(r, watch.Modified, obj)
		return nil
	}
	if len(ns.Spec.Finalizers) != 0 {
		return nil
	}
	return s.deleteGeneric(r, ns, opts)
}

// deleteGeneric marks an object with finalizers (its own, or those the propagation
// policy adds) as deleting, and removes one without.
func (s *Server) deleteGeneric(r Request, existing client.Object, opts *client.DeleteOptions) error {
	if gracefulKind(r.Kind) {
		obj := existing.DeepCopyObject().(client.Object)
		graceful, pending, period := s.beforeDelete(obj, opts) // graceful.go
		if pending {
			return nil // finalizeDelete: the deletion under way stands, nothing is written
		}
		if graceful {
			// updateForGracefulDeletionAndFinalizers: the deletion is written (with
			// the finalizers the propagation policy asks for); the object goes at once
			// only when its period is 0 and no finalizer holds it. The write's
			// resourceVersion is then the storage delete's precondition.
			_, finalizers := gcFinalizers(existing.GetFinalizers(), opts)
			obj.SetFinalizers(finalizers)
			if diff(obj, existing).any() {
				s.write(r, watch.Modified, obj)
			}
			if len(finalizers) > 0 || period > 0 {
				return nil
			}
			s.write(r, watch.Deleted, obj.DeepCopyObject().(client.Object))
			return nil
		}
	}
	changed, finalizers := gcFinalizers(existing.GetFinalizers(), opts)
	if len(existing.GetFinalizers()) > 0 || changed {
		obj := existing.DeepCopyObject().(client.Object)
		obj.SetFinalizers(finalizers)
		if len(finalizers) > 0 {
			s.markAsDeleting(obj)
			if diff(obj, existing).any() {
				s.write(r, watch.Modified, obj)
			}
			return nil
		}
		// The propagation policy removes the last finalizer (an orphan or
		// foregroundDeletion finalizer that no garbage collector has removed).
		// Store.updateForGracefulDeletionAndFinalizers gives up its update with
		// errDeleteNow and returns an empty object, and Store.Delete takes that
		// object's resourceVersion, "", as the precondition of the storage delete
		// ("Update the preconditions.ResourceVersion if set since we updated the
		// object"). So a resourceVersion precondition, even the right one, fails
		// there (etcd3 conditionalDelete -> Preconditions.Check, a StorageError that
		// InterpretDeleteError makes a 409); a uid precondition alone holds.
		if pre := opts.Preconditions; pre != nil && pre.ResourceVersion != nil {
			return apierrors.NewConflict(r.Kind.GroupResource(), r.Name,
				fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: , ResourceVersion in object meta: %s",
					r.Kind.storageKey(r.Namespace, r.Name), existing.GetResourceVersion()))
		}
	}
	s.write(r, watch.Deleted, existing.DeepCopyObject().(client.Object))
	return nil
}

// validateDeleteOptions is kube-apiserver's check of the delete options the
// model reads (ValidateDeleteOptions: their dryRun), its 422.
func validateDeleteOptions(dryRun []string) error {
	if errs := validation.ValidateDryRun(field.NewPath("dryRun"), dryRun); len(errs) > 0 {
		return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "DeleteOptions"}, "", errs)
	}
	return nil
}

// DeleteAllOf deletes every object of obj's kind that matches opts (deletecollection).
func (s *Server) DeleteAllOf(u User, obj client.Object, opts *client.DeleteAllOfOptions) error {
	if opts == nil {
		opts = &client.DeleteAllOfOptions{}
	}
	r, err := s.request(u, "deletecollection", "", obj, opts.Namespace, "")
	if err != nil {
		return err
	}
	if err := validateDeleteOptions(opts.DryRun); err != nil {
		return err
	}
	r.dryRun = len(opts.DryRun) > 0
	if err := s.admit(r); err != nil {
		return err
	}
	items, err := s.selectObjects(r, opts.LabelSelector, opts.FieldSelector)
	if err != nil {
		return err
	}
	for _, o := range items {
		one := r
		one.Namespace, one.Name = o.GetNamespace(), o.GetName()
		if err := s.delete(one, &opts.DeleteOptions); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return s.ambiguous(r)
}
