package differential

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

// The lifecycle of a CustomResourceDefinition created at run time, against
// kube-apiserver: the CRD's own defaults and status, NamesAccepted and
// Established, objects of its kind, a spec update (a printer column, a schema
// change), and its deletion (the cleanup finalizer, Terminating, the objects
// deleted, the kind no longer served). Timing is not compared: each side waits
// until the state a step names holds (the model on its virtual clock, the real
// server on the wall clock), then both are read.

const (
	lcGroup = "lifecycle.ctrlsim.example"
	lcName  = "things." + lcGroup
)

var (
	lcGVK = schema.GroupVersionKind{Group: lcGroup, Version: "v1", Kind: "Thing"}
	lcGVR = schema.GroupVersionResource{Group: lcGroup, Version: "v1", Resource: "things"}
)

func lcDefinition() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: lcName},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: lcGroup,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "things", Singular: "thing", Kind: "Thing", ListKind: "ThingList"},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer", Minimum: ptr.To(1.0), Default: &apiextensionsv1.JSON{Raw: []byte("1")}},
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"phase": {Type: "string"},
						}},
					},
				}},
			}},
		},
	}
}

// lcSide is one side of the lifecycle comparison: the admin's controller-runtime
// client, a REST config, and how it waits for a condition.
type lcSide struct {
	c    client.Client
	cfg  *rest.Config
	wait func(cond func() bool) bool
	// dryRunServes: wait for a new schema with dry-run creates (a real server
	// rebuilds a kind's storage a moment after its CRD changes; the model at
	// once, and it does not model dry run).
	dryRunServes bool
}

func (s *lcSide) until(what string, cond func() bool) error {
	if !s.wait(cond) {
		return fmt.Errorf("timed out waiting until %s", what)
	}
	return nil
}

func (s *lcSide) crd(ctx context.Context) (*apiextensionsv1.CustomResourceDefinition, error) {
	crd := &apiextensionsv1.CustomResourceDefinition{}
	return crd, s.c.Get(ctx, client.ObjectKey{Name: lcName}, crd)
}

// crdState is the CRD as compared: its conditions' transition times, which
// are when each controller ran, are zeroed.
func crdState(crd *apiextensionsv1.CustomResourceDefinition, err error) (client.Object, error) {
	if err != nil {
		return nil, err
	}
	for i := range crd.Status.Conditions {
		crd.Status.Conditions[i].LastTransitionTime = metav1.Time{}
	}
	slices.SortFunc(crd.Status.Conditions, func(a, b apiextensionsv1.CustomResourceDefinitionCondition) int {
		return strings.Compare(string(a.Type), string(b.Type))
	})
	return crd, nil
}

func hasCondition(crd *apiextensionsv1.CustomResourceDefinition, t apiextensionsv1.CustomResourceDefinitionConditionType, status apiextensionsv1.ConditionStatus, reason string) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == t && c.Status == status && (reason == "" || c.Reason == reason) {
			return true
		}
	}
	return false
}

func thing(ns, name string, spec map[string]any) *unstructured.Unstructured {
	u := newU(lcGVK, ns, name)
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

type lcStep struct {
	name string
	do   func(ctx context.Context, s *lcSide, ns string) (client.Object, error)
}

func listThings(ctx context.Context, s *lcSide, ns string) (*unstructured.UnstructuredList, error) {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(lcGVK.GroupVersion().WithKind("ThingList"))
	return l, s.c.List(ctx, l, client.InNamespace(ns))
}

func lcSteps() []lcStep {
	get := func(ctx context.Context, s *lcSide, _ string) (client.Object, error) { return crdState(s.crd(ctx)) }
	create := func(name string, spec map[string]any) func(context.Context, *lcSide, string) (client.Object, error) {
		return func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
			u := thing(ns, name, spec)
			return u, s.c.Create(ctx, u)
		}
	}
	list := func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
		l, err := listThings(ctx, s, ns)
		if err != nil {
			return nil, err
		}
		return lastItemOrNil(l)
	}
	return []lcStep{
		{"create the CRD", func(ctx context.Context, s *lcSide, _ string) (client.Object, error) {
			crd := lcDefinition()
			return crdState(crd, s.c.Create(ctx, crd))
		}},
		{"wait until Established, get the CRD", func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
			err := s.until("the CRD is established", func() bool {
				crd, err := s.crd(ctx)
				return err == nil && hasCondition(crd, apiextensionsv1.Established, apiextensionsv1.ConditionTrue, "")
			})
			if err != nil {
				return nil, err
			}
			// A real server's handler serves the kind a moment after Established.
			if err := s.until("the kind is served", func() bool { _, err := listThings(ctx, s, ns); return err == nil }); err != nil {
				return nil, err
			}
			return get(ctx, s, ns)
		}},
		{"create t1 size 3", create("t1", map[string]any{"size": int64(3)})},
		{"create t2 defaulted", create("t2", map[string]any{})},
		{"create t3 size 0", create("t3", map[string]any{"size": int64(0)})},
		{"create t4 with a color the schema does not know", create("t4", map[string]any{"size": int64(2), "color": "red"})},
		{"list things", func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
			l, err := listThings(ctx, s, ns)
			if err != nil {
				return nil, err
			}
			return listObject(l)
		}},
		{"update the CRD: a printer column, a color enum, a size maximum", func(ctx context.Context, s *lcSide, _ string) (client.Object, error) {
			crd, err := s.crd(ctx)
			if err != nil {
				return nil, err
			}
			v := &crd.Spec.Versions[0]
			v.AdditionalPrinterColumns = []apiextensionsv1.CustomResourceColumnDefinition{{Name: "Size", Type: "integer", JSONPath: ".spec.size"}}
			spec := v.Schema.OpenAPIV3Schema.Properties["spec"]
			size := spec.Properties["size"]
			size.Maximum = ptr.To(10.0)
			spec.Properties["size"] = size
			spec.Properties["color"] = apiextensionsv1.JSONSchemaProps{Type: "string", Enum: []apiextensionsv1.JSON{{Raw: []byte(`"red"`)}, {Raw: []byte(`"blue"`)}}}
			v.Schema.OpenAPIV3Schema.Properties["spec"] = spec
			return crdState(crd, s.c.Update(ctx, crd))
		}},
		{"wait until the new schema is served, get the CRD", func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
			if s.dryRunServes {
				err := s.until("the new schema is served", func() bool {
					u := thing(ns, "probe", map[string]any{"color": "red"})
					if err := s.c.Create(ctx, u, client.DryRunAll); err != nil {
						return false
					}
					c, _, _ := unstructured.NestedString(u.Object, "spec", "color")
					return c == "red"
				})
				if err != nil {
					return nil, err
				}
			}
			return get(ctx, s, ns)
		}},
		{"create t5 color green", create("t5", map[string]any{"color": "green"})},
		{"create t6 color blue", create("t6", map[string]any{"color": "blue", "size": int64(4)})},
		{"update t1 size 11", withThing("t1", func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, int64(11), "spec", "size")
		})},
		{"update t1: a finalizer holds it", withThing("t1", func(u *unstructured.Unstructured) {
			u.SetFinalizers([]string{"example.com/hold"})
		})},
		{"list things", list},
		{"delete the CRD", func(ctx context.Context, s *lcSide, _ string) (client.Object, error) {
			return nil, s.c.Delete(ctx, lcDefinition())
		}},
		{"wait until only t1 is left, deleting; get the CRD", func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
			err := s.until("the finalizer controller deleted the free things", func() bool {
				l, err := listThings(ctx, s, ns)
				if err != nil || len(l.Items) != 1 || l.Items[0].GetDeletionTimestamp() == nil {
					return false
				}
				crd, err := s.crd(ctx)
				return err == nil && hasCondition(crd, apiextensionsv1.Terminating, apiextensionsv1.ConditionTrue, "InstanceDeletionInProgress")
			})
			if err != nil {
				return nil, err
			}
			return get(ctx, s, ns)
		}},
		{"list things while the CRD is terminating", list},
		{"create t7 while the CRD is terminating", create("t7", map[string]any{})},
		{"release t1", withThing("t1", func(u *unstructured.Unstructured) { u.SetFinalizers(nil) })},
		{"wait until the CRD is gone, get it", func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
			err := s.until("the CRD is gone", func() bool {
				_, err := s.crd(ctx)
				return apierrors.IsNotFound(err)
			})
			if err != nil {
				return nil, err
			}
			return get(ctx, s, ns)
		}},
		{"list things through a new dynamic client", func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
			if err := s.until("the kind is no longer served", func() bool {
				_, err := dynamic.NewForConfigOrDie(s.cfg).Resource(lcGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
				return apierrors.IsNotFound(err)
			}); err != nil {
				return nil, err
			}
			l, err := dynamic.NewForConfigOrDie(s.cfg).Resource(lcGVR).Namespace(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return nil, err
			}
			return listObject(l)
		}},
		{"list things through the client that listed them before", func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
			l, err := listThings(ctx, s, ns)
			if err != nil {
				return nil, err
			}
			return listObject(l)
		}},
		{"create a thing through a new dynamic client", func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
			return dynamic.NewForConfigOrDie(s.cfg).Resource(lcGVR).Namespace(ns).Create(ctx, thing(ns, "t8", map[string]any{}), metav1.CreateOptions{})
		}},
	}
}

// listObject is a list as one object, for the comparison: its item names.
func listObject(l *unstructured.UnstructuredList) (client.Object, error) {
	names := []any{}
	for _, it := range l.Items {
		names = append(names, it.GetName())
	}
	u := &unstructured.Unstructured{Object: map[string]any{"items": names}}
	return u, nil
}

func lastItemOrNil(l *unstructured.UnstructuredList) (client.Object, error) {
	if len(l.Items) == 0 {
		return listObject(l)
	}
	return &l.Items[len(l.Items)-1], nil
}

func withThing(name string, f func(u *unstructured.Unstructured)) func(context.Context, *lcSide, string) (client.Object, error) {
	return func(ctx context.Context, s *lcSide, ns string) (client.Object, error) {
		u := thing(ns, name, nil)
		if err := s.c.Get(ctx, client.ObjectKeyFromObject(u), u); err != nil {
			return nil, err
		}
		f(u)
		return u, s.c.Update(ctx, u)
	}
}

// runLifecycle runs the steps on one side, in namespace ns (created first).
func runLifecycle(ctx context.Context, s *lcSide, ns string) []Outcome {
	if err := s.c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		panic(err)
	}
	steps := lcSteps()
	raws := make([]raw, len(steps))
	stuck := error(nil)
	for i, st := range steps {
		if stuck != nil { // a wait timed out: the rest would wait too
			raws[i] = raw{err: fmt.Errorf("not run: %w", stuck)}
			continue
		}
		o, err := st.do(ctx, s, ns)
		raws[i] = raw{obj: o, err: err}
		if err != nil && strings.HasPrefix(err.Error(), "timed out waiting") {
			stuck = err
		}
	}
	n := newNormaliser(raws, nil, Tolerances{})
	out := make([]Outcome, len(raws))
	for i, r := range raws {
		out[i] = n.outcome(r)
	}
	return out
}

// lcScheme is Scheme with apiextensions.k8s.io/v1.
var lcScheme = func() *runtime.Scheme {
	s := apiservertest.Scheme()
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// lcModel is the model's side: a server whose apiextensions controllers run
// after delays drawn on a virtual clock, the waits stepping that clock.
func lcModel() *lcSide {
	clk := clock.New(clock.Epoch)
	s := apiserver.New(apiserver.Options{Scheme: lcScheme, Clock: clk,
		Later:  func(d time.Duration, f func()) { clk.AfterFunc(d, f) },
		Delays: rand.New(rand.NewPCG(1, 2))})
	s.CreateDefaultNamespaces()
	return &lcSide{
		c:   kubeclient.New(s, apiserver.Admin, kubeclient.Options{}),
		cfg: restapi.New(kubeclient.New(s, apiserver.Admin, kubeclient.Options{}), s, "diff", nil).Config(),
		wait: func(cond func() bool) bool {
			for range 2 * 60 * 10 { // two minutes of virtual time
				if cond() {
					return true
				}
				clk.Step(100 * time.Millisecond)
			}
			return cond()
		},
	}
}

func lcReal(t *testing.T, r *Real) *lcSide {
	c, err := client.New(r.Config, client.Options{Scheme: lcScheme})
	if err != nil {
		t.Fatal(err)
	}
	return &lcSide{c: c, cfg: r.Config, dryRunServes: true,
		wait: func(cond func() bool) bool {
			deadline := time.Now().Add(30 * time.Second)
			for time.Now().Before(deadline) {
				if cond() {
					return true
				}
				time.Sleep(50 * time.Millisecond)
			}
			return cond()
		}}
}

// A CRD created at run time goes through its life as on kube-apiserver: its
// defaults and status on create; NamesAccepted and Established (types,
// statuses, reasons, messages, accepted names); its kind served, defaulted
// and validated from its schema; a spec update (a printer column, a schema
// change) served; its deletion: the customresourcecleanup finalizer and
// Terminating, creates of its kind refused, its objects deleted (one held by
// a finalizer until released), then the CRD gone and its kind answered with
// kube-apiserver's 404.
func TestCRDLifecycleMatchesKubeAPIServer(t *testing.T) {
	r := needReal(t)
	names := nextNames()
	ns := names.Namespace("a")
	real := lcReal(t, r)
	t.Cleanup(func() { _ = real.c.Delete(context.Background(), lcDefinition()) })
	c := &Comparison{}
	for _, st := range lcSteps() {
		c.Ops = append(c.Ops, Op{Verb: Verb(st.name)})
	}
	c.Model = runLifecycle(ctx, lcModel(), ns)
	c.Real = runLifecycle(ctx, real, ns)
	if d := c.Diff(); d != "" {
		t.Errorf("the model diverges from kube-apiserver:\n%s", d)
	}
	// The steps test what they say on kube-apiserver.
	if o := c.Real[1].Object; o == nil || !jsonHas(o, `"status":"True","type":"Established"`) {
		t.Errorf("kube-apiserver: the CRD is not established: %v", c.Real[1])
	}
	if e := c.Real[4].Error; e == nil || e.Reason != metav1.StatusReasonInvalid {
		t.Errorf("kube-apiserver: a size below the minimum was not refused: %v", c.Real[4])
	}
	if e := c.Real[17].Error; e == nil || e.Code != 403 {
		t.Errorf("kube-apiserver: a create while terminating was not refused with 403: %v", c.Real[17])
	}
	if e := c.Real[20].Error; e == nil || e.Code != 404 {
		t.Errorf("kube-apiserver: the deleted CRD's kind still answers: %v", c.Real[20])
	}
}

func jsonHas(v any, s string) bool {
	b, _ := json.Marshal(v)
	return strings.Contains(string(b), s)
}
