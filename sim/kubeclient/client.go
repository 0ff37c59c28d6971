package kubeclient

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/forms"
)

// Call describes one client call, as hooks see it.
type Call struct {
	Verb        string // get list create update patch delete deletecollection
	Subresource string
	Object      runtime.Object // the caller's object or list, its native copy (Go type, or Unstructured for a kind with none) for another form (do not retain)
	Namespace   string
	Name        string
	Cached      bool // a read served by the informer cache
	// DryRun is a write with dryRun=All: the server admits, validates and
	// answers it, and stores nothing.
	DryRun bool
	// Got is, for a read of another form whose Object is its native copy
	// and is not filled (a cached list), the caller's object or list as
	// read; nil otherwise (do not retain).
	Got runtime.Object
}

// Hooks observe every call. Before runs before the call reaches the cache or the
// server: the scheduler yields there, and a crash injected there means the call
// never happens (inside a task the crash unwinds the caller; outside one, Before
// returns the error the call fails with). After runs with the call's result.
type Hooks struct {
	Before func(Call) error
	After  func(Call, error)
}

// Options configure a Client.
type Options struct {
	// WarningHandler receives the warnings of each request (admission
	// webhooks' warnings), as a rest.Config's does from the Warning headers
	// of a response, with code 299 and a context with no logger (the call's
	// is not passed down); nil drops them.
	WarningHandler rest.WarningHandlerWithContext
	// Cache serves Get and List (the informer cache of the process). Nil means every
	// read goes to the server, as with mgr.GetAPIReader().
	Cache client.Reader
	Hooks Hooks
	// UncachedUnstructured makes Get and List of Unstructured objects read from the
	// server even with a Cache, as controller-runtime's client does unless
	// client.CacheOptions.Unstructured is set. False (the default here): the cache
	// serves them as it serves typed objects, so an unstructured caller's reads are
	// a typed caller's.
	UncachedUnstructured bool
	// Uncached names the kinds read from the server even with a Cache
	// (controller-runtime's client.CacheOptions.DisableFor).
	Uncached func(gvk schema.GroupVersionKind) bool
	// FieldOwner is the field manager of writes that name none
	// (controller-runtime's client.Options.FieldOwner, client.WithFieldOwner);
	// "" leaves them to the server, which takes the User-Agent's.
	FieldOwner string
}

// Client is a controller-runtime client.Client acting as one identity: reads from
// the process's informer cache, writes straight to the apiserver model.
type Client struct {
	server *apiserver.Server
	user   apiserver.User
	cache  client.Reader
	hooks  Hooks
	mapper *mapperCache
	// uncachedUnstructured: Options.UncachedUnstructured
	uncachedUnstructured bool
	uncached             func(gvk schema.GroupVersionKind) bool // Options.Uncached
	warnings             rest.WarningHandlerWithContext         // Options.WarningHandler
	fieldOwner           string                                 // Options.FieldOwner
}

// mapperCache holds the REST mapper of the served kinds, rebuilt only when the
// served kinds change (a CRD installed or removed: Server.KindsGeneration).
type mapperCache struct {
	kinds  int // the KindsGeneration it was built at
	mapper meta.RESTMapper

	// known are the kinds controller-runtime's dynamic RESTMapper would hold:
	// every kind of each group it has loaded (it loads a group's resources at
	// the first request for one of its kinds, and again only when a kind is not
	// found), with their resources.
	mu    sync.Mutex
	known map[schema.GroupKind]string
}

var _ client.Client = (*Client)(nil)

// New returns a client for user.
func New(server *apiserver.Server, user apiserver.User, opts Options) *Client {
	return &Client{server: server, user: user, cache: opts.Cache, hooks: opts.Hooks, mapper: &mapperCache{},
		uncachedUnstructured: opts.UncachedUnstructured, uncached: opts.Uncached, warnings: opts.WarningHandler, fieldOwner: opts.FieldOwner}
}

// APIReader returns a reader that always reads from the server, like
// mgr.GetAPIReader(). It shares the client's identity and hooks.
func (c *Client) APIReader() client.Reader {
	return &Client{server: c.server, user: c.user, hooks: c.hooks, mapper: c.mapper, warnings: c.warnings, fieldOwner: c.fieldOwner}
}

// Uncached returns a client like this one (identity, hooks) that reads from the
// server: what a client built on the process's REST config is (package restapi).
func (c *Client) Uncached() *Client {
	return &Client{server: c.server, user: c.user, hooks: c.hooks, mapper: c.mapper, warnings: c.warnings, fieldOwner: c.fieldOwner}
}

// User is the identity the client acts as.
func (c *Client) User() apiserver.User { return c.user }

// Do runs a call the client does not make itself between the hooks: a REST
// request that package restapi serves without a client method (discovery).
func (c *Client) Do(call Call, f func() error) error { return c.do(call, f) }

// do runs one call between the hooks.
func (c *Client) do(call Call, f func() error) error {
	if c.hooks.Before != nil {
		if err := c.hooks.Before(call); err != nil {
			return err
		}
	}
	c.server.TakeWarnings() // not this request's
	err := c.mapped(call, f())
	if warnings := c.server.TakeWarnings(); c.warnings != nil {
		for _, w := range warnings {
			c.warnings.HandleWarningHeaderWithContext(context.Background(), 299, "", w)
		}
	}
	if c.hooks.After != nil {
		c.hooks.After(call, err)
	}
	return err
}

// mapped is err as the request's mapping makes it. The client maps a kind
// once: a request for a kind whose group the mapper loaded while the kind was
// served still goes to the server after the kind stops being served (its CRD
// deleted), and kube-apiserver answers its path with "404 page not found",
// which client-go makes a NotFound (TestCRDLifecycleMatchesKubeAPIServer in
// internal/differential); a kind the mapper never held is a NoKindMatchError.
// A request that succeeds loads the kinds of its group.
func (c *Client) mapped(call Call, err error) error {
	if call.Object == nil || call.Cached {
		return err
	}
	gvk, gerr := apiutil.GVKForObject(call.Object, c.server.Scheme())
	if gerr != nil {
		return err
	}
	if meta.IsListType(call.Object) {
		gvk.Kind = strings.TrimSuffix(gvk.Kind, "List")
	}
	m := c.mapper
	m.mu.Lock()
	defer m.mu.Unlock()
	if meta.IsNoMatchError(err) {
		resource, ok := m.known[gvk.GroupKind()]
		if !ok {
			return err
		}
		gr := schema.GroupResource{Group: gvk.Group, Resource: resource}
		return apierrors.NewGenericServerResponse(404, httpMethod(call.Verb), gr, call.Name, "404 page not found", 0, true)
	}
	if _, ok := m.known[gvk.GroupKind()]; ok {
		return err
	}
	if _, served := c.server.KindFor(gvk); !served {
		return err
	}
	if m.known == nil {
		m.known = map[schema.GroupKind]string{}
	}
	for _, k := range c.server.Kinds() {
		if k.GVK.Group == gvk.Group {
			m.known[k.GVK.GroupKind()] = k.Resource
		}
	}
	return err
}

// httpMethod is the method of a request of verb, as client-go names it in
// an error it makes from a response.
func httpMethod(verb string) string {
	switch verb {
	case "get", "list":
		return "GET"
	case "create":
		return "POST"
	case "update":
		return "PUT"
	case "patch":
		return "PATCH"
	}
	return "DELETE"
}

// preflight reproduces the checks client-go's rest.Request makes before sending
// (request.go requestPreflightCheck and Name): these never reach a server.
func (c *Client) preflight(obj runtime.Object, verb, namespace, name string) error {
	k, err := c.server.Kind(obj)
	if err != nil {
		return err
	}
	if verb != "create" && verb != "list" && verb != "deletecollection" && name == "" {
		return errors.New("resource name may not be empty")
	}
	if k.Namespaced && namespace == "" {
		switch verb {
		case "create":
			return errors.New("an empty namespace may not be set during creation")
		case "get", "update", "delete":
			return errors.New("an empty namespace may not be set when a resource name is provided")
		}
	}
	return nil
}

// Get reads from the cache when the client has one, else from the server.
func (c *Client) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if c.isForm(obj) {
		return c.getForm(ctx, key, obj, opts...)
	}
	c = c.reader(obj)
	call := Call{Verb: "get", Object: obj, Namespace: key.Namespace, Name: key.Name, Cached: c.cache != nil}
	return c.do(call, func() error {
		if c.cache != nil {
			if err := c.servedUnstructured(obj); err != nil {
				return err
			}
			return c.cache.Get(ctx, key, obj, opts...)
		}
		if err := c.preflight(obj, "get", key.Namespace, key.Name); err != nil {
			return err
		}
		return c.server.Get(c.user, key, obj)
	})
}

// List reads from the cache when the client has one, else from the server.
func (c *Client) List(ctx context.Context, list client.ObjectList, opts ...client.ListOption) error {
	if c.isForm(list) {
		return c.listForm(ctx, list, opts...)
	}
	c = c.reader(list)
	o := (&client.ListOptions{}).ApplyOptions(opts)
	call := Call{Verb: "list", Object: list, Namespace: o.Namespace, Cached: c.cache != nil}
	return c.do(call, func() error {
		if c.cache != nil {
			if err := c.servedUnstructured(list); err != nil {
				return err
			}
			return c.cache.List(ctx, list, opts...)
		}
		if _, err := c.server.Kind(list); err != nil {
			return err
		}
		return c.server.List(c.user, list, o)
	})
}

// Create creates obj; obj receives the stored object.
func (c *Client) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	if c.isForm(obj) {
		return c.createForm(ctx, obj, opts...)
	}
	o := (&client.CreateOptions{}).ApplyOptions(opts)
	call := Call{Verb: "create", Object: obj, Namespace: obj.GetNamespace(), Name: obj.GetName(), DryRun: len(o.DryRun) > 0}
	return c.do(call, func() error {
		if err := c.preflight(obj, "create", c.scopedNamespace(obj), obj.GetName()); err != nil {
			return err
		}
		return c.server.CreateWith(c.user, obj, apiserver.WriteOptions{FieldManager: c.owner(o.FieldManager), DryRun: o.DryRun})
	})
}

// Update replaces obj; obj receives the stored object.
func (c *Client) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if c.isForm(obj) {
		return c.updateForm(ctx, obj, opts...)
	}
	o := (&client.UpdateOptions{}).ApplyOptions(opts)
	call := Call{Verb: "update", Object: obj, Namespace: obj.GetNamespace(), Name: obj.GetName(), DryRun: len(o.DryRun) > 0}
	defer keepTypeMeta(obj)()
	return c.do(call, func() error {
		if err := c.preflight(obj, "update", c.scopedNamespace(obj), obj.GetName()); err != nil {
			return err
		}
		return c.server.UpdateWith(c.user, obj, "", apiserver.WriteOptions{FieldManager: c.owner(o.FieldManager), DryRun: o.DryRun})
	})
}

// keepTypeMeta restores the caller's apiVersion/kind after a write: controller-
// runtime's typed client puts them back (it decodes into the object and then
// resets its GroupVersionKind on Update and Patch). It is deferred around the
// hooks, so Hooks.After sees the object as the server returned it, without
// apiVersion/kind, whatever the caller had there (a trace digest does not depend
// on whether the caller's object came from the cache, which sets them, or from
// the server, which does not; nor on the caller's form).
func keepTypeMeta(obj runtime.Object) func() {
	gvk := obj.GetObjectKind().GroupVersionKind()
	return func() { obj.GetObjectKind().SetGroupVersionKind(gvk) }
}

// Patch patches obj; obj receives the stored object.
func (c *Client) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
	o := (&client.PatchOptions{}).ApplyOptions(opts)
	if c.isForm(obj) {
		return c.patchForm(ctx, obj, p, "", o)
	}
	return c.patch(ctx, obj, obj, p, "", o)
}

// patch patches obj with p's data computed against body: the caller's object,
// which is obj itself but for a form object (patchForm), whose typed copy is obj.
func (c *Client) patch(_ context.Context, obj, body client.Object, p client.Patch, sub string, o *client.PatchOptions) error {
	call := Call{Verb: "patch", Subresource: sub, Object: obj, Namespace: obj.GetNamespace(), Name: obj.GetName(), DryRun: len(o.DryRun) > 0}
	defer keepTypeMeta(obj)()
	return c.do(call, func() error {
		if err := c.preflight(obj, "patch", c.scopedNamespace(obj), obj.GetName()); err != nil {
			return err
		}
		data, err := p.Data(body)
		if err != nil {
			return err
		}
		return c.server.PatchWith(c.user, obj, p.Type(), data, sub, apiserver.WriteOptions{FieldManager: c.owner(o.FieldManager), Force: o.Force, DryRun: o.DryRun})
	})
}

// Delete deletes obj.
func (c *Client) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	if c.isForm(obj) {
		return c.deleteForm(ctx, obj, opts...)
	}
	return c.delete(obj, (&client.DeleteOptions{}).ApplyOptions(opts), nil)
}

// delete deletes obj; decode, when set, is the client's reading of a successful
// response (see deleteForm).
func (c *Client) delete(obj client.Object, o *client.DeleteOptions, decode func() error) error {
	call := Call{Verb: "delete", Object: obj, Namespace: obj.GetNamespace(), Name: obj.GetName(), DryRun: len(o.DryRun) > 0}
	return c.do(call, func() error {
		if err := c.preflight(obj, "delete", c.scopedNamespace(obj), obj.GetName()); err != nil {
			return err
		}
		if err := c.server.Delete(c.user, obj, o); err != nil {
			return err
		}
		if decode != nil {
			return decode()
		}
		return nil
	})
}

// DeleteAllOf deletes the objects of obj's kind that match opts.
func (c *Client) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	if c.isForm(obj) {
		return c.deleteAllOfForm(ctx, obj, opts...)
	}
	o := (&client.DeleteAllOfOptions{}).ApplyOptions(opts)
	call := Call{Verb: "deletecollection", Object: obj, Namespace: o.Namespace, DryRun: len(o.DryRun) > 0}
	return c.do(call, func() error {
		return c.server.DeleteAllOf(c.user, obj, o)
	})
}

// owner is the field manager of a write: the call's, or the client's default.
func (c *Client) owner(m string) string {
	if m == "" {
		return c.fieldOwner
	}
	return m
}

// Apply is server-side apply of an apply configuration, as
// controller-runtime's client sends it: the configuration's JSON as a PATCH of
// type application/apply-patch+yaml to the object it names, with the
// options' fieldManager and force; the answer is decoded into obj.
func (c *Client) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
	o := (&client.ApplyOptions{}).ApplyOptions(opts)
	return c.apply(ctx, obj, obj, "", o)
}

// apply applies body (the configuration sent) and decodes the answer into
// obj (the caller's configuration).
func (c *Client) apply(ctx context.Context, obj, body runtime.ApplyConfiguration, sub string, o *client.ApplyOptions) error {
	data, err := json.Marshal(body)
	if err != nil {
		return err
	}
	var u unstructured.Unstructured
	if err := json.Unmarshal(data, &u.Object); err != nil {
		return err
	}
	gvk := u.GroupVersionKind()
	if gvk.Kind == "" || gvk.Version == "" {
		return fmt.Errorf("failed to create apply request: apiVersion and kind are required, got %q %q", u.GetAPIVersion(), u.GetKind())
	}
	if u.GetName() == "" {
		return fmt.Errorf("failed to create apply request: metadata.name must be set")
	}
	target, err := forms.NewNative(c.Scheme(), gvk)
	if err != nil {
		return err
	}
	target.GetObjectKind().SetGroupVersionKind(gvk)
	target.SetNamespace(u.GetNamespace())
	target.SetName(u.GetName())
	po := &client.PatchOptions{DryRun: o.DryRun, Force: o.Force, FieldManager: o.FieldManager}
	if err := c.patch(ctx, target, target, client.RawPatch(types.ApplyYAMLPatchType, data), sub, po); err != nil {
		return err
	}
	out, err := json.Marshal(target)
	if err != nil {
		return err
	}
	return json.Unmarshal(out, obj)
}

// Status is the status subresource.
func (c *Client) Status() client.SubResourceWriter { return c.SubResource("status") }

// SubResource returns a client for a subresource: "status", or "finalize" for namespaces.
func (c *Client) SubResource(subResource string) client.SubResourceClient {
	return &subResourceClient{c: c, sub: subResource}
}

// Scheme is the server's scheme.
func (c *Client) Scheme() *runtime.Scheme { return c.server.Scheme() }

// RESTMapper maps the kinds the server serves.
func (c *Client) RESTMapper() meta.RESTMapper {
	if n := c.server.KindsGeneration(); c.mapper.mapper == nil || n != c.mapper.kinds {
		c.mapper.kinds, c.mapper.mapper = n, restMapper(c.server)
	}
	return c.mapper.mapper
}

// GroupVersionKindFor returns the GVK of an object: the scheme's for a typed one,
// its apiVersion/kind for an Unstructured or PartialObjectMetadata.
func (c *Client) GroupVersionKindFor(obj runtime.Object) (schema.GroupVersionKind, error) {
	return apiutil.GVKForObject(obj, c.server.Scheme())
}

// IsObjectNamespaced reports whether obj's kind is namespaced.
func (c *Client) IsObjectNamespaced(obj runtime.Object) (bool, error) {
	k, err := c.kindOf(obj)
	if err != nil {
		return false, err
	}
	return k.Namespaced, nil
}

// scopedNamespace is the namespace the request URL carries: none for a
// cluster-scoped kind (controller-runtime's NamespaceIfScoped).
func (c *Client) scopedNamespace(obj client.Object) string {
	if k, err := c.server.Kind(obj); err == nil && !k.Namespaced {
		return ""
	}
	return obj.GetNamespace()
}

type subResourceClient struct {
	c   *Client
	sub string
}

func (s *subResourceClient) Get(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceGetOption) error {
	return fmt.Errorf("ctrlsim: get of subresource %q is not supported by the apiserver model", s.sub)
}

func (s *subResourceClient) Create(ctx context.Context, obj, subResource client.Object, opts ...client.SubResourceCreateOption) error {
	return fmt.Errorf("ctrlsim: create of subresource %q is not supported by the apiserver model", s.sub)
}

func (s *subResourceClient) Update(ctx context.Context, obj client.Object, opts ...client.SubResourceUpdateOption) error {
	if s.c.isForm(obj) {
		return s.updateForm(ctx, obj, opts...)
	}
	o := (&client.SubResourceUpdateOptions{}).ApplyOptions(opts)
	c := s.c
	call := Call{Verb: "update", Subresource: s.sub, Object: obj, Namespace: obj.GetNamespace(), Name: obj.GetName(), DryRun: len(o.DryRun) > 0}
	defer keepTypeMeta(obj)()
	return c.do(call, func() error {
		if o.SubResourceBody != nil {
			return fmt.Errorf("ctrlsim: a subresource body is not supported by the apiserver model")
		}
		if err := c.preflight(obj, "update", c.scopedNamespace(obj), obj.GetName()); err != nil {
			return err
		}
		return c.server.UpdateWith(c.user, obj, s.sub, apiserver.WriteOptions{FieldManager: c.owner(o.FieldManager), DryRun: o.DryRun})
	})
}

func (s *subResourceClient) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
	o := (&client.SubResourcePatchOptions{}).ApplyOptions(opts)
	if o.SubResourceBody != nil {
		return fmt.Errorf("ctrlsim: a subresource body is not supported by the apiserver model")
	}
	if s.c.isForm(obj) {
		return s.c.patchForm(ctx, obj, p, s.sub, &o.PatchOptions)
	}
	return s.c.patch(ctx, obj, obj, p, s.sub, &o.PatchOptions)
}

func (s *subResourceClient) Apply(ctx context.Context, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
	o := (&client.SubResourceApplyOptions{}).ApplyOpts(opts)
	body := obj
	if o.SubResourceBody != nil {
		body = o.SubResourceBody
	}
	return s.c.apply(ctx, obj, body, s.sub, &o.ApplyOptions)
}

// mappers are the REST mappers built so far, by the served kinds (the
// server's KindsKey): a mapper is read-only once built, and every world of an
// exploration serves the same kinds, so building one per client was a
// twentieth of the allocations of exploring the catalogue (and spelling out
// the key each time a tenth of a small operator's). Bounded: past maxMappers
// kind sets it builds afresh.
var mappers = struct {
	sync.Mutex
	m map[string]meta.RESTMapper
}{m: map[string]meta.RESTMapper{}}

const maxMappers = 256

// restMapper maps every kind the server serves, with its scope.
func restMapper(s *apiserver.Server) meta.RESTMapper {
	key := s.KindsKey()
	mappers.Lock()
	defer mappers.Unlock()
	if m, ok := mappers.m[key]; ok {
		return m
	}
	m := newRESTMapper(s.Kinds())
	if len(mappers.m) < maxMappers {
		mappers.m[key] = m
	}
	return m
}

// newRESTMapper maps kinds with their scopes.
func newRESTMapper(kinds []*apiserver.Kind) meta.RESTMapper {
	var gvs []schema.GroupVersion
	seen := map[schema.GroupVersion]bool{}
	for _, k := range kinds {
		if gv := k.GVK.GroupVersion(); !seen[gv] {
			seen[gv] = true
			gvs = append(gvs, gv)
		}
	}
	m := meta.NewDefaultRESTMapper(gvs)
	for _, k := range kinds {
		scope := meta.RESTScopeRoot
		if k.Namespaced {
			scope = meta.RESTScopeNamespace
		}
		plural := k.GVK.GroupVersion().WithResource(k.Resource)
		singular := k.GVK.GroupVersion().WithResource(lower(k.GVK.Kind))
		m.AddSpecific(k.GVK, plural, singular, scope)
	}
	return m
}

func lower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
