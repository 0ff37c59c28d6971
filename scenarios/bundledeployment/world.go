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
	"sigs.k8s.io/controller-runtime/pkg/client"

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
				mgr := p.Manager()
				nc := &kube.NamespaceController{
					Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: p.Clock(),
					Content:        []client.ObjectList{&corev1.ConfigMapList{}, &appsv1.DeploymentList{}},
					MinTerminating: o.Termination,
				}
				return nc.SetupWithManager(mgr)
			}},
			{Name: Rukpak, Setup: func(p *process.Process) error { return setupRukpak(p, o.Variant) }},
		},
		Setup:   func(c *cluster.Cluster) error { return setup(c, o) },
		Actions: actions,
	}
}

// setupRukpak is rukpak's main: the controller's own SetupWithManager, whose
// dependent watches the reconciler adds with the controller's Watch after
// each successful install.
func setupRukpak(p *process.Process, v variant.Variant) error {
	mgr := p.Manager()
	r := &bdc.Reconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: p.Clock(), Variant: v,
		Storage: storage{}, ReleaseNamespace: ReleaseNamespace,
	}
	return r.SetupWithManager(mgr)
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
