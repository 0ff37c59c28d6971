package differential

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

func gauge(name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetGroupVersionKind(apiservertest.GaugeGVK)
	u.SetNamespace("default")
	u.SetName(name)
	return u
}

// celOp is one write of a Gauge; it returns the stored spec or the error.
type celOp struct {
	name string
	do   func(ctx context.Context, c client.Client) (map[string]any, error)
}

func celCreate(name string, spec map[string]any) celOp {
	return celOp{"create " + name, func(ctx context.Context, c client.Client) (map[string]any, error) {
		u := gauge(name, spec)
		if err := c.Create(ctx, u); err != nil {
			return nil, err
		}
		return u.Object["spec"].(map[string]any), nil
	}}
}

func celUpdate(what, name string, set map[string]any) celOp {
	return celOp{what, func(ctx context.Context, c client.Client) (map[string]any, error) {
		u := gauge(name, nil)
		if err := c.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return nil, err
		}
		for k, v := range set { // lint:order-independent each key is set alone
			if err := unstructured.SetNestedField(u.Object, v, "spec", k); err != nil {
				return nil, err
			}
		}
		if err := c.Update(ctx, u); err != nil {
			return nil, err
		}
		return u.Object["spec"].(map[string]any), nil
	}}
}

var celOps = []celOp{
	celCreate("g1", map[string]any{"min": int64(3), "max": int64(2), "unit": "u1", "zone": "a"}),
	celCreate("g2", map[string]any{"min": int64(1), "max": int64(2), "unit": "x1", "zone": "a"}),
	celCreate("g3", map[string]any{"min": int64(3), "max": int64(2), "unit": "u123456789", "zone": "a"}),
	celCreate("g4", map[string]any{"min": int64(1), "max": int64(2), "unit": "u1", "zone": "a"}),
	celUpdate("update g4 zone", "g4", map[string]any{"zone": "b"}),
	celUpdate("update g4 min above max", "g4", map[string]any{"min": int64(5)}),
	celUpdate("update g4 unit", "g4", map[string]any{"unit": "x2"}),
	celUpdate("update g4 min", "g4", map[string]any{"min": int64(0)}),
}

// celOutcome is what a celOp gave: the error (as errOutcome renders it) or
// the stored spec.
type celOutcome struct {
	Err    string
	Causes []string
	Spec   map[string]any
}

func runCELOps(c client.Client) []celOutcome {
	ctx := context.Background()
	var out []celOutcome
	for _, op := range celOps {
		spec, err := op.do(ctx, c)
		if err != nil {
			o := errOutcome(err)
			out = append(out, celOutcome{Err: o.Err, Causes: o.Causes})
			continue
		}
		out = append(out, celOutcome{Spec: spec})
	}
	return out
}

// The model evaluates x-kubernetes-validations rules as kube-apiserver does:
// the same writes, from the same manifest, are refused with the same errors
// (byte for byte) or stored alike.
func TestCELValidationMatchesKubeAPIServer(t *testing.T) {
	assets, err := assetsFromEnv()
	if err != nil {
		needReal(t) // skips, or fails under CI
		return
	}
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(apiservertest.GaugeManifest), &def); err != nil {
		t.Fatal(err)
	}
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: Scheme, Definitions: []*apiextensionsv1.CustomResourceDefinition{&def}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()

	crds, err := apiserver.CRDsFromYAML([]byte(apiservertest.GaugeManifest))
	if err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Scheme: Scheme, Clock: clock.New(clock.Epoch), CRDs: crds})
	s.CreateDefaultNamespaces()
	model := kubeclient.New(s, apiserver.Admin, kubeclient.Options{})

	got, want := runCELOps(model), runCELOps(env.Admin)
	refused := 0
	for i, op := range celOps {
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("%s: model (+) vs kube-apiserver (-):\n%s", op.name, d)
		}
		if want[i].Err != "" {
			refused++
		}
	}
	if refused != 6 {
		t.Errorf("kube-apiserver refused %d of the writes, want 6: the cases do not test what they say", refused)
	}
}
