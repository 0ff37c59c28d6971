package differential

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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

// sprocketOutcome is what one write of a Sprocket gave: the error or the
// stored spec and status.
type sprocketOutcome struct {
	Err    string
	Causes []string
	Spec   apiservertest.SprocketSpec
	Status apiservertest.SprocketStatus
}

func runSprocketOps(c client.Client) []sprocketOutcome {
	ctx := context.Background()
	ready := metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "Up", Message: "m", LastTransitionTime: metav1.Unix(1, 0)}
	ops := []func() (*apiservertest.Sprocket, error){
		func() (*apiservertest.Sprocket, error) { // a typed zero status: {"conditions": null}
			sp := &apiservertest.Sprocket{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s1"}, Spec: apiservertest.SprocketSpec{Teeth: 3}}
			return sp, c.Create(ctx, sp)
		},
		func() (*apiservertest.Sprocket, error) { // a status the schema would refuse
			sp := &apiservertest.Sprocket{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s2"},
				Status: apiservertest.SprocketStatus{Worn: true, Conditions: []metav1.Condition{{Type: "Ready"}}}}
			return sp, c.Create(ctx, sp)
		},
		func() (*apiservertest.Sprocket, error) { // the spec is still validated
			sp := &apiservertest.Sprocket{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s3"}, Spec: apiservertest.SprocketSpec{Teeth: -1}}
			return sp, c.Create(ctx, sp)
		},
		func() (*apiservertest.Sprocket, error) { // the main resource keeps the absent status
			sp := &apiservertest.Sprocket{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "s1"}, sp); err != nil {
				return nil, err
			}
			sp.Spec.Teeth = 4
			sp.Status.Worn = true
			return sp, c.Update(ctx, sp)
		},
		func() (*apiservertest.Sprocket, error) { // the status subresource validates
			sp := &apiservertest.Sprocket{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "s1"}, sp); err != nil {
				return nil, err
			}
			sp.Status.Conditions = []metav1.Condition{{Type: "Ready"}}
			return sp, c.Status().Update(ctx, sp)
		},
		func() (*apiservertest.Sprocket, error) {
			sp := &apiservertest.Sprocket{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "s1"}, sp); err != nil {
				return nil, err
			}
			sp.Status.Conditions = []metav1.Condition{ready}
			return sp, c.Status().Update(ctx, sp)
		},
		func() (*apiservertest.Sprocket, error) { // a status write of a zero status: conditions missing
			sp := &apiservertest.Sprocket{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "s2"}, sp); err != nil {
				return nil, err
			}
			return sp, c.Status().Update(ctx, sp)
		},
		func() (*apiservertest.Sprocket, error) { // an operator's first write: its whole object, zero status
			sp := &apiservertest.Sprocket{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "s2"}, sp); err != nil {
				return nil, err
			}
			sp.Finalizers = append(sp.Finalizers, "test.ctrlsim.dev/cleanup")
			sp.Spec.Teeth = 2
			return sp, c.Update(ctx, sp)
		},
		func() (*apiservertest.Sprocket, error) { // the main resource keeps the stored conditions
			sp := &apiservertest.Sprocket{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "s1"}, sp); err != nil {
				return nil, err
			}
			sp.Status = apiservertest.SprocketStatus{}
			sp.Spec.Teeth = 5
			return sp, c.Update(ctx, sp)
		},
		func() (*apiservertest.Sprocket, error) { // a merge patch of the main resource setting status
			sp := &apiservertest.Sprocket{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "s1"}}
			return sp, c.Patch(ctx, sp, client.RawPatch(types.MergePatchType, []byte(`{"spec":{"teeth":6},"status":{"worn":true,"conditions":null}}`)))
		},
		func() (*apiservertest.Sprocket, error) { // the spec is still validated on update
			sp := &apiservertest.Sprocket{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: "default", Name: "s2"}, sp); err != nil {
				return nil, err
			}
			sp.Spec.Teeth = -1
			return sp, c.Update(ctx, sp)
		},
	}
	var out []sprocketOutcome
	for _, op := range ops {
		sp, err := op()
		if err != nil {
			o := errOutcome(err)
			out = append(out, sprocketOutcome{Err: o.Err, Causes: o.Causes})
			continue
		}
		out = append(out, sprocketOutcome{Spec: sp.Spec, Status: sp.Status})
	}
	return out
}

// kube-apiserver drops .status from a create, and replaces the request's
// status with the stored one on an update (or patch) of the main resource,
// before it validates the body: a typed custom resource whose status fields
// have no omitempty (its zero status is {"conditions": null}, and its CRD, as
// controller-gen writes it, requires status.conditions) is accepted on create
// and on update, and refused on a status write; the model answers every write
// of the same sequence as kube-apiserver does.
func TestCreateDropsStatusAsKubeAPIServerDoes(t *testing.T) {
	assets, err := assetsFromEnv()
	if err != nil {
		needReal(t) // skips, or fails under CI
		return
	}
	var def apiextensionsv1.CustomResourceDefinition
	if err := yaml.Unmarshal([]byte(apiservertest.SprocketManifest), &def); err != nil {
		t.Fatal(err)
	}
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: Scheme, Definitions: []*apiextensionsv1.CustomResourceDefinition{&def}})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = env.Stop() }()

	crds, err := apiserver.CRDsFromYAML([]byte(apiservertest.SprocketManifest))
	if err != nil {
		t.Fatal(err)
	}
	s := apiserver.New(apiserver.Options{Scheme: Scheme, Clock: clock.New(clock.Epoch), CRDs: crds})
	s.CreateDefaultNamespaces()
	model := kubeclient.New(s, apiserver.Admin, kubeclient.Options{})

	got, want := runSprocketOps(model), runSprocketOps(env.Admin)
	for i := range want {
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("op %d: model (+) vs kube-apiserver (-):\n%s", i, d)
		}
	}
	if want[0].Err != "" || want[2].Err == "" || want[3].Err != "" || want[4].Err == "" ||
		want[6].Err == "" || want[7].Err != "" || want[8].Err != "" || len(want[8].Status.Conditions) != 1 ||
		want[9].Err != "" || want[9].Status.Worn || want[10].Err == "" {
		t.Errorf("kube-apiserver: %+v: the cases do not test what they say", want)
	}
}
