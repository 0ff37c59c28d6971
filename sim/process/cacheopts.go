package process

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/informer"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// CheckOptions reports the manager.Options a simulated process cannot honour,
// in one error naming each, or nil. Honoured: Cache.DefaultNamespaces,
// Cache.ByObject (Namespaces, Label, Field, Transform), Cache.Default{Label,
// Field}Selector and DefaultTransform, Client.Cache.DisableFor,
// Unstructured and EnableReadYourWritesConsistency (controller-runtime's own
// client then: ryw.go), Controller (the controllers' defaults), the leader election
// fields (see LeaderElectionFrom), WebhookServer. Accepted with no effect, as
// they change nothing a controller can observe here: Scheme (the world's scheme
// types every process), Logger (lines go to the trace), Metrics, health probes,
// pprof, the Cache's and Client's HTTPClient, Scheme, Mapper and Log,
// EnableWatchBookmarks.
func CheckOptions(o manager.Options) error {
	var bad []string
	refuse := func(set bool, name, why string) {
		if set {
			bad = append(bad, name+" ("+why+")")
		}
	}
	refuse(o.NewCache != nil, "NewCache", "the simulator builds the process's cache")
	refuse(o.NewClient != nil, "NewClient", "the simulator builds the process's client")
	refuse(o.MapperProvider != nil, "MapperProvider", "the simulator maps the served kinds")
	refuse(o.BaseContext != nil, "BaseContext", "not modelled")
	refuse(o.EventBroadcaster != nil, "EventBroadcaster", "the simulator records Events")
	refuse(o.GracefulShutdownTimeout != nil, "GracefulShutdownTimeout", "no graceful shutdown is modelled")
	refuse(o.LeaderElectionResourceLock != "" && o.LeaderElectionResourceLock != "leases", "LeaderElectionResourceLock", "only Leases are modelled")
	refuse(o.LeaderElectionResourceLockInterface != nil, "LeaderElectionResourceLockInterface", "only Leases are modelled")
	refuse(o.LeaderElectionConfig != nil, "LeaderElectionConfig", "the Lease calls are the process's own")
	refuse(o.LeaderElectionReleaseOnCancel, "LeaderElectionReleaseOnCancel", "not modelled")
	refuse(len(o.LeaderElectionLabels) > 0, "LeaderElectionLabels", "not modelled")
	c := o.Cache
	refuse(c.SyncPeriod != nil, "Cache.SyncPeriod", "informers never resync here")
	refuse(c.ReaderFailOnMissingInformer, "Cache.ReaderFailOnMissingInformer", "not modelled")
	refuse(c.DefaultWatchErrorHandler != nil, "Cache.DefaultWatchErrorHandler", "watches never fail here")
	refuse(ptr.Deref(c.DefaultUnsafeDisableDeepCopy, false), "Cache.DefaultUnsafeDisableDeepCopy", "reads are always copies")
	refuse(c.NewInformer != nil, "Cache.NewInformer", "the simulator builds informers")
	for ns, cfg := range c.DefaultNamespaces { // lint:order-independent messages sorted below
		refuseConfig(refuse, fmt.Sprintf("Cache.DefaultNamespaces[%q]", ns), cfg)
	}
	for obj, b := range c.ByObject { // lint:order-independent messages sorted below
		name := fmt.Sprintf("Cache.ByObject[%T]", obj)
		refuse(b.SyncPeriod != nil, name+".SyncPeriod", "informers never resync here")
		refuse(ptr.Deref(b.UnsafeDisableDeepCopy, false), name+".UnsafeDisableDeepCopy", "reads are always copies")
		for ns, cfg := range b.Namespaces { // lint:order-independent messages sorted below
			refuseConfig(refuse, fmt.Sprintf("%s.Namespaces[%q]", name, ns), cfg)
		}
	}
	if f := c.DefaultFieldSelector; f != nil {
		for _, r := range f.Requirements() {
			refuse(r.Field != "metadata.name" && r.Field != "metadata.namespace", "Cache.DefaultFieldSelector "+f.String(),
				"field label not supported for every kind: "+r.Field)
		}
	}
	if cc := o.Client.Cache; cc != nil {
		refuse(cc.Reader != nil, "Client.Cache.Reader", "the process's cache is the reader")
	}
	refuse(o.Client.FieldValidation != "", "Client.FieldValidation", "not modelled")
	if len(bad) == 0 {
		return nil
	}
	slices.Sort(bad)
	return errors.New("ctrlsim: manager.Options the simulator does not honour: " + strings.Join(bad, "; "))
}

func refuseConfig(refuse func(bool, string, string), name string, cfg cache.Config) {
	refuse(cfg.SyncPeriod != nil, name+".SyncPeriod", "informers never resync here")
	refuse(ptr.Deref(cfg.UnsafeDisableDeepCopy, false), name+".UnsafeDisableDeepCopy", "reads are always copies")
}

// LeaderElectionFrom is the election Options ask for (LeaderElection true):
// the Lease LeaderElectionNamespace/LeaderElectionID (the namespace defaults to
// defaultNamespace, as a manager outside a cluster needs it set and one inside
// takes its pod's), and the durations. Nil when Options elect no leader.
func LeaderElectionFrom(o manager.Options, defaultNamespace string) (*LeaderElection, error) {
	if !o.LeaderElection {
		return nil, nil
	}
	if o.LeaderElectionID == "" {
		return nil, errors.New("LeaderElectionID must be configured") // controller-runtime's message
	}
	le := &LeaderElection{Namespace: o.LeaderElectionNamespace, Name: o.LeaderElectionID,
		LeaseDuration: ptr.Deref(o.LeaseDuration, 0), RenewDeadline: ptr.Deref(o.RenewDeadline, 0), RetryPeriod: ptr.Deref(o.RetryPeriod, 0)}
	if le.Namespace == "" {
		le.Namespace = defaultNamespace
	}
	return le, nil
}

// cacheOptions is what a process's cache and client make of its Options.
type cacheOptions struct {
	manager    manager.Options
	p          *Process
	o          cache.Options
	byObject   map[schema.GroupVersionKind]cache.ByObject
	disableFor map[schema.GroupVersionKind]bool
}

func newCacheOptions(p *Process, o manager.Options) (*cacheOptions, error) {
	co := &cacheOptions{p: p, o: o.Cache, byObject: map[schema.GroupVersionKind]cache.ByObject{}, disableFor: map[schema.GroupVersionKind]bool{}}
	scheme := p.GetScheme()
	for obj, b := range o.Cache.ByObject { // lint:order-independent a map keyed by kind
		gvk, err := apiutil.GVKForObject(obj, scheme)
		if err != nil {
			return nil, fmt.Errorf("failed to get GVK for type %T: %w", obj, err)
		}
		k, ok := p.env.Server.KindFor(gvk)
		if !ok {
			return nil, fmt.Errorf("failed to determine if %T is namespaced: no matches for kind %q in version %q", obj, gvk.Kind, gvk.GroupVersion())
		}
		if !k.Namespaced && b.Namespaces != nil {
			return nil, fmt.Errorf("type %T is not namespaced, but its ByObject.Namespaces setting is not nil", obj)
		}
		var sels []fields.Selector
		sels = append(sels, b.Field, o.Cache.DefaultFieldSelector)
		for _, cfg := range b.Namespaces { // lint:order-independent each checked alone
			sels = append(sels, cfg.FieldSelector)
		}
		for _, f := range sels {
			if f == nil {
				continue
			}
			for _, r := range f.Requirements() {
				if !k.SupportsField(r.Field) {
					// The informer's list would be a 400 forever: the manager never starts.
					return nil, fmt.Errorf("Cache.ByObject[%T]: field label not supported: %s", obj, r.Field)
				}
			}
		}
		co.byObject[gvk] = b
	}
	if cc := o.Client.Cache; cc != nil {
		for _, obj := range cc.DisableFor {
			gvk, err := apiutil.GVKForObject(obj, scheme)
			if err != nil {
				return nil, err
			}
			co.disableFor[gvk] = true
		}
	}
	return co, nil
}

// uncached reports whether the client reads gvk from the apiserver
// (Client.Cache.DisableFor).
func (co *cacheOptions) uncached(gvk schema.GroupVersionKind) bool { return co.disableFor[gvk] }

// filter is what the informers of gvk cache, resolved as controller-runtime's
// cache.New and defaultOpts resolve Options: a ByObject entry's namespaces
// (its own, else DefaultNamespaces), each namespace's selectors defaulted from
// the ByObject's, then from DefaultNamespaces' entry, then from the Default*
// options; without a ByObject entry, DefaultNamespaces defaulted from the
// Default* options; a namespace "" entry caches every namespace not listed.
func (co *cacheOptions) filter(gvk schema.GroupVersionKind, _ bool) *informer.Filter {
	global := cache.Config{LabelSelector: co.o.DefaultLabelSelector, FieldSelector: co.o.DefaultFieldSelector, Transform: co.o.DefaultTransform}
	k, ok := co.p.env.Server.KindFor(gvk)
	if !ok {
		return nil
	}
	namespaced := k.Namespaced
	f := &informer.Filter{Fields: k.Fields}
	b, has := co.byObject[gvk]
	own := cache.Config{LabelSelector: b.Label, FieldSelector: b.Field, Transform: b.Transform}
	namespaces := co.o.DefaultNamespaces
	if has && b.Namespaces != nil {
		namespaces = b.Namespaces
	}
	if !namespaced || len(namespaces) == 0 {
		f.All = selectors(defaulted(own, global))
	} else {
		f.Namespaces = map[string]informer.Selectors{}
		for ns, cfg := range namespaces { // lint:order-independent a map keyed by namespace
			if has {
				cfg = defaulted(cfg, own)
			}
			if d, ok := co.o.DefaultNamespaces[ns]; ok {
				cfg = defaulted(cfg, d)
			}
			f.Namespaces[ns] = selectors(defaulted(cfg, global))
		}
	}
	if f.Namespaces == nil && f.All.Label == nil && f.All.Field == nil && f.All.Transform == nil {
		return nil
	}
	return f
}

func defaulted(c, from cache.Config) cache.Config {
	if c.LabelSelector == nil {
		c.LabelSelector = from.LabelSelector
	}
	if c.FieldSelector == nil {
		c.FieldSelector = from.FieldSelector
	}
	if c.Transform == nil {
		c.Transform = from.Transform
	}
	return c
}

func selectors(c cache.Config) informer.Selectors {
	return informer.Selectors{Label: c.LabelSelector, Field: c.FieldSelector, Transform: c.Transform}
}

// applyOptions turns the process's Options into its cache's and client's
// options (nil Options: none).
func (p *Process) applyOptions(cacheOpts *[]informer.Option, clientOpts *kubeclient.Options) (*cacheOptions, error) {
	o := p.spec.Options
	if o == nil {
		return nil, nil
	}
	if err := CheckOptions(*o); err != nil {
		return nil, err
	}
	co, err := newCacheOptions(p, *o)
	if err != nil {
		return nil, err
	}
	co.manager = *o
	*cacheOpts = append(*cacheOpts, informer.WithFilter(co.filter))
	clientOpts.Uncached = co.uncached
	// controller-runtime's client reads Unstructured objects live unless
	// Client.Cache.Unstructured is set.
	clientOpts.UncachedUnstructured = o.Client.Cache == nil || !o.Client.Cache.Unstructured
	clientOpts.FieldOwner = o.Client.FieldOwner
	return co, nil
}
