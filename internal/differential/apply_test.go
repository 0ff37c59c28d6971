package differential

import (
	"context"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// applyEntry is one managedFields entry without its time (the model's is the
// virtual clock's), and whether it has one.
type applyEntry struct {
	Manager, Operation, APIVersion, Subresource, Fields string
	HasTime                                             bool
}

// applyOutcome is what one write gave: the error, or the written object's
// content and managedFields.
type applyOutcome struct {
	Err     string
	Content string
	Managed []applyEntry
}

// timeRE matches the RFC 3339 time a conflict with an Update manager names.
var timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)

func applyResult(o client.Object, content any, err error) applyOutcome {
	if err != nil {
		e := errOutcome(err)
		e.Err = timeRE.ReplaceAllString(e.Err, "<time>")
		return applyOutcome{Err: e.Err + " " + cmp.Diff(nil, e.Causes)}
	}
	out := applyOutcome{Content: cmp.Diff(nil, content)}
	for _, e := range o.GetManagedFields() {
		ae := applyEntry{Manager: e.Manager, Operation: string(e.Operation), APIVersion: e.APIVersion, Subresource: e.Subresource, HasTime: e.Time != nil}
		if e.FieldsV1 != nil {
			ae.Fields = string(e.FieldsV1.Raw)
		}
		out.Managed = append(out.Managed, ae)
	}
	// kube-apiserver orders the entries by operation, then by the second
	// each was written in, then by manager and subresource: on envtest two
	// applies a moment apart can fall in two wall-clock seconds, in the
	// model's one virtual second. Compared in the order they would have
	// were their seconds the same (seen: bob before alice on envtest).
	slices.SortStableFunc(out.Managed, func(a, b applyEntry) int {
		key := func(e applyEntry) string { return e.Operation + "\x00" + e.Manager + "\x00" + e.Subresource }
		return strings.Compare(key(a), key(b))
	})
	return out
}

func applyU(ctx context.Context, c client.Client, manifest, owner string, force bool, sub string) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(manifest), &u.Object); err != nil {
		panic(err)
	}
	opts := []client.PatchOption{client.FieldOwner(owner)}
	if force {
		opts = append(opts, client.ForceOwnership)
	}
	if sub != "" {
		sopts := []client.SubResourcePatchOption{client.FieldOwner(owner)}
		if force {
			sopts = append(sopts, client.ForceOwnership)
		}
		return u, c.Status().Patch(ctx, u, client.Apply, sopts...) //nolint:staticcheck // the apply patch is what operators send
	}
	return u, c.Patch(ctx, u, client.Apply, opts...) //nolint:staticcheck
}

func runApplyOps(c client.Client) []applyOutcome {
	ctx := context.Background()
	cm := func(data string) string {
		return `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"default"},"data":` + data + `}`
	}
	uo := func(u *unstructured.Unstructured, err error) applyOutcome {
		status := u.Object["status"]
		if m, ok := status.(map[string]any); ok && len(m) == 0 {
			// A typed custom resource's empty status struct is {} on the
			// model, absent on kube-apiserver: the apiserver package's known
			// gap (TestKnownGapCustomResourceZeroValuesAreWrites), not apply's.
			status = nil
		}
		return applyResult(u, []any{u.Object["data"], u.Object["spec"], status, u.GetLabels()}, err)
	}
	deploy := `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},"spec":{"replicas":2,"selector":{"matchLabels":{"app":"d"}},"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"c","image":"i:1"}]}}}}`
	widget := func(spec string) string {
		return `{"apiVersion":"test.ctrlsim.dev/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"spec":` + spec + `}`
	}
	ops := []func() applyOutcome{
		// apply creates a missing object
		func() applyOutcome { return uo(applyU(ctx, c, cm(`{"a":"1","b":"2"}`), "alice", false, "")) },
		// another manager's value for a field alice owns conflicts
		func() applyOutcome { return uo(applyU(ctx, c, cm(`{"a":"9"}`), "bob", false, "")) },
		// force takes it over
		func() applyOutcome { return uo(applyU(ctx, c, cm(`{"a":"9"}`), "bob", true, "")) },
		// alice stops applying b: it is removed; a, which bob owns now, stays
		func() applyOutcome { return uo(applyU(ctx, c, cm(`{"c":"3"}`), "alice", false, "")) },
		// an update records its field manager's Update entry
		func() applyOutcome {
			o := &corev1.ConfigMap{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "c"}, o); err != nil {
				return applyResult(o, nil, err)
			}
			o.Data["a"] = "10"
			err := c.Update(ctx, o, client.FieldOwner("carol"))
			return applyResult(o, o.Data, err)
		},
		// bob applies his old value again: carol's Update owns it now, the conflict names her
		func() applyOutcome { return uo(applyU(ctx, c, cm(`{"a":"9"}`), "bob", false, "")) },
		// a merge patch with no field manager is the User-Agent's
		func() applyOutcome {
			o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}}
			err := c.Patch(ctx, o, client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"labels":{"l":"v"}}}`)))
			return applyResult(o, []any{o.Data, o.Labels}, err)
		},
		// controller-runtime's Apply with a typed apply configuration
		func() applyOutcome {
			ac := corev1ac.ConfigMap("c2", "default").WithData(map[string]string{"x": "1"})
			err := c.Apply(ctx, ac, client.FieldOwner("dave"))
			o := &corev1.ConfigMap{}
			if err == nil {
				err = c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "c2"}, o)
			}
			return applyResult(o, o.Data, err)
		},
		// a built-in kind with defaults, then its status subresource
		func() applyOutcome { return uo(applyU(ctx, c, deploy, "op", false, "")) },
		func() applyOutcome {
			return uo(applyU(ctx, c, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"default"},"status":{"replicas":1}}`, "st", false, "status"))
		},
		// a status apply of a missing object is a 404
		func() applyOutcome {
			return uo(applyU(ctx, c, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"none","namespace":"default"},"status":{"replicas":1}}`, "st", false, "status"))
		},
		// a custom resource: its schema's types (tags is a map)
		func() applyOutcome {
			return uo(applyU(ctx, c, widget(`{"size":3,"tags":{"a":"x"}}`), "alice", false, ""))
		},
		func() applyOutcome { return uo(applyU(ctx, c, widget(`{"tags":{"b":"y"}}`), "bob", false, "")) },
		func() applyOutcome { return uo(applyU(ctx, c, widget(`{"size":4}`), "bob", false, "")) },
		func() applyOutcome { return uo(applyU(ctx, c, widget(`{"size":4}`), "bob", true, "")) },
		func() applyOutcome {
			return uo(applyU(ctx, c, `{"apiVersion":"test.ctrlsim.dev/v1","kind":"Widget","metadata":{"name":"w","namespace":"default"},"status":{"phase":"Ready"}}`, "st", false, "status"))
		},
		// refusals: no field manager; force on a non-apply patch
		func() applyOutcome { return uo(applyU(ctx, c, cm(`{"a":"1"}`), "", false, "")) },
		func() applyOutcome {
			o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "c"}}
			err := c.Patch(ctx, o, client.RawPatch("application/merge-patch+json", []byte(`{}`)), client.ForceOwnership)
			return applyResult(o, nil, err)
		},
		// a no-op apply writes nothing: the resourceVersion stays
		func() applyOutcome {
			before := &appsv1.Deployment{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "d"}, before); err != nil {
				return applyResult(before, nil, err)
			}
			u, err := applyU(ctx, c, deploy, "op", false, "")
			same := err == nil && u.GetResourceVersion() == before.ResourceVersion
			return applyResult(u, same, err)
		},
	}
	var out []applyOutcome
	for _, op := range ops {
		out = append(out, op())
	}
	return out
}

// Server-side apply on the model is kube-apiserver's: creation of a missing
// object, conflicts (409 naming the manager and field), force, removal of
// fields an applier stops applying, status applies, the refusals, and the
// managedFields every write leaves (managers, operations, versions,
// subresources and field sets; times apart), for a built-in kind and a custom
// resource.
func TestServerSideApplyMatchesKubeAPIServer(t *testing.T) {
	assets, err := assetsFromEnv()
	if err != nil {
		needReal(t)
		return
	}
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(apiservertest.WidgetManifest), &def); err != nil {
		t.Fatal(err)
	}
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: Scheme, Definitions: []*apiextensionsv1.CustomResourceDefinition{&def}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()

	crds, err := apiserver.CRDsFromYAML([]byte(apiservertest.WidgetManifest))
	if err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Scheme: Scheme, Clock: clock.New(clock.Epoch), CRDs: crds})
	s.CreateDefaultNamespaces()
	// The model's client sends the User-Agent envtest's client sends (its
	// prefix is the default field manager).
	u := apiserver.Admin
	u.Agent = rest.DefaultKubernetesUserAgent()
	model := kubeclient.New(s, u, kubeclient.Options{})

	got, want := runApplyOps(model), runApplyOps(env.Admin)
	for i := range want {
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("op %d: model (+) vs kube-apiserver (-):\n%s", i, d)
		}
	}
	if want[0].Err != "" || want[1].Err == "" || want[2].Err != "" || want[16].Err == "" || want[17].Err == "" {
		t.Errorf("kube-apiserver: %+v: the cases do not test what they say", want)
	}
}
