package clusterextension

import (
	"fmt"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ce "github.com/ctrlsim/ctrlsim/controllers/clusterextension"
	"github.com/ctrlsim/ctrlsim/controllers/clusterextension/bundletest"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/catalog"
	"github.com/ctrlsim/ctrlsim/models/helm"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/check"
)

// The world's names.
const (
	ProcessName      = "operator-controller" // the operator pod
	SystemNamespace  = "olmv1-system"        // where it runs
	ServiceAccount   = "operator-controller" // its identity
	InstallNamespace = "op-system"           // the extension's install (and release) namespace
	ExtensionName    = "op"                  // the ClusterExtension, and the helm release name
	PackageName      = bundletest.PackageName
	CatalogName      = "operatorhubio"
)

// Scheme is client-go's scheme with ClusterExtension and ClusterCatalog.
func Scheme() *runtime.Scheme { return catalogue.NewScheme(ce.AddToScheme) }

// sharedScheme is one Scheme for every world: a scheme is only read once built,
// and building client-go's costs more than a short run of this world.
var sharedScheme = sync.OnceValue(Scheme)

// Bundle returns the content of package op at a version (bundletest.Bundle).
func Bundle(version string) catalog.Bundle { return bundletest.Bundle(version) }

// Options choose the controller and the catalog's starting content.
type Options struct {
	Variant variant.Variant
	// Published are the versions in the catalog from the start; default 1.0.0 and
	// 2.0.0. Others appear with the publish action.
	Published []string
	// VersionRange is the ClusterExtension's spec.source.catalog.version at the
	// start; default "1.0.0".
	VersionRange string
	// Installed, when set, is a version already installed when the run starts, as
	// an earlier incarnation of the operator left it (see seedObjects); "" is a
	// fresh cluster where the operator's first reconcile installs.
	Installed string
}

// withDefaults fills what o leaves unset.
func (o Options) withDefaults() Options {
	if o.Published == nil {
		o.Published = []string{"1.0.0", "2.0.0"}
	}
	if o.VersionRange == "" {
		o.VersionRange = "1.0.0"
	}
	return o
}

// Observer is what the API server committed, in order, as a test watching
// it would see it: the bundle versions the release was deployed at, and
// every value of the extension's status.install.
type Observer struct {
	// Deployed is the bundle version of each revision when it became deployed, in
	// commit order.
	Deployed []string
	// Installs is every distinct successive status.install bundle version of the
	// ClusterExtension ("" for none).
	Installs []string
	deployed map[string]bool
}

// Observe reads an observer from a run's log of committed changes to
// Secrets and ClusterExtensions.
func Observe(r *check.Run) (*Observer, error) {
	o := &Observer{deployed: map[string]bool{}}
	for _, ev := range r.Log {
		switch ev.GVK {
		case corev1.SchemeGroupVersion.WithKind("Secret"):
			l := ev.Object.GetLabels()
			if ev.Type == watch.Deleted || l["owner"] != "helm" || l["status"] != string(helm.StatusDeployed) || o.deployed[ev.Object.GetName()] {
				continue
			}
			sec, ok := ev.Object.(*corev1.Secret)
			if !ok {
				return nil, fmt.Errorf("a Secret in the log is a %T", ev.Object)
			}
			rel, err := helm.ReleaseOf(sec)
			if err != nil {
				return nil, err
			}
			o.deployed[ev.Object.GetName()] = true
			o.Deployed = append(o.Deployed, rel.Labels[ce.BundleVersionLabel])
		case ce.ClusterExtensionGVK:
			ext, ok := ev.Object.(*ce.ClusterExtension)
			if !ok {
				return nil, fmt.Errorf("a ClusterExtension in the log is a %T", ev.Object)
			}
			v := ""
			if ext.Status.Install != nil {
				v = ext.Status.Install.Bundle.Version
			}
			if n := len(o.Installs); n == 0 || o.Installs[n-1] != v {
				o.Installs = append(o.Installs, v)
			}
		}
	}
	return o, nil
}

// Reader reads the cluster's objects: an operatortest.History (a run's
// final state), or a client.
type Reader interface {
	Get(key client.ObjectKey, obj client.Object) error
	List(list client.ObjectList, opts ...client.ListOption) error
}

// Record is one release record: revision, status and bundle version.
type Record struct {
	Version int
	Status  helm.Status
	Bundle  string
}

func (r Record) String() string { return fmt.Sprintf("v%d=%s(%s)", r.Version, r.Status, r.Bundle) }

// Records are the release records of op, oldest first.
func Records(c Reader) ([]Record, error) {
	var list corev1.SecretList
	if err := c.List(&list, client.InNamespace(InstallNamespace), client.MatchingLabels{"owner": "helm", "name": ExtensionName}); err != nil {
		return nil, err
	}
	var out []Record
	for i := range list.Items {
		rel, err := helm.ReleaseOf(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out = append(out, Record{Version: rel.Version, Status: rel.Info.Status, Bundle: rel.Labels[ce.BundleVersionLabel]})
	}
	slices.SortFunc(out, func(a, b Record) int { return a.Version - b.Version })
	return out, nil
}

// Extension is the ClusterExtension op now.
func Extension(c Reader) (*ce.ClusterExtension, error) {
	var ext ce.ClusterExtension
	return &ext, c.Get(client.ObjectKey{Name: ExtensionName}, &ext)
}

// Progressing is the message of the extension's Progressing condition.
func Progressing(ext *ce.ClusterExtension) string {
	if c := apimeta.FindStatusCondition(ext.Status.Conditions, ce.TypeProgressing); c != nil {
		return c.Message
	}
	return ""
}

// InstalledVersion is status.install.bundle.version, or "".
func InstalledVersion(ext *ce.ClusterExtension) string {
	if ext.Status.Install == nil {
		return ""
	}
	return ext.Status.Install.Bundle.Version
}
