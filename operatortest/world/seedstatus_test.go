package world_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A seed object is created with the status it was given, as the controller
// that owns its status had written it before the test began: the Gadget's
// status subresource drops it from the create, and a status write follows
// before time starts.
func TestASeedObjectKeepsItsStatus(t *testing.T) {
	o := optest.GadgetOptions()
	o.CRDs = [][]byte{[]byte(widgetCRD)}
	g := widget()
	if err := unstructured.SetNestedField(g.Object, "Ready", "status", "phase"); err != nil {
		t.Fatal(err)
	}
	o.Objects = []client.Object{g}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{Scheme: w.Opts.Scheme, CRDs: w.CRDs, Setup: w.Setup})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(g.GroupVersionKind())
	if err := c.Get(client.ObjectKeyFromObject(g), got); err != nil {
		t.Fatal(err)
	}
	if phase, _, _ := unstructured.NestedString(got.Object, "status", "phase"); phase != "Ready" {
		t.Errorf("the seed's status.phase is %q, want Ready", phase)
	}
	// Without a status, no status write: the seed is as created.
	c2, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{Scheme: w.Opts.Scheme, CRDs: w.CRDs, Setup: func(c *cluster.Cluster) error {
		return world.CreateSeed(context.Background(), c, widget())
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if n := strings.Count(stepsText(c2), "update/status"); n != 0 {
		t.Errorf("%d status writes for a seed with no status", n)
	}
}

func stepsText(c *cluster.Cluster) string {
	var b strings.Builder
	for _, s := range c.Trace.Steps() {
		b.WriteString(s.String() + "\n")
	}
	return b.String()
}

// What a system does shows in the run's timeline as steps of its own
// process (SystemEnv.Trace), never folded away with the built-in
// processes' steps.
func TestASystemTracesItsStepsIntoTheTimeline(t *testing.T) {
	made := 0
	o := optest.LedgerOptions(&made)
	o.Systems[0].New = func(env world.SystemEnv) (any, error) { return env, nil }
	o.Workload.Domain = []world.DomainStep{{Name: "note", Do: func(_ context.Context, env world.StepEnv, _ world.Args) error {
		env.System("ledger").(world.SystemEnv).Trace("record", "ledger/entry-1", "ok")
		return nil
	}}}
	o.Managers[0].SetupWithSystems = nil
	o.Managers[0].Setup = func(mgr manager.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(&optest.KnownBugs{Client: mgr.GetClient()})
	}
	p, err := plan.Parse("seed 1\nat 1s note\n")
	if err != nil {
		t.Fatal(err)
	}
	r, err := operatortest.Replay(t, o, p)
	if err != nil {
		t.Fatal(err)
	}
	tl := strings.Join(r.Timeline, "\n")
	if !strings.Contains(tl, "ledger") || !strings.Contains(tl, "record     ledger/entry-1 -> ok") {
		t.Errorf("the system's step is not in the timeline:\n%s", tl)
	}
}

// widgetCRD serves a Widget with a spec and a status subresource.
const widgetCRD = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.test.ctrlsim.dev
spec:
  group: test.ctrlsim.dev
  names: {kind: Widget, listKind: WidgetList, plural: widgets, singular: widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
          status: {type: object, properties: {phase: {type: string}}}
`

func widget() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "test.ctrlsim.dev/v1", "kind": "Widget",
		"metadata": map[string]any{"namespace": "default", "name": "w"},
		"spec":     map[string]any{"size": int64(1)},
	}}
}
