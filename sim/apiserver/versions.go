package apiserver

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/conversion"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Several served versions of one custom resource, as kube-apiserver's custom
// resource handler serves them (apiextensions-apiserver
// pkg/apiserver/customresource_handler.go): one Kind per served version, each
// with its own schema (pruning, defaulting, validation of the requests made
// in it), sharing one store whose objects are in the storage version. A read
// in another version decodes the stored object (defaulted with the storage
// version's schema, as unstructuredDefaulter does), converts it with the
// CRD's conversion strategy (None: apiextensions' own nopConverter through
// its crConverter; Webhook: the Converter the server is given, package
// process's Webhooks.Convert) and prunes the result with the target
// version's schema (schemaCoercingConverter). A write in another version is
// decoded, defaulted, admitted and validated in its own version, converted to
// the storage version (pruned with that version's schema) and stored; its
// answer is the stored object read back in the request's version. A
// conversion failure is the storage layer's error: on a read,
// kube-apiserver's 500 "StorageError: corrupt object ... object not
// decodable"; on a write, a 500 with the converter's message.

// Converter calls a CRD's conversion webhook: package process's
// (*Webhooks).Convert, the caller's half of apiextensions' webhookConverter.
type Converter interface {
	Convert(crd *apiextensionsv1.CustomResourceDefinition, objs []*unstructured.Unstructured, desiredAPIVersion string) ([]*unstructured.Unstructured, error)
}

// SetConverter installs the caller of conversion webhooks (nil: none; a CRD
// whose strategy is Webhook then fails every conversion).
func (s *Server) SetConverter(c Converter) { s.converter = c }

// crdVersions links the served versions of one CRD that has several.
type crdVersions struct {
	def     *apiextensionsv1.CustomResourceDefinition // shared, not modified
	storage *Kind                                     // in the table only when served
	served  []*Kind                                   // in the CRD's order
	// none is apiextensions' converter for the None strategy (nil for Webhook).
	none runtime.ObjectConvertor
}

// storageKind is the kind whose objects the store holds: k itself but for a
// non-storage version of a multi-version CRD.
func (k *Kind) storageKind() *Kind {
	if k.versions == nil {
		return k
	}
	return k.versions.storage
}

// StorageVersion is the version the kind's objects are stored in.
func (k *Kind) StorageVersion() string { return k.storageKind().GVK.Version }

// Versions are the served versions of the kind's group and kind, in the
// CRD's order (k alone for a kind with one).
func (k *Kind) Versions() []*Kind {
	if k.versions == nil {
		return []*Kind{k}
	}
	return append([]*Kind(nil), k.versions.served...)
}

// StoredKinds is every served kind once, in the version its objects are
// stored in (a multi-version CRD's storage version; its first served version
// when that one is not served), in registration order: what observers that
// read every object once list.
func (s *Server) StoredKinds() []*Kind {
	var out []*Kind
	for _, k := range s.Kinds() {
		if vs := k.versions; vs != nil && k != vs.storage && (vs.storage.served() || vs.served[0] != k) {
			continue
		}
		out = append(out, k)
	}
	return out
}

func (k *Kind) served() bool {
	if k.versions == nil {
		return true
	}
	for _, v := range k.versions.served {
		if v == k {
			return true
		}
	}
	return false
}

// isStorage reports whether k is the version its objects are stored in.
func (k *Kind) isStorage() bool { return k.storageKind() == k }

// crdOfVersion is the CRD of one version of def.
func crdOfVersion(def *apiextensionsv1.CustomResourceDefinition, v *apiextensionsv1.CustomResourceDefinitionVersion) (CRD, error) {
	crd := CRD{
		GVK:        schema.GroupVersionKind{Group: def.Spec.Group, Version: v.Name, Kind: def.Spec.Names.Kind},
		Plural:     def.Spec.Names.Plural,
		Namespaced: def.Spec.Scope == apiextensionsv1.NamespaceScoped,
		Status:     v.Subresources != nil && v.Subresources.Status != nil,
	}
	if v.Schema != nil && v.Schema.OpenAPIV3Schema != nil {
		crd.Schema = v.Schema.OpenAPIV3Schema.DeepCopy()
		if _, err := newCRSchema(crd.GVK, crd.Schema); err != nil {
			return CRD{}, fmt.Errorf("CRD %s: %w", def.Name, err)
		}
	}
	return crd, nil
}

// installVersions serves every served version of def and returns the
// storage version's kind.
func (s *Server) installVersions(def *apiextensionsv1.CustomResourceDefinition) *Kind {
	vs := &crdVersions{def: def}
	if c := def.Spec.Conversion; c == nil || c.Strategy != apiextensionsv1.WebhookConverter {
		f, err := conversion.NewCRConverterFactory(nil, nil)
		if err == nil {
			none := def.DeepCopy()
			none.Spec.Conversion = &apiextensionsv1.CustomResourceConversion{Strategy: apiextensionsv1.NoneConverter}
			_, vs.none, err = f.NewConverter(none)
		}
		if err != nil {
			panic(fmt.Sprintf("apiserver: the None converter of %s: %v", def.Name, err))
		}
	}
	for i := range def.Spec.Versions {
		v := &def.Spec.Versions[i]
		if !v.Served && !v.Storage {
			continue
		}
		crd, err := crdOfVersion(def, v)
		if err != nil {
			panic(fmt.Sprintf("apiserver.InstallCRD: %v", err))
		}
		k := s.newCustomKind(crd)
		k.versions = vs
		if v.Storage {
			vs.storage = k
		}
		if v.Served {
			vs.served = append(vs.served, k)
		}
	}
	if vs.storage == nil {
		panic(fmt.Sprintf("apiserver.InstallCRD: CRD %s has no storage version", def.Name))
	}
	for _, k := range vs.served {
		s.kinds.add(k)
	}
	s.kindsGen++
	return vs.storage
}

// asUnstructured is a deep copy of obj, a k, as the JSON a real server holds
// (with k's apiVersion and kind).
func asUnstructured(k *Kind, obj client.Object) (*unstructured.Unstructured, error) {
	var u *unstructured.Unstructured
	if x, ok := obj.(*unstructured.Unstructured); ok {
		u = x.DeepCopy()
	} else {
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
		if err != nil {
			return nil, err
		}
		u = &unstructured.Unstructured{Object: m}
	}
	u.SetGroupVersionKind(k.GVK)
	return u, nil
}

// asKind is u as an object of k: u itself for an unstructured kind, else its
// Go type (apiVersion and kind cleared, as the typed decoder leaves them).
func asKind(k *Kind, u *unstructured.Unstructured) (client.Object, error) {
	if k.Unstructured() {
		stamp(k, u)
		return u, nil
	}
	obj := newObjectOf(k)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
		return nil, err
	}
	stamp(k, obj)
	return obj, nil
}

// convert is the storage codec's conversion of obj, an object of from, into
// the version of to (crConverter with the CRD's strategy, then
// schemaCoercingConverter's pruning with to's schema). A decode from storage
// (from is the storage version) first defaults the object with the storage
// version's schema, as unstructuredDefaulter does before converting.
func (s *Server) convert(from, to *Kind, obj client.Object) (client.Object, error) {
	if from.GVK == to.GVK {
		return obj, nil
	}
	u, err := asUnstructured(from, obj)
	if err != nil {
		return nil, err
	}
	if from.isStorage() && from.schema != nil {
		structuraldefaulting.Default(u.Object, from.schema.structural)
	}
	vs := from.versions
	target := to.GVK.GroupVersion()
	if vs.none != nil {
		out, err := vs.none.ConvertToVersion(u, target)
		if err != nil {
			return nil, err
		}
		u = out.(*unstructured.Unstructured)
	} else {
		if s.converter == nil {
			return nil, fmt.Errorf("conversion webhook for %v failed: ctrlsim: the server has no conversion webhook caller (SetConverter)", from.GVK)
		}
		out, err := s.converter.Convert(vs.def, []*unstructured.Unstructured{u}, target.String())
		if err != nil {
			return nil, err
		}
		u = out[0]
	}
	if to.schema != nil {
		objectMeta, found, _, err := schemaobjectmeta.GetObjectMetaWithOptions(u.Object, schemaobjectmeta.ObjectMetaOptions{})
		if err != nil {
			return nil, err
		}
		structuralpruning.Prune(u.Object, to.schema.structural, true)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u.Object, to.schema.structural)
		if err, _ := schemaobjectmeta.CoerceWithOptions(nil, u.Object, to.schema.structural, false, schemaobjectmeta.CoerceOptions{}); err != nil {
			return nil, err
		}
		if found {
			if err := schemaobjectmeta.SetObjectMeta(u.Object, objectMeta); err != nil {
				return nil, err
			}
		}
	}
	return asKind(to, u)
}

// fromStorage is a stored object read in k's version. A conversion failure
// is the storage layer's decoding error, as kube-apiserver reports it:
// 500 "Internal error occurred: StorageError: corrupt object, Code: 7, Key:
// ..., ResourceVersion: 0, AdditionalErrorMsg: object not decodable
// revision=N: <the converter's error>".
func (s *Server) fromStorage(k *Kind, stored client.Object) (client.Object, error) {
	if k.isStorage() {
		return stored, nil
	}
	out, err := s.convert(k.storageKind(), k, stored)
	if err != nil {
		// The key is the storage's own, without the /registry prefix.
		key := strings.TrimPrefix(k.storageKey(stored.GetNamespace(), stored.GetName()), "/registry")
		return nil, apierrors.NewInternalError(fmt.Errorf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%s: %v",
			key, stored.GetResourceVersion(), err))
	}
	return out, nil
}

// toStorage is obj, a k, in the storage version: the storage codec's encode.
// A conversion failure is the converter's error as the handler answers an
// error that is not an API status: a 500 with its message, no reason and no
// details.
func (s *Server) toStorage(k *Kind, obj client.Object) (client.Object, error) {
	if k.isStorage() {
		return obj, nil
	}
	out, err := s.convert(k, k.storageKind(), obj)
	if err != nil {
		return nil, &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
	}
	if sk := k.storageKind(); sk.schema != nil {
		// Every decode of the stored object defaults it with the storage
		// version's schema (unstructuredDefaulter): the model stores it
		// defaulted, which every read and watch event then shows.
		u, err := asUnstructured(sk, out)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		structuraldefaulting.Default(u.Object, sk.schema.structural)
		return asKind(sk, u)
	}
	return out, nil
}

// storedIn is the stored object at key read in r's version.
func (s *Server) storedIn(k *Kind, key objectKey) (client.Object, bool, error) {
	stored, ok := s.store(k).get(key)
	if !ok {
		return nil, false, nil
	}
	out, err := s.fromStorage(k, stored)
	return out, true, err
}

// Watches of a non-storage version: each served version has its own watch
// cache in kube-apiserver (a cacher per version's storage, decoding etcd's
// events into that version), so every committed change is converted once per
// version that is watched. While a conversion fails, that version's watches
// stall (the cacher's reflector cannot decode, and relists); the server
// retries every RetryConversion of virtual time and at each later commit of
// the kind, and delivers the stalled events in order once they convert.

// RetryConversion is how often a stalled watch of a non-storage version tries
// its conversion again (the reflector's backoff, at its first steps).
const RetryConversion = time.Second

// versionWatch is the watch stream of one non-storage version.
type versionWatch struct {
	k        *Kind
	pending  []Event // in the storage version, not yet delivered
	retrying bool
}

// notifyVersions delivers ev (a change of a multi-version kind, in its
// storage version) to the watchers of every other served version.
func (s *Server) notifyVersions(k *Kind, ev Event) {
	if k.versions == nil {
		return
	}
	for _, v := range k.versions.served {
		w := s.vwatch[v.GVK]
		if v.isStorage() || len(s.subs[v.GVK]) == 0 && (w == nil || len(w.pending) == 0) {
			continue // (a stalled stream keeps every change, watched or not)
		}
		if w == nil {
			w = &versionWatch{}
			s.vwatch[v.GVK] = w
		}
		w.k = v
		w.pending = append(w.pending, ev)
		s.flushVersion(w)
	}
}

// flushVersion delivers w's pending events while they convert.
func (s *Server) flushVersion(w *versionWatch) {
	for len(w.pending) > 0 {
		ev := w.pending[0]
		obj, err := s.convert(w.k.storageKind(), w.k, ev.Object)
		if err != nil {
			if !w.retrying && s.laterFn != nil {
				w.retrying = true
				s.laterFn(RetryConversion, func() {
					w.retrying = false
					s.flushVersion(w)
				})
			}
			return
		}
		w.pending = w.pending[1:]
		out := ev
		out.GVK, out.Object = w.k.GVK, obj
		s.notify(out)
	}
}

// versionList is Watcher.List of a non-storage version: the stored objects
// converted. While the version's watch is stalled, or a conversion fails,
// the version's watch cache is not ready: the list is empty at
// resourceVersion 0 and the objects come as the watch's events once they
// convert (Known gaps: a real informer waits for its list instead).
func (w Watcher) versionList(k *Kind) ([]client.Object, uint64) {
	s := w.s
	if vw := s.vwatch[k.GVK]; vw != nil && len(vw.pending) > 0 {
		return nil, vw.pending[0].ResourceVersion - 1
	}
	ks := s.store(k)
	keys := ks.keys()
	out := make([]client.Object, 0, len(keys))
	for _, key := range keys {
		o, err := s.convert(k.storageKind(), k, ks.objects[key])
		if err != nil {
			// Not ready: the objects are delivered as added once they convert.
			vw := s.vwatch[k.GVK]
			if vw == nil {
				vw = &versionWatch{k: k}
				s.vwatch[k.GVK] = vw
			}
			for _, key := range keys {
				vw.pending = append(vw.pending, Event{Type: watch.Added, GVK: k.storageKind().GVK, Object: ks.objects[key], ResourceVersion: s.rv, At: s.clock.Now()})
			}
			s.flushVersion(vw)
			return nil, 0
		}
		out = append(out, o)
	}
	return out, s.rv
}
