package apiserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	crdvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// CustomResourceDefinitions as objects (apiextensions.k8s.io/v1), served as
// kube-apiserver serves them: the registry strategy of
// apiextensions-apiserver's pkg/registry/customresourcedefinition (defaults,
// validation, status reset, storedVersions, the cleanup finalizer on delete),
// and what its controllers do after a write (pkg/controller/status naming,
// pkg/controller/establish, pkg/controller/finalizer), run by the server
// itself after a delay drawn from Options.Delays:
//
//   - created: the response and the first stored state have no conditions;
//     after the delay the naming controller's status write (acceptedNames,
//     NamesAccepted True "NoConflicts", Established False "Installing"), from
//     which the kind is served, then at the same instant the establishing
//     controller's (Established True "InitialNamesAccepted");
//   - updated: a spec change of an established CRD serves the new schema at
//     once (the handler rebuilds its storage on the next request);
//   - deleted: the first delete adds the customresourcecleanup finalizer and
//     the Terminating condition; creates of the kind are refused from then on
//     (403 "create not allowed while custom resource definition is
//     terminating");
//     after the delay the finalizer controller deletes every object of the kind
//     (finalizers hold them as usual), polls every 5 s until none is left,
//     then removes its finalizer: the CRD is gone and its kind is no longer
//     served.
//
// CRDs given in Options.CRDs (or InstallCRD) are served from the start and are
// not CustomResourceDefinition objects.

var crdGroupKind = schema.GroupKind{Group: apiextensionsv1.GroupName, Kind: "CustomResourceDefinition"}

// CRDCleanupPoll is how often the finalizer controller checks that a deleted
// CRD's objects are gone (its wait.PollUntilContextTimeout interval).
const CRDCleanupPoll = 5 * time.Second

// crdState is what the server's apiextensions controllers know of one CRD
// object: the kind it installed, at which generation, and what is scheduled.
type crdState struct {
	uid        string
	installed  *Kind // nil until NamesAccepted
	generation int64
	cleaning   bool // the finalizer controller has been queued
}

func isCRDKind(k *Kind) bool { return k.GVK.GroupKind() == crdGroupKind }

// crdDelay is the time one of the apiextensions controllers takes to act on a
// change (its informer and work queue): 1 to 100 ms, drawn.
func (s *Server) crdDelay() time.Duration {
	if s.delays == nil {
		return 0
	}
	return time.Millisecond * time.Duration(1+s.delays.IntN(100))
}

// later runs f after d (Options.Later), or at once without a Later (a server
// without a clock to wait on cannot poll: a wait it would need is refused).
func (s *Server) later(d time.Duration, f func()) {
	if s.laterFn == nil {
		if d > 0 {
			panic("apiserver: waiting for a deleted CRD's objects to go needs Options.Later")
		}
		f()
		return
	}
	s.laterFn(d, f)
}

// crdWrite is the CRD registry strategy's part of a create (old nil) or an
// update of the main resource or of status: defaults, the status reset and
// storedVersions (PrepareForCreate/PrepareForUpdate), and validation. obj has
// been through the generic prepare already (status cleared or kept).
func (s *Server) crdWrite(k *Kind, subresource string, obj, old client.Object) error {
	crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
	if !ok || !isCRDKind(k) {
		return nil
	}
	var was *apiextensionsv1.CustomResourceDefinition
	if old != nil {
		was = old.(*apiextensionsv1.CustomResourceDefinition)
	}
	if subresource == "" {
		prepareCRDWrite(crd, was)
	}
	if err := validateCRDWrite(crd, was, subresource); err != nil {
		return err
	}
	if _, err := crdFromDefinition(crd); err != nil {
		// Valid for kube-apiserver, but not servable by this model.
		return apierrors.NewInternalError(fmt.Errorf("ctrlsim: the apiserver model cannot serve %s: %w", crd.Name, err))
	}
	return nil
}

// prepareCRDWrite is the CRD registry strategy's PrepareForCreate (old nil)
// or PrepareForUpdate of the main resource, with the v1 defaults the decoder
// applies first: the status reset on create, the storage version added to
// status.storedVersions.
func prepareCRDWrite(crd, old *apiextensionsv1.CustomResourceDefinition) {
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(crd)
	if old == nil {
		crd.Status = apiextensionsv1.CustomResourceDefinitionStatus{}
	}
	for _, v := range crd.Spec.Versions {
		if v.Storage {
			if !isStoredVersion(crd, v.Name) {
				crd.Status.StoredVersions = append(crd.Status.StoredVersions, v.Name)
			}
			break
		}
	}
}

// validateCRDWrite is the CRD registry strategy's Validate (old nil),
// ValidateUpdate or the status strategy's ValidateUpdate: apiextensions' own
// validation (pkg/apis/apiextensions/validation: names, versions, the
// schemas' types and structure, the x-kubernetes-validations rules compiled
// and their cost estimated, ...), refused with the registry's 422.
func validateCRDWrite(crd, old *apiextensionsv1.CustomResourceDefinition, subresource string) error {
	in, err := internalCRD(crd)
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	var errs field.ErrorList
	switch {
	case old == nil:
		errs = crdvalidation.ValidateCustomResourceDefinition(context.Background(), in)
	default:
		was, err := internalCRD(old)
		if err != nil {
			return apierrors.NewInternalError(err)
		}
		if subresource == "status" {
			errs = crdvalidation.ValidateUpdateCustomResourceDefinitionStatus(context.Background(), in, was)
		} else {
			errs = crdvalidation.ValidateCustomResourceDefinitionUpdate(context.Background(), in, was)
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(crdGroupKind, crd.Name, errs)
	}
	return nil
}

func isStoredVersion(crd *apiextensionsv1.CustomResourceDefinition, v string) bool {
	for _, sv := range crd.Status.StoredVersions {
		if sv == v {
			return true
		}
	}
	return false
}

func internalCRD(crd *apiextensionsv1.CustomResourceDefinition) (*apiextensions.CustomResourceDefinition, error) {
	var out apiextensions.CustomResourceDefinition
	if err := apiextensionsv1.Convert_v1_CustomResourceDefinition_To_apiextensions_CustomResourceDefinition(crd.DeepCopy(), &out, nil); err != nil {
		return nil, err
	}
	return &out, nil
}

// crdCreateRefused is the custom resource handler's answer to a create while
// the kind's CRD is terminating: its forbidCreateAdmission, which runs before
// the rest of admission (so before NamespaceLifecycle and the webhooks), with
// the name the request's body gives ("" for generateName).
func crdCreateRefused(k *Kind, name string) error {
	if !k.terminating {
		return nil
	}
	return apierrors.NewForbidden(k.GroupResource(), name, errors.New("create not allowed while custom resource definition is terminating"))
}

// crdCommitted runs the apiextensions controllers' reactions to a committed
// change of a CRD object.
func (s *Server) crdCommitted(typ watch.EventType, obj client.Object) {
	crd := obj.(*apiextensionsv1.CustomResourceDefinition)
	name, uid := crd.Name, string(crd.UID)
	st := s.crds[name]
	if typ == watch.Deleted {
		if st != nil && st.installed != nil {
			s.uninstall(st.installed)
		}
		delete(s.crds, name)
		return
	}
	if st == nil || st.uid != uid {
		st = &crdState{uid: uid}
		s.crds[name] = st
		s.later(s.crdDelay(), func() { s.establish(name, uid) })
		return
	}
	if crd.DeletionTimestamp != nil {
		if st.installed != nil {
			for _, v := range st.installed.Versions() {
				v.terminating = true
			}
		}
		if !st.cleaning && hasFinalizer(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
			st.cleaning = true
			s.later(s.crdDelay(), func() { s.cleanup(name, uid, true) })
		}
		return
	}
	if st.installed != nil && crd.Generation != st.generation {
		// A spec change: the handler serves the new schema.
		s.install(st, crd)
	}
}

func hasFinalizer(fs []string, f string) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// current is the stored CRD name with uid, or nil.
func (s *Server) currentCRD(name, uid string) *apiextensionsv1.CustomResourceDefinition {
	k, ok := s.kinds.byGVK(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	if !ok {
		return nil
	}
	o, ok := s.store(k).get(objectKey{"", name})
	if !ok || string(o.GetUID()) != uid {
		return nil
	}
	return o.(*apiextensionsv1.CustomResourceDefinition).DeepCopy()
}

// writeCRDStatus commits a status write of the server's own controllers (no
// authorization, no injected faults: they are the apiserver's loopback).
func (s *Server) writeCRDStatus(crd *apiextensionsv1.CustomResourceDefinition) {
	k, _ := s.kinds.byGVK(apiextensionsv1.SchemeGroupVersion.WithKind("CustomResourceDefinition"))
	existing, _ := s.store(k).get(objectKey{"", crd.Name})
	r := Request{User: Admin, Verb: "update", Kind: k, Subresource: "status", Name: crd.Name}
	if _, err := s.update(r, crd, existing, true); err != nil {
		panic(fmt.Sprintf("apiserver: the CRD controllers' status write of %s failed: %v", crd.Name, err))
	}
}

// establish is the naming controller, then the establishing controller.
func (s *Server) establish(name, uid string) {
	crd := s.currentCRD(name, uid)
	st := s.crds[name]
	if crd == nil || st == nil || crd.DeletionTimestamp != nil {
		return
	}
	crd.Status.AcceptedNames = crd.Spec.Names
	s.setCRDCondition(crd, apiextensionsv1.NamesAccepted, apiextensionsv1.ConditionTrue, "NoConflicts", "no conflicts found")
	s.setCRDCondition(crd, apiextensionsv1.Established, apiextensionsv1.ConditionFalse, "Installing", "the initial names have been accepted")
	s.writeCRDStatus(crd)
	s.install(st, crd)
	crd = s.currentCRD(name, uid)
	s.setCRDCondition(crd, apiextensionsv1.Established, apiextensionsv1.ConditionTrue, "InitialNamesAccepted", "the initial names have been accepted")
	s.writeCRDStatus(crd)
}

// install serves the kind of crd's storage version.
func (s *Server) install(st *crdState, crd *apiextensionsv1.CustomResourceDefinition) {
	def, err := crdFromDefinition(crd)
	if err != nil {
		panic(fmt.Sprintf("apiserver: CRD %s was admitted but cannot be served: %v", crd.Name, err)) // crdWrite refused it
	}
	if st.installed != nil {
		if st.installed.GVK != def.GVK {
			s.uninstall(st.installed) // a new storage version: not modelled (Known gaps)
		} else {
			s.unserve(st.installed) // the same store, served anew
		}
	}
	st.installed = s.installCRD(def)
	st.generation = crd.Generation
}

// cleanup is the finalizer controller: delete every object of the kind, wait
// until none is left (polling), then remove the cleanup finalizer.
func (s *Server) cleanup(name, uid string, first bool) {
	crd := s.currentCRD(name, uid)
	st := s.crds[name]
	if crd == nil || st == nil || !hasFinalizer(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		return
	}
	if first {
		s.setCRDCondition(crd, apiextensionsv1.Terminating, apiextensionsv1.ConditionTrue, "InstanceDeletionInProgress", "CustomResource deletion is in progress")
		s.writeCRDStatus(crd)
		crd = s.currentCRD(name, uid)
	}
	if k := st.installed; k != nil {
		ks := s.store(k)
		for _, key := range append([]objectKey(nil), ks.keys()...) {
			o, _ := ks.get(key)
			if o.GetDeletionTimestamp() != nil {
				continue
			}
			r := Request{User: Admin, Verb: "delete", Kind: k, Namespace: key.namespace, Name: key.name}
			if err := s.delete(r, &client.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
				panic(fmt.Sprintf("apiserver: the CRD finalizer's delete of %s %s/%s failed: %v", k.GVK.Kind, key.namespace, key.name, err))
			}
		}
		if len(ks.keys()) > 0 {
			s.later(CRDCleanupPoll, func() { s.cleanup(name, uid, false) })
			return
		}
		s.setCRDCondition(crd, apiextensionsv1.Terminating, apiextensionsv1.ConditionFalse, "InstanceDeletionCompleted", "removed all instances")
	} else {
		s.setCRDCondition(crd, apiextensionsv1.Terminating, apiextensionsv1.ConditionFalse, "NeverEstablished", "resource was never established")
	}
	var fs []string
	for _, f := range crd.Finalizers {
		if f != apiextensionsv1.CustomResourceCleanupFinalizer {
			fs = append(fs, f)
		}
	}
	crd.Finalizers = fs
	s.writeCRDStatus(crd)
}

// uninstall stops serving k: its objects are dropped (the finalizer
// controller deleted them first) and clients' mappers no longer map it.
func (s *Server) uninstall(k *Kind) {
	s.unserve(k)
	delete(s.objects, k.storageKind().GVK)
}

// unserve stops serving every version of k's kind (its objects stay).
func (s *Server) unserve(k *Kind) {
	for _, v := range k.Versions() {
		s.kinds.remove(v)
		delete(s.vwatch, v.GVK)
	}
	s.kindsGen++
}

// setCRDCondition is apihelpers.SetCRDCondition with the server's clock: the
// transition time changes only with the status.
func (s *Server) setCRDCondition(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType, status apiextensionsv1.ConditionStatus, reason, message string) {
	c := apiextensionsv1.CustomResourceDefinitionCondition{Type: t, Status: status, Reason: reason, Message: message, LastTransitionTime: s.now()}
	for i := range crd.Status.Conditions {
		old := &crd.Status.Conditions[i]
		if old.Type != t {
			continue
		}
		if old.Status == status {
			c.LastTransitionTime = old.LastTransitionTime
		}
		if apiequality.Semantic.DeepEqual(*old, c) {
			return
		}
		*old = c
		return
	}
	crd.Status.Conditions = append(crd.Status.Conditions, c)
}

// deleteCRD is the CRD registry's Delete: the first delete sets the deletion
// timestamp, the cleanup finalizer and the Terminating condition in one write
// (handled: true); a later one is the generic delete.
func (s *Server) deleteCRD(r Request, existing client.Object, opts *client.DeleteOptions) (bool, error) {
	if !isCRDKind(r.Kind) || existing.GetDeletionTimestamp() != nil {
		return false, nil
	}
	crd := existing.(*apiextensionsv1.CustomResourceDefinition).DeepCopy()
	gr := r.Kind.GroupResource()
	if pre := opts.Preconditions; pre != nil {
		if pre.UID != nil && *pre.UID != crd.UID {
			return true, apierrors.NewConflict(gr, r.Name, fmt.Errorf("precondition failed: UID in precondition: %v, UID in object meta: %v", *pre.UID, crd.UID))
		}
		if pre.ResourceVersion != nil && *pre.ResourceVersion != crd.ResourceVersion {
			return true, apierrors.NewConflict(gr, r.Name, fmt.Errorf("precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *pre.ResourceVersion, crd.ResourceVersion))
		}
	}
	now := s.now()
	crd.DeletionTimestamp = &now
	if !hasFinalizer(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer) {
		crd.Finalizers = append(crd.Finalizers, apiextensionsv1.CustomResourceCleanupFinalizer)
	}
	s.setCRDCondition(crd, apiextensionsv1.Terminating, apiextensionsv1.ConditionTrue, "InstanceDeletionPending", "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon")
	s.write(r, watch.Modified, crd)
	return true, nil
}
