package kubeclient

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/forms"
)

// Objects in a form other than their kind's native one (forms.Native: the Go type,
// or Unstructured for a kind only a CRD defines) are served through the native
// path: the client converts the caller's object to the native form, makes the
// native call (so hooks see the native object, and the trace is a typed caller's),
// then writes the result back into the caller's form. Cached reads are the
// exception: they read the cache's informer of the caller's form.

// The errors of controller-runtime's client (client.go) for writes the metadata
// client does not make.
var (
	errMetadataCreate       = errors.New("cannot create using only metadata")
	errMetadataUpdate       = errors.New("cannot update using only metadata -- did you mean to patch?")
	errMetadataStatusUpdate = errors.New("cannot update status using only metadata -- did you mean to patch?")
)

// isForm reports whether obj is in a form other than its kind's native one (the
// Go type, or Unstructured for a kind that only a CRD defines): those calls are
// converted to the native form.
func (c *Client) isForm(obj runtime.Object) bool { return !forms.IsNative(c.Scheme(), obj) }

// fail runs a call that fails before it is made (in the client) between the hooks,
// as the typed client's own checks do.
func (c *Client) fail(call Call, err error) error {
	return c.do(call, func() error { return err })
}

// noKind is the error for a kind with no Go type: what the RESTMapper says when the
// server does not serve it, else the scheme's.
func (c *Client) noKind(gvk schema.GroupVersionKind, err error) error {
	if _, served := c.server.KindFor(gvk); !served && runtime.IsNotRegisteredError(err) {
		return &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
	}
	return err
}

// served fails a kind with no Go type that no CRD serves, as the RESTMapper does.
func (c *Client) served(gvk schema.GroupVersionKind) error {
	if forms.Native(c.Scheme(), gvk) == forms.Typed {
		return nil // the Go type's calls tell
	}
	if _, ok := c.server.KindFor(gvk); !ok {
		return &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
	}
	return nil
}

// servedUnstructured is served for a cached read of an Unstructured object or
// list of a kind with no Go type (the cache would find nothing to list).
func (c *Client) servedUnstructured(obj runtime.Object) error {
	if forms.Of(obj) != forms.Unstructured {
		return nil
	}
	gvk, err := forms.GVK(obj, c.Scheme())
	if err != nil {
		return err
	}
	return c.served(forms.ItemGVK(gvk))
}

// emptyTyped resolves the kind of a form object and returns an empty typed object
// of it (reads need nothing else). On error, the call's object is the form itself.
func (c *Client) emptyTyped(obj client.Object) (schema.GroupVersionKind, client.Object, error) {
	gvk, err := forms.GVK(obj, c.Scheme())
	if err != nil {
		return gvk, nil, err
	}
	if err := c.served(gvk); err != nil {
		return gvk, nil, err
	}
	typed, err := forms.NewNative(c.Scheme(), gvk)
	if err != nil {
		return gvk, nil, c.noKind(gvk, err)
	}
	return gvk, typed, nil
}

// toTyped converts a form object to its kind's Go type. It returns the object the
// call is about even on error: the typed object with the form's name and namespace
// when the kind is known, else the form object.
func (c *Client) toTyped(obj client.Object) (schema.GroupVersionKind, client.Object, error) {
	gvk, empty, err := c.emptyTyped(obj)
	if err != nil {
		return gvk, obj, err
	}
	typed, err := forms.ToNative(c.Scheme(), obj)
	if err != nil {
		// The apiserver decodes the body into the Go type, and answers 400 when it cannot.
		empty.SetNamespace(obj.GetNamespace())
		empty.SetName(obj.GetName())
		return gvk, empty, apierrors.NewBadRequest(fmt.Sprintf("%s in version %q cannot be handled as a %s: %v",
			gvk.Kind, gvk.Version, gvk.Kind, err))
	}
	return gvk, typed, nil
}

// viaTyped makes a write of a form object as the typed write run, and writes the
// result back into obj when writeBack is set.
func (c *Client) viaTyped(call Call, obj client.Object, writeBack bool, run func(typed client.Object) error) error {
	gvk, typed, err := c.toTyped(obj)
	if err != nil {
		call.Object = typed
		return c.fail(call, err)
	}
	if err := run(typed); err != nil {
		return err
	}
	if !writeBack {
		return nil
	}
	return forms.Into(typed, obj, gvk)
}

// reader is the client that serves a read of obj: the client itself, or its API
// reader for an Unstructured object when Options.UncachedUnstructured is set and
// for a kind Options.Uncached names.
func (c *Client) reader(obj runtime.Object) *Client {
	if c.cache != nil && c.uncachedUnstructured && forms.Of(obj) == forms.Unstructured {
		return c.APIReader().(*Client)
	}
	if c.cache != nil && c.uncached != nil {
		if gvk, err := forms.GVK(obj, c.Scheme()); err == nil && c.uncached(forms.ItemGVK(gvk)) {
			return c.APIReader().(*Client)
		}
	}
	return c
}

func (c *Client) getForm(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	c = c.reader(obj)
	gvk, typed, err := c.emptyTyped(obj)
	if err != nil {
		return c.fail(Call{Verb: "get", Object: obj, Namespace: key.Namespace, Name: key.Name, Cached: c.cache != nil}, err)
	}
	if c.cache != nil {
		// The cache serves each form from an informer of that form (its own store
		// and lag), as controller-runtime's does. The hooks see the native object
		// with the metadata read.
		call := Call{Verb: "get", Object: typed, Namespace: key.Namespace, Name: key.Name, Cached: true}
		return c.do(call, func() error {
			if err := c.cache.Get(ctx, key, obj, opts...); err != nil {
				return err
			}
			copyMeta(typed, obj)
			return nil
		})
	}
	if err := c.Get(ctx, key, typed, opts...); err != nil {
		return err
	}
	return forms.Into(typed, obj, gvk)
}

// copyMeta gives to the identity and version of from: what the hooks read of a
// cached read's result.
func copyMeta(to, from client.Object) {
	to.SetNamespace(from.GetNamespace())
	to.SetName(from.GetName())
	to.SetUID(from.GetUID())
	to.SetResourceVersion(from.GetResourceVersion())
	to.SetGeneration(from.GetGeneration())
}

// listForm lists into an UnstructuredList or PartialObjectMetadataList. Items carry
// the item kind. The list keeps the caller's apiVersion/kind, but for an
// UnstructuredList read from the server, which takes the response's (<Kind>List).
func (c *Client) listForm(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	c = c.reader(list)
	call := Call{Verb: "list", Object: list, Namespace: (&client.ListOptions{}).ApplyOptions(opts).Namespace, Cached: c.cache != nil}
	gvk, err := forms.GVK(list, c.Scheme())
	if err != nil {
		return c.fail(call, err)
	}
	item := forms.ItemGVK(gvk)
	if err := c.served(item); err != nil {
		return c.fail(call, err)
	}
	typed, err := forms.NewNativeList(c.Scheme(), item)
	if err != nil {
		return c.fail(call, c.noKind(item, err))
	}
	if c.cache != nil {
		// From the cache's informer of the list's form; the hooks see the native list.
		call.Object, call.Got = typed, list
		return c.do(call, func() error { return c.cache.List(ctx, list, opts...) })
	}
	if err := c.List(ctx, typed, opts...); err != nil {
		return err
	}
	if err := forms.ListInto(typed, list, item); err != nil {
		return err
	}
	if c.cache == nil && forms.Of(list) == forms.Unstructured {
		list.GetObjectKind().SetGroupVersionKind(item.GroupVersion().WithKind(item.Kind + "List"))
	}
	return nil
}

func writeCall(verb, sub string, obj client.Object) Call {
	return Call{Verb: verb, Subresource: sub, Object: obj, Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

func (c *Client) createForm(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if forms.Of(obj) == forms.Metadata {
		return c.metadataRefused(writeCall("create", "", obj), obj, errMetadataCreate)
	}
	return c.viaTyped(writeCall("create", "", obj), obj, true, func(typed client.Object) error {
		return c.Create(ctx, typed, opts...)
	})
}

func (c *Client) updateForm(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if forms.Of(obj) == forms.Metadata {
		return c.metadataRefused(writeCall("update", "", obj), obj, errMetadataUpdate)
	}
	return c.viaTyped(writeCall("update", "", obj), obj, true, func(typed client.Object) error {
		return c.Update(ctx, typed, opts...)
	})
}

// patchForm patches with the caller's patch bytes: p.Data of the caller's object.
func (c *Client) patchForm(ctx context.Context, obj client.Object, p client.Patch, sub string, o *client.PatchOptions) error {
	return c.viaTyped(writeCall("patch", sub, obj), obj, true, func(typed client.Object) error {
		return c.patch(ctx, typed, obj, p, sub, o)
	})
}

func (c *Client) deleteForm(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	var decode func() error
	if forms.Of(obj) == forms.Metadata {
		// controller-runtime deletes a PartialObjectMetadata with its typed client
		// (client.go delete: "The typed client can also delete PartialObjectMeta"),
		// which decodes the response with the scheme: for a kind with no Go type, an
		// object that stays (held by finalizers) is the scheme's not-registered error
		// once the delete is done; a metav1.Status (the object is gone) decodes.
		if gvk, err := forms.GVK(obj, c.Scheme()); err == nil && forms.Native(c.Scheme(), gvk) != forms.Typed {
			decode = func() error {
				if c.server.CurrentResourceVersion(newNative(c, gvk), obj.GetNamespace(), obj.GetName()) == 0 {
					return nil
				}
				_, err := c.Scheme().New(gvk)
				return err
			}
		}
	}
	return c.viaTyped(writeCall("delete", "", obj), obj, false, func(typed client.Object) error {
		return c.delete(typed, (&client.DeleteOptions{}).ApplyOptions(opts), decode)
	})
}

func newNative(c *Client, gvk schema.GroupVersionKind) client.Object {
	o, _ := forms.NewNative(c.Scheme(), gvk)
	return o
}

func (c *Client) deleteAllOfForm(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	call := Call{Verb: "deletecollection", Object: obj, Namespace: (&client.DeleteAllOfOptions{}).ApplyOptions(opts).Namespace}
	return c.viaTyped(call, obj, false, func(typed client.Object) error {
		return c.DeleteAllOf(ctx, typed, opts...)
	})
}

func (s *subResourceClient) updateForm(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	c := s.c
	if forms.Of(obj) == forms.Metadata {
		return c.metadataRefused(writeCall("update", s.sub, obj), obj, errMetadataStatusUpdate)
	}
	return c.viaTyped(writeCall("update", s.sub, obj), obj, true, func(typed client.Object) error {
		return s.Update(ctx, typed, opts...)
	})
}

// metadataRefused fails a write controller-runtime refuses for metadata-only
// objects; the call names the typed kind when it is known.
func (c *Client) metadataRefused(call Call, obj client.Object, err error) error {
	if _, typed, kerr := c.toTyped(obj); kerr == nil {
		call.Object = typed
	}
	return c.fail(call, err)
}

// kindOf is the served kind of an object of any form.
func (c *Client) kindOf(obj runtime.Object) (*apiserver.Kind, error) {
	if !c.isForm(obj) {
		return c.server.Kind(obj)
	}
	gvk, err := forms.GVK(obj, c.Scheme())
	if err != nil {
		return nil, err
	}
	if meta.IsListType(obj) {
		gvk = forms.ItemGVK(gvk)
	}
	k, ok := c.server.KindFor(gvk)
	if !ok {
		return nil, &meta.NoKindMatchError{GroupKind: gvk.GroupKind(), SearchedVersions: []string{gvk.Version}}
	}
	return k, nil
}
