package bundledeployment

import (
	"context"
	"sync"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bdc "github.com/ctrlsim/ctrlsim/controllers/bundledeployment"
	"github.com/ctrlsim/ctrlsim/controllers/bundledeployment/bundletest"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// The world's names.
const (
	Rukpak           = "rukpak"        // the rukpak core pod (plain provisioner)
	ReleaseNamespace = "rukpak-system" // holds the release records
	Example          = "example"       // the BundleDeployment (and its release, and its namespace)
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

// ControllerName is the rukpak controller's name.
var ControllerName = (&bdc.Reconciler{}).ControllerName()

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
