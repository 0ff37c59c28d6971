package apiserver_test

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// gearServer serves Gear's two versions with strategy, without Go types
// (unstructured, as JSON), or with them (typed).
func gearServer(t *testing.T, strategy apiextensionsv1.ConversionStrategyType, typed bool) *apiserver.Server {
	t.Helper()
	crd, err := apiserver.CRDFromDefinition(apiservertest.GearCRD(strategy))
	if err != nil {
		t.Fatal(err)
	}
	scheme := apiservertest.Scheme()
	if typed {
		scheme = apiservertest.GearScheme()
	}
	s := apiserver.New(apiserver.Options{Scheme: scheme, Clock: clock.New(clock.Epoch), CRDs: []apiserver.CRD{crd}})
	s.CreateDefaultNamespaces()
	return s
}

func ugear(version, name string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": spec}}
	u.SetAPIVersion("conv.ctrlsim.dev/" + version)
	u.SetKind("Gear")
	u.SetNamespace("default")
	u.SetName(name)
	return u
}

// With strategy None, an object written in one version is stored in the
// storage version and read in either: the apiVersion is rewritten, the
// fields stay as they are (nopConverter), each version's own schema prunes
// and defaults the requests made in it, and the storage version's defaults
// show in every read.
func TestAMultiVersionCRDWithStrategyNoneServesEveryVersionFromOneStore(t *testing.T) {
	s := gearServer(t, apiextensionsv1.NoneConverter, false)
	k, ok := s.KindFor(apiservertest.GearV1alpha1GV.WithKind("Gear"))
	if !ok || k.StorageVersion() != "v1" || len(k.Versions()) != 2 {
		t.Fatalf("v1alpha1 served: %v, its storage version %q", ok, k.StorageVersion())
	}
	in := ugear("v1alpha1", "a", map[string]any{"teeth": "tt", "color": "red", "unknown": 1})
	if err := s.Create(apiserver.Admin, in); err != nil {
		t.Fatal(err)
	}
	spec, _, _ := unstructured.NestedMap(in.Object, "spec")
	// The answer is the stored object read back: v1alpha1's default (size)
	// was pruned by v1's schema on the way to storage, v1's (shape) by
	// v1alpha1's on the way back.
	if in.GetAPIVersion() != "conv.ctrlsim.dev/v1alpha1" || spec["size"] != nil || spec["shape"] != nil || spec["unknown"] != nil || spec["teeth"] != "tt" {
		t.Errorf("create's answer in v1alpha1: %v", in.Object)
	}
	v1 := ugear("v1", "a", nil)
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(v1), v1); err != nil {
		t.Fatal(err)
	}
	spec, _, _ = unstructured.NestedMap(v1.Object, "spec")
	// v1's schema prunes size (none) on the way to storage and defaults shape.
	if v1.GetAPIVersion() != "conv.ctrlsim.dev/v1" || spec["teeth"] != "tt" || spec["shape"] != "round" || spec["size"] != nil {
		t.Errorf("the stored object read in v1: %v", v1.Object)
	}
	// A write in v1 is read in v1alpha1 with v1alpha1's pruning.
	v1.Object["spec"] = map[string]any{"teeth": int64(4), "shape": "square"}
	if err := s.Update(apiserver.Admin, v1, ""); err != nil {
		t.Fatal(err)
	}
	a := ugear("v1alpha1", "a", nil)
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(a), a); err != nil {
		t.Fatal(err)
	}
	spec, _, _ = unstructured.NestedMap(a.Object, "spec")
	if spec["teeth"] != int64(4) || spec["shape"] != nil || a.GetResourceVersion() != v1.GetResourceVersion() {
		t.Errorf("read in v1alpha1 after a v1 update: %v", a.Object)
	}
	// Each version validates with its own schema: v1alpha1's maxLength, v1's maximum.
	bad := ugear("v1alpha1", "b", map[string]any{"teeth": strings.Repeat("t", 13)})
	if err := s.Create(apiserver.Admin, bad); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.teeth: Too long") {
		t.Errorf("v1alpha1's schema: %v", err)
	}
	bad = ugear("v1", "b", map[string]any{"teeth": int64(11)})
	if err := s.Create(apiserver.Admin, bad); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "less than or equal to 10") {
		t.Errorf("v1's schema: %v", err)
	}
	// A list in either version holds every object, in that version.
	for _, v := range []string{"v1", "v1alpha1"} {
		l := &unstructured.UnstructuredList{}
		l.SetAPIVersion("conv.ctrlsim.dev/" + v)
		l.SetKind("GearList")
		if err := s.List(apiserver.Admin, l, &client.ListOptions{Namespace: "default"}); err != nil {
			t.Fatal(err)
		}
		if len(l.Items) != 1 || l.Items[0].GetAPIVersion() != "conv.ctrlsim.dev/"+v {
			t.Errorf("list in %s: %v", v, l.Items)
		}
	}
}

// A watch of a non-storage version receives every change converted into it;
// the watch log and the storage version's watchers have them as stored.
func TestAWatchOfANonStorageVersionGetsConvertedEvents(t *testing.T) {
	s := gearServer(t, apiextensionsv1.NoneConverter, true)
	var got []string
	stop := s.Watcher().Watch(apiservertest.GearV1alpha1GV.WithKind("Gear"), func(ev apiserver.Event) {
		g, ok := ev.Object.(*apiservertest.GearV1alpha1)
		got = append(got, string(ev.Type)+" "+ev.GVK.Version)
		if !ok {
			t.Errorf("event object %T, want *GearV1alpha1", ev.Object)
		}
		_ = g
	})
	defer stop()
	var stored []string
	s.Watcher().Watch(apiservertest.GearV1GV.WithKind("Gear"), func(ev apiserver.Event) {
		if _, ok := ev.Object.(*apiservertest.GearV1); !ok {
			t.Errorf("storage event object %T, want *GearV1", ev.Object)
		}
		stored = append(stored, string(ev.Type))
	})
	g := &apiservertest.GearV1{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "a"}}
	g.Spec.Color = "red"
	if err := s.Create(apiserver.Admin, g); err != nil {
		t.Fatal(err)
	}
	// A status write in v1alpha1: stored in v1.
	a := &apiservertest.GearV1alpha1{}
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(g), a); err != nil {
		t.Fatal(err)
	}
	if a.Spec.Color != "red" {
		t.Errorf("typed read in v1alpha1: %+v", a)
	}
	a.Status = &apiservertest.GearStatus{Turns: 2}
	if err := s.Update(apiserver.Admin, a, "status"); err != nil {
		t.Fatal(err)
	}
	if err := s.Get(apiserver.Admin, client.ObjectKeyFromObject(g), g); err != nil || g.Status == nil || g.Status.Turns != 2 {
		t.Errorf("status written in v1alpha1, read in v1: %+v %v", g.Status, err)
	}
	if err := s.Delete(apiserver.Admin, a, nil); err != nil {
		t.Fatal(err)
	}
	want := []string{"ADDED v1alpha1", "MODIFIED v1alpha1", "DELETED v1alpha1"}
	if strings.Join(got, ",") != strings.Join(want, ",") || len(stored) != 3 {
		t.Errorf("v1alpha1 watch got %v, want %v; v1 watch %v", got, want, stored)
	}
	for _, ev := range s.Log() {
		if ev.GVK.Kind == "Gear" && ev.GVK.Version != "v1" {
			t.Errorf("the watch log holds a change in %s, want the storage version", ev.GVK)
		}
	}
	objs, _ := s.Watcher().List(apiservertest.GearV1alpha1GV.WithKind("Gear"))
	if len(objs) != 0 {
		t.Errorf("list after the delete: %v", objs)
	}
}
