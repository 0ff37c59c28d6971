package process_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// Gear (apiservertest): v1 the Hub, v1alpha1 a Convertible spoke.
func gearCRD() *apiextensionsv1.CustomResourceDefinition {
	return apiservertest.GearCRD(apiextensionsv1.WebhookConverter)
}

func gearWorld(t *testing.T) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(&plan.Plan{}, cluster.Options{
		Scheme: apiservertest.GearScheme(),
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			return apiservertest.SetUpGearWebhook(p.Manager())
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.RunFor(time.Second)
	return c
}

func gear(apiVersion, name string, spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": "Gear",
		"metadata": map[string]any{"name": name, "namespace": "default", "uid": "u-" + name, "resourceVersion": "7"}, "spec": spec}}
}

// A CRD's conversion webhook registered by the builder for a Hub and its
// Convertible spoke converts objects both ways through controller-runtime's
// /convert handler: objects already in the desired version are not sent,
// the converted ones keep their original metadata but for the labels and
// annotations the webhook set.
func TestAConversionWebhookConvertsBothWays(t *testing.T) {
	c := gearWorld(t)
	w := c.Process("op").Webhooks()
	in := []*unstructured.Unstructured{
		gear("conv.ctrlsim.dev/v1", "a", map[string]any{"teeth": int64(3)}),
		gear("conv.ctrlsim.dev/v1alpha1", "b", map[string]any{"teeth": "tt"}),
	}
	out, err := w.Convert(gearCRD(), in, "conv.ctrlsim.dev/v1alpha1")
	if err != nil {
		t.Fatal(err)
	}
	if s, _, _ := unstructured.NestedString(out[0].Object, "spec", "teeth"); s != "ttt" || out[0].GetAPIVersion() != "conv.ctrlsim.dev/v1alpha1" {
		t.Errorf("v1 to v1alpha1: %v", out[0].Object)
	}
	if out[0].GetLabels()["converted"] != "from-v1" || out[0].GetUID() != "u-a" || out[0].GetResourceVersion() != "7" {
		t.Errorf("converted metadata: %v, want the webhook's label and the original uid and resourceVersion", out[0].Object["metadata"])
	}
	if out[1].GetLabels()["converted"] != "" {
		t.Errorf("an object already in the desired version was sent: %v", out[1].Object)
	}
	back, err := w.Convert(gearCRD(), out[:1], "conv.ctrlsim.dev/v1")
	if err != nil {
		t.Fatal(err)
	}
	if n, _, _ := unstructured.NestedInt64(back[0].Object, "spec", "teeth"); n != 3 || back[0].GetAPIVersion() != "conv.ctrlsim.dev/v1" {
		t.Errorf("v1alpha1 back to v1: %v", back[0].Object)
	}
	steps := 0
	for _, s := range c.Trace.Steps() {
		if s.Op == "webhook conversion gears.conv.ctrlsim.dev" && s.Process == "op" && s.Result == "converted" {
			steps++
		}
	}
	if steps != 2 {
		t.Errorf("%d conversion steps traced, want 2", steps)
	}
}

// While the process serving the conversion webhook is down, conversion
// fails with kube-apiserver's text.
func TestAConversionWebhookOfADownProcessFails(t *testing.T) {
	c := gearWorld(t)
	c.Process("op").Crash("test")
	_, err := c.Process("op").Webhooks().Convert(gearCRD(), []*unstructured.Unstructured{gear("conv.ctrlsim.dev/v1", "a", nil)}, "conv.ctrlsim.dev/v1alpha1")
	want := `conversion webhook for conv.ctrlsim.dev/v1, Kind=Gear failed: Post "https://webhook-service.system.svc:443/convert?timeout=30s": no endpoints available for service "webhook-service"`
	if err == nil || err.Error() != want {
		t.Errorf("conversion while the process is down: %v\nwant %s", err, want)
	}
}

// turns is a controller on v1alpha1 Gears (a version the kind is not stored
// in): it reads each from its cache and writes status.turns, the number of
// its teeth, in v1alpha1.
type turns struct {
	c    client.Client
	seen []string // the teeth of each reconcile's read
}

func (r *turns) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var g apiservertest.GearV1alpha1
	if err := r.c.Get(ctx, req.NamespacedName, &g); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	r.seen = append(r.seen, g.Spec.Teeth)
	if g.Status == nil || g.Status.Turns != len(g.Spec.Teeth) {
		g.Status = &apiservertest.GearStatus{Turns: len(g.Spec.Teeth)}
		return reconcile.Result{}, r.c.Status().Update(ctx, &g)
	}
	return reconcile.Result{}, nil
}

// A process's controller-runtime client and informers work on v1alpha1 of a
// kind stored in v1: its watch receives the changes converted through the
// webhook another process serves, its status write in v1alpha1 is stored in
// v1; while the webhook's process is down the watch of v1alpha1 stalls
// (nothing is delivered, nothing is lost) and resumes, in order, once it
// serves again.
func TestAControllerOnANonStorageVersionWorksThroughTheConversionWebhook(t *testing.T) {
	crd, err := apiserver.CRDFromDefinition(apiservertest.GearCRD(apiextensionsv1.WebhookConverter))
	if err != nil {
		t.Fatal(err)
	}
	r := &turns{}
	c, err := cluster.New(&plan.Plan{}, cluster.Options{
		Scheme: apiservertest.GearScheme(), CRDs: []apiserver.CRD{crd},
		Processes: []process.Spec{
			{Name: "conv", Setup: func(p *process.Process) error { return apiservertest.SetUpGearWebhook(p.Manager()) }},
			{Name: "op", Setup: func(p *process.Process) error {
				r.c = p.Manager().GetClient()
				return ctrl.NewControllerManagedBy(p.Manager()).For(&apiservertest.GearV1alpha1{}).Complete(r)
			}},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.RunFor(time.Second)
	g := &apiservertest.GearV1{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}, Spec: apiservertest.GearSpec{Teeth: 3}}
	if err := c.Admin().Create(ctx, g); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Second)
	if err := c.Admin().Get(ctx, client.ObjectKeyFromObject(g), g); err != nil || g.Status == nil || g.Status.Turns != 3 {
		t.Fatalf("the v1 object after the controller's v1alpha1 status write: %+v %v", g.Status, err)
	}
	if strings.Join(r.seen, ",") != "ttt,ttt" {
		t.Errorf("the controller read %q, want the create and its own status write, converted", r.seen)
	}
	c.Process("conv").Crash("test")
	g.Spec.Teeth = 4
	if err := c.Admin().Update(ctx, g); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Second)
	if len(r.seen) != 2 {
		t.Errorf("the controller read %q while the webhook was down, want nothing new (the v1alpha1 watch stalls)", r.seen)
	}
	c.Process("conv").StartAgain()
	c.RunFor(3 * time.Second)
	if err := c.Admin().Get(ctx, client.ObjectKeyFromObject(g), g); err != nil || g.Status.Turns != 4 {
		t.Errorf("after the webhook is back: %+v %v (the controller read %q)", g.Status, err, r.seen)
	}
}
