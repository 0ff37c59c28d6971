package helm

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Status is the status of a release record (helm pkg/release/status.go).
type Status string

// The statuses of helm v3.17.3.
const (
	StatusUnknown         Status = "unknown"
	StatusDeployed        Status = "deployed"
	StatusUninstalled     Status = "uninstalled"
	StatusSuperseded      Status = "superseded"
	StatusFailed          Status = "failed"
	StatusUninstalling    Status = "uninstalling"
	StatusPendingInstall  Status = "pending-install"
	StatusPendingUpgrade  Status = "pending-upgrade"
	StatusPendingRollback Status = "pending-rollback"
)

// IsPending reports whether the status is one of the pending-* statuses: an
// install, upgrade or rollback has recorded its new revision and not yet recorded
// its outcome.
func (s Status) IsPending() bool {
	return s == StatusPendingInstall || s == StatusPendingUpgrade || s == StatusPendingRollback
}

// Chart is what an install or upgrade renders: a name, a version and the objects
// of its templates (already rendered: a chart here has no templating or values).
type Chart struct {
	Name    string
	Version string
	Objects []client.Object
}

// ChartMetadata names the chart a release was made from.
type ChartMetadata struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// Info is the part of a release that changes over its life (helm pkg/release/info.go).
type Info struct {
	FirstDeployed time.Time `json:"first_deployed,omitzero"`
	LastDeployed  time.Time `json:"last_deployed,omitzero"`
	Deleted       time.Time `json:"deleted,omitzero"`
	Description   string    `json:"description,omitempty"`
	Status        Status    `json:"status"`
}

// Release is one revision of a release (helm pkg/release/release.go, reduced to
// what the actions use). It is stored as plain JSON in the record Secret.
type Release struct {
	Name      string        `json:"name"`
	Namespace string        `json:"namespace"`
	Version   int           `json:"version"` // the revision, from 1
	Info      Info          `json:"info"`
	Chart     ChartMetadata `json:"chart"`
	// Manifest is the rendered objects, one JSON document each, separated by
	// "\n---\n", in helm's install order.
	Manifest string `json:"manifest,omitempty"`
	// Labels are the custom storage labels (helm's Release.Labels, `json:"-"`):
	// they live only on the record Secret.
	Labels map[string]string `json:"-"`
	// Created is the record Secret's creationTimestamp (not part of helm's
	// Release): when this revision's operation started.
	Created time.Time `json:"-"`
}

// clone is a deep copy of r.
func (r *Release) clone() *Release {
	c := *r
	c.Labels = maps.Clone(r.Labels)
	return &c
}

// Objects decodes the manifest into typed objects of the scheme, in manifest
// order.
func (r *Release) Objects(scheme *runtime.Scheme) ([]client.Object, error) {
	return decodeManifest(scheme, r.Manifest)
}

// ChartOf is the chart a release was rendered from, rebuilt from its record: the
// bookkeeping that lets an interrupted operation be resumed even when its bundle
// is no longer available elsewhere.
func ChartOf(r *Release, scheme *runtime.Scheme) (*Chart, error) {
	objs, err := r.Objects(scheme)
	if err != nil {
		return nil, err
	}
	return &Chart{Name: r.Chart.Name, Version: r.Chart.Version, Objects: objs}, nil
}

const manifestSeparator = "\n---\n"

// serverFields are metadata fields the server sets; a manifest never carries them.
var serverFields = []string{"resourceVersion", "uid", "generation", "creationTimestamp", "deletionTimestamp",
	"deletionGracePeriodSeconds", "managedFields", "selfLink"}

// encodeObject is obj as a manifest document: apiVersion, kind, and the object's
// fields without server-set metadata or status. JSON of a map has sorted keys,
// so equal objects encode to equal documents.
func encodeObject(obj client.Object, gvk schema.GroupVersionKind) (string, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return "", err
	}
	u["apiVersion"], u["kind"] = gvk.GroupVersion().String(), gvk.Kind
	delete(u, "status")
	if md, ok := u["metadata"].(map[string]any); ok {
		for _, f := range serverFields {
			delete(md, f)
		}
	}
	b, err := json.Marshal(u)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// manifests are decoded manifests, by scheme and text: an exploration installs
// and upgrades the same few chart versions thousands of times, and decoding them
// was a twentieth of its allocations. Callers get deep copies. Bounded: past
// maxManifests texts it decodes afresh.
var manifests = struct {
	sync.Mutex
	m map[manifestKey][]client.Object
}{m: map[manifestKey][]client.Object{}}

type manifestKey struct {
	scheme   *runtime.Scheme
	manifest string
}

const maxManifests = 1024

// decodeManifest parses a manifest into typed objects with their GVK set.
func decodeManifest(scheme *runtime.Scheme, manifest string) ([]client.Object, error) {
	if manifest == "" {
		return nil, nil
	}
	key := manifestKey{scheme, manifest}
	manifests.Lock()
	objs, ok := manifests.m[key]
	manifests.Unlock()
	if !ok {
		var err error
		if objs, err = parseManifest(scheme, manifest); err != nil {
			return nil, err
		}
		manifests.Lock()
		if len(manifests.m) < maxManifests {
			manifests.m[key] = objs
		}
		manifests.Unlock()
	}
	out := make([]client.Object, len(objs))
	for i, o := range objs {
		out[i] = o.DeepCopyObject().(client.Object)
	}
	return out, nil
}

// parseManifest is decodeManifest without the cache.
func parseManifest(scheme *runtime.Scheme, manifest string) ([]client.Object, error) {
	var out []client.Object
	for doc := range strings.SplitSeq(manifest, manifestSeparator) {
		var u map[string]any
		if err := json.Unmarshal([]byte(doc), &u); err != nil {
			return nil, fmt.Errorf("corrupted release record: %w", err)
		}
		apiVersion, _ := u["apiVersion"].(string)
		kind, _ := u["kind"].(string)
		gvk := schema.FromAPIVersionAndKind(apiVersion, kind)
		ro, err := scheme.New(gvk)
		if err != nil {
			return nil, err
		}
		obj, ok := ro.(client.Object)
		if !ok {
			return nil, fmt.Errorf("%s is not an object", gvk)
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, obj); err != nil {
			return nil, err
		}
		obj.GetObjectKind().SetGroupVersionKind(gvk)
		out = append(out, obj)
	}
	return out, nil
}

// String is the status.
func (s Status) String() string { return string(s) }
