package bundledeployment

import (
	"context"
	"fmt"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	bdc "github.com/ctrlsim/ctrlsim/controllers/bundledeployment"
	"github.com/ctrlsim/ctrlsim/controllers/bundledeployment/bundletest"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// The world's names.
const (
	Rukpak                = "rukpak" // the rukpak core pod (plain provisioner)
	KubeControllerManager = "kube-controller-manager"
	ReleaseNamespace      = "rukpak-system" // holds the release records
	Example               = "example"       // the BundleDeployment (and its release, and its namespace)
)

// The bundles and messages of the world, shared with the controller's envtest
// suite (controllers/bundledeployment/bundletest).
const (
	Broken            = bundletest.Broken
	V1                = bundletest.V1
	V2                = bundletest.V2
	InvalidAnnotation = bundletest.InvalidAnnotation
	RootCause         = bundletest.RootCause
	Transient         = bundletest.Transient
)

// Content is the bundle ref templated for BundleDeployment n (bundletest.Content).
func Content(ref, n string) ([]client.Object, error) { return bundletest.Content(ref, n) }

// NewBundleDeployment is bundletest.NewBundleDeployment.
func NewBundleDeployment(name, ref string) *bdc.BundleDeployment {
	return bundletest.NewBundleDeployment(name, ref)
}

// DefaultTermination is T_term, how long a deleted namespace stays
// Terminating (SEEDS.md Seed 1, scenario: 8 s).
const DefaultTermination = 8 * time.Second

// Options describe a world.
type Options struct {
	Variant variant.Variant
	// Termination is T_term: the namespace controller keeps a deleted
	// namespace Terminating at least this long (MinTerminating). Default
	// DefaultTermination.
	Termination time.Duration
	// Bundle is the bundle BundleDeployment example starts with; default
	// Broken. With V1 it installs, and the upgrade action moves it to V2.
	Bundle string
	// Failing adds that many BundleDeployments failing-0, ... with the broken
	// bundle (each in its own namespace).
	Failing int
}

func (o Options) withDefaults() Options {
	if o.Variant == "" {
		o.Variant = variant.Buggy
	}
	if o.Termination == 0 {
		o.Termination = DefaultTermination
	}
	if o.Bundle == "" {
		o.Bundle = Broken
	}
	return o
}

// Scheme has client-go's types and BundleDeployment.
func Scheme() *runtime.Scheme { return catalogue.NewScheme(bdc.AddToScheme) }

// sharedScheme is the one scheme every world of this package uses.
var sharedScheme = sync.OnceValue(Scheme)

// BundleDeploymentCRD installs BundleDeployment (cluster-scoped, status
// subresource).
var BundleDeploymentCRD = apiserver.CRD{GVK: bdc.BundleDeploymentGVK, Plural: bdc.BundleDeploymentPlural, Status: true}

// BundleDeploymentKind is BundleDeployment as plans name kinds.
var BundleDeploymentKind = cluster.KindName(bdc.BundleDeploymentGVK)

// ControllerName is the rukpak controller's name.
var ControllerName = (&bdc.Reconciler{}).ControllerName()

// dependents are the kinds the bundles contain: the kinds rukpak may come to
// watch dynamically.
func dependents() []client.Object {
	return []client.Object{&corev1.Namespace{}, &corev1.ConfigMap{}, &appsv1.Deployment{}}
}

// World is the world of o: kube-controller-manager running the namespace
// controller (cluster admin) and rukpak running the BundleDeployment
// controller of o.Variant (cluster admin, as rukpak's `*` ClusterRole allows),
// the release namespace and the BundleDeployments.
func World(o Options) cluster.Options {
	o = o.withDefaults()
	return cluster.Options{
		Scheme: sharedScheme(),
		CRDs:   []apiserver.CRD{BundleDeploymentCRD},
		Processes: []process.Spec{
			{Name: KubeControllerManager, Setup: func(p *process.Process) error {
				nc := &kube.NamespaceController{
					Client: staticMapper(p), APIReader: p.GetAPIReader(), Clock: p.Clock(),
					Content:        []client.ObjectList{&corev1.ConfigMapList{}, &appsv1.DeploymentList{}},
					MinTerminating: o.Termination,
				}
				return register(p, nc.Controllers())
			}},
			{Name: Rukpak, Setup: func(p *process.Process) error { return setupRukpak(p, o.Variant) }},
		},
		Setup:   func(c *cluster.Cluster) error { return setup(c, o) },
		Actions: actions,
	}
}

// setupRukpak registers the controller as SetupWithManager does, with the
// dynamic watches of the dependent kinds registered up front behind a gate
// that Reconciler.Watcher opens kind by kind (the simulator cannot add a watch
// to a running controller).
func setupRukpak(p *process.Process, v variant.Variant) error {
	g := &gate{open: map[schema.GroupVersionKind]bool{}}
	r := &bdc.Reconciler{
		Client: staticMapper(p), APIReader: p.GetAPIReader(), Clock: p.Clock(), Variant: v,
		Storage: storage{}, ReleaseNamespace: ReleaseNamespace, Watcher: g,
	}
	b := p.NewControllerManagedBy().Named(r.ControllerName()).
		For(&bdc.BundleDeployment{}, r.ForPredicates()...).
		WithOptions(process.Options{MaxConcurrentReconciles: r.Workers(), RateLimiter: r.RateLimiter(), UsePriorityQueue: ptr.To(false)})
	h := r.DependentHandler(p.GetScheme(), p.GetRESTMapper())
	for _, obj := range dependents() {
		gvk, err := apiutil.GVKForObject(obj, p.GetScheme())
		if err != nil {
			return err
		}
		b = b.Watches(obj, g.handler(gvk, h), bdc.DependentPredicate())
	}
	return b.Complete(r)
}

// staticMapper is p's client with its RESTMapper built once: this world
// installs no CRD while it runs, and the simulator's client builds a new
// mapper on every RESTMapper call, which helm and the namespace controller
// make for every object they touch (half of a run's CPU otherwise).
func staticMapper(p *process.Process) client.Client {
	c := p.GetClient()
	return mapped{Client: c, mapper: c.RESTMapper()}
}

type mapped struct {
	client.Client
	mapper apimeta.RESTMapper
}

func (m mapped) RESTMapper() apimeta.RESTMapper { return m.mapper }

// gate is the dynamic watches of one process incarnation: a kind's events pass
// once the reconciler has asked to watch it.
type gate struct {
	open map[schema.GroupVersionKind]bool
}

func (g *gate) Watch(obj client.Object) error {
	g.open[obj.GetObjectKind().GroupVersionKind()] = true
	return nil
}

func (g *gate) handler(gvk schema.GroupVersionKind, h handler.EventHandler) handler.EventHandler {
	type q = workqueue.TypedRateLimitingInterface[reconcile.Request]
	return handler.Funcs{
		CreateFunc: func(ctx context.Context, e event.CreateEvent, w q) {
			if g.open[gvk] {
				h.Create(ctx, e, w)
			}
		},
		UpdateFunc: func(ctx context.Context, e event.UpdateEvent, w q) {
			if g.open[gvk] {
				h.Update(ctx, e, w)
			}
		},
		DeleteFunc: func(ctx context.Context, e event.DeleteEvent, w q) {
			if g.open[gvk] {
				h.Delete(ctx, e, w)
			}
		},
		GenericFunc: func(ctx context.Context, e event.GenericEvent, w q) {
			if g.open[gvk] {
				h.Generic(ctx, e, w)
			}
		},
	}
}

// register registers a model's controllers on p as their SetupWithManager
// does (client-go's classic queue, their rate limiters).
func register(p *process.Process, cs []kube.Controller) error {
	for _, c := range cs {
		b := p.NewControllerManagedBy().Named(c.Name).
			WithOptions(process.Options{MaxConcurrentReconciles: c.Workers, RateLimiter: c.RateLimiter, UsePriorityQueue: ptr.To(false)})
		for _, w := range c.Watches {
			b = b.Watches(w.Object, w.Handler, w.Predicates...)
		}
		if err := b.Complete(c.Reconciler); err != nil {
			return err
		}
	}
	return nil
}

// storage serves the bundles by image reference (rukpak's unpacked bundle
// storage and plain handler, collapsed into one lookup).
type storage struct{}

func (storage) Load(_ context.Context, bd *bdc.BundleDeployment) (*bdc.Bundle, error) {
	objs, err := Content(bd.Ref(), bd.Name)
	if err != nil {
		return nil, err
	}
	return &bdc.Bundle{Name: bd.Name + "-" + bd.Ref(), Objects: objs}, nil
}

var ctx = context.Background()

func setup(c *cluster.Cluster, o Options) error {
	a := c.Admin()
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ReleaseNamespace}},
		NewBundleDeployment(Example, o.Bundle),
	}
	for i := range o.Failing {
		objs = append(objs, NewBundleDeployment(fmt.Sprintf("failing-%d", i), Broken))
	}
	for _, obj := range objs {
		if err := a.Create(ctx, obj); err != nil {
			return err
		}
	}
	return nil
}

// actions are the workload steps of this world.
var actions = map[string]cluster.Action{
	// Example: at 20s upgrade bd=example bundle=v2
	"upgrade": cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
		name, ref := args.Get("bd"), args.Get("bundle")
		if name == "" {
			name = Example
		}
		if ref == "" {
			ref = V2
		}
		var bd bdc.BundleDeployment
		if err := c.Admin().Get(ctx, client.ObjectKey{Name: name}, &bd); err != nil {
			return err
		}
		patch := client.MergeFrom(bd.DeepCopy())
		bd.Spec.Template.Spec.Source.Image = &bdc.ImageSource{Ref: ref}
		return c.Admin().Patch(ctx, &bd, patch)
	}, "bd", "bundle"),
	// Example: at 30s create-bundledeployment name=healthy bundle=v1
	"create-bundledeployment": cluster.Act(func(c *cluster.Cluster, args plan.Args) error {
		ref := args.Get("bundle")
		if ref == "" {
			ref = V1
		}
		return c.Admin().Create(ctx, NewBundleDeployment(args.Get("name"), ref))
	}, "name", "bundle"),
}

// Installed is the Installed condition of a BundleDeployment, or nil.
func Installed(bd *bdc.BundleDeployment) *metav1.Condition {
	return apimeta.FindStatusCondition(bd.Status.Conditions, bdc.TypeInstalled)
}

// FailureMessage is the message of obj's Installed condition when it is not
// True, else "": what a user sees while the install keeps failing.
func FailureMessage(obj client.Object) string {
	bd, ok := obj.(*bdc.BundleDeployment)
	if !ok {
		return ""
	}
	if c := Installed(bd); c != nil && c.Status != metav1.ConditionTrue {
		return c.Message
	}
	return ""
}
