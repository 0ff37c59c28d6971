package differential

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
)

// schemaOp is one write against a Widget whose CRD has a schema (see
// apiservertest.WidgetManifest); it returns what the server stored, or the error.
type schemaOp struct {
	name string
	do   func(ctx context.Context, c client.Client) (*apiservertest.Widget, error)
}

func create(name string, spec apiservertest.WidgetSpec) schemaOp {
	return schemaOp{"create " + name + fmt.Sprintf(" %+v", spec), func(ctx context.Context, c client.Client) (*apiservertest.Widget, error) {
		w := &apiservertest.Widget{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}, Spec: spec}
		return w, c.Create(ctx, w)
	}}
}

func modify(what, name string, f func(ctx context.Context, c client.Client, w *apiservertest.Widget) error) schemaOp {
	return schemaOp{what + " " + name, func(ctx context.Context, c client.Client) (*apiservertest.Widget, error) {
		w := &apiservertest.Widget{}
		if err := c.Get(ctx, types.NamespacedName{Namespace: "default", Name: name}, w); err != nil {
			return nil, err
		}
		return w, f(ctx, c, w)
	}}
}

var schemaOps = []schemaOp{
	create("w1", apiservertest.WidgetSpec{Size: 11}),
	create("w2", apiservertest.WidgetSpec{Size: -1, Color: "purple"}),
	create("w3", apiservertest.WidgetSpec{Tags: map[string]string{"a": "x", "b": "y", "c": "z", "d": "w"}}),
	create("w4", apiservertest.WidgetSpec{Tags: map[string]string{"a": "X1"}}),
	create("w5", apiservertest.WidgetSpec{Size: 1}),
	modify("update without color", "w5", func(ctx context.Context, c client.Client, w *apiservertest.Widget) error {
		w.Spec.Color, w.Spec.Size = "", 2
		return c.Update(ctx, w)
	}),
	modify("update to size 12", "w5", func(ctx context.Context, c client.Client, w *apiservertest.Widget) error {
		w.Spec.Size = 12
		return c.Update(ctx, w)
	}),
	modify("status Bogus", "w5", func(ctx context.Context, c client.Client, w *apiservertest.Widget) error {
		w.Status.Phase = "Bogus"
		return c.Status().Update(ctx, w)
	}),
	modify("status Ready", "w5", func(ctx context.Context, c client.Client, w *apiservertest.Widget) error {
		w.Status.Phase, w.Status.ObservedGeneration = "Ready", w.Generation
		return c.Status().Update(ctx, w)
	}),
	modify("main update carrying a bad status", "w5", func(ctx context.Context, c client.Client, w *apiservertest.Widget) error {
		w.Status.Phase, w.Spec.Size = "Bogus", 3
		return c.Update(ctx, w)
	}),
	modify("merge patch color null", "w5", func(ctx context.Context, c client.Client, w *apiservertest.Widget) error {
		return c.Patch(ctx, w, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"color":null,"size":4}}`)))
	}),
	modify("merge patch size 20", "w5", func(ctx context.Context, c client.Client, w *apiservertest.Widget) error {
		return c.Patch(ctx, w, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"size":20}}`)))
	}),
	modify("status merge patch phase Nope", "w5", func(ctx context.Context, c client.Client, w *apiservertest.Widget) error {
		return c.Status().Patch(ctx, w, client.RawPatch(types.MergePatchType, []byte(`{"status":{"phase":"Nope"}}`)))
	}),
}

// outcome is what an op gave: the error text (for an error with several causes,
// its reason and the causes sorted: kube-apiserver lists them in the order of a
// Go map walk), or the stored spec and status.
type outcome struct {
	Err    string
	Causes []string
	Spec   apiservertest.WidgetSpec
	Status apiservertest.WidgetStatus
}

func errOutcome(err error) outcome {
	var se *apierrors.StatusError
	if errors.As(err, &se) && se.ErrStatus.Details != nil && len(se.ErrStatus.Details.Causes) > 1 {
		var causes []string
		for _, c := range se.ErrStatus.Details.Causes {
			causes = append(causes, fmt.Sprintf("%s %s: %s", c.Type, c.Field, c.Message))
		}
		sort.Strings(causes)
		return outcome{Err: string(se.ErrStatus.Reason), Causes: causes}
	}
	return outcome{Err: err.Error()}
}

func runSchemaOps(t *testing.T, c client.Client) []outcome {
	ctx := context.Background()
	var out []outcome
	for _, op := range schemaOps {
		w, err := op.do(ctx, c)
		switch {
		case err != nil:
			out = append(out, errOutcome(err))
		default:
			out = append(out, outcome{Spec: w.Spec, Status: w.Status})
		}
	}
	return out
}

// The model prunes, defaults and validates custom resources from their CRD's
// schema as kube-apiserver does: the same writes, from the same manifest, give
// the same errors (byte for byte) and store the same content.
func TestCRDSchemaValidationAndDefaultingMatchKubeAPIServer(t *testing.T) {
	assets, err := assetsFromEnv()
	if err != nil {
		needReal(t) // skips, or fails under CI
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
	realClient := env.Admin

	crds, err := apiserver.CRDsFromYAML([]byte(apiservertest.WidgetManifest))
	if err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Scheme: Scheme, Clock: clock.New(clock.Epoch), CRDs: crds})
	s.CreateDefaultNamespaces()
	model := kubeclient.New(s, apiserver.Admin, kubeclient.Options{})

	got, want := runSchemaOps(t, model), runSchemaOps(t, realClient)
	for i, op := range schemaOps {
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("%s: model (+) vs kube-apiserver (-):\n%s", op.name, d)
		}
	}
	errs := 0
	for _, o := range want {
		if strings.Contains(o.Err, "is invalid") || o.Err == string(metav1.StatusReasonInvalid) {
			errs++
		}
	}
	if errs < 6 {
		t.Errorf("only %d of the ops were refused by kube-apiserver: the schema cases do not test what they say", errs)
	}
}
