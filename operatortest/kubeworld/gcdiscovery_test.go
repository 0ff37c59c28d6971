package kubeworld_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

var gadgetGVK = schema.GroupVersionKind{Group: "gadgets.ctrlsim.dev", Version: "v1", Kind: "Gadget"}

// gcWorld is kube-controller-manager's garbage collector over ConfigMaps
// alone, with the discovery sync (every kube.GCSyncPeriod) on or off.
func gcWorld(t *testing.T, sync time.Duration) *cluster.Cluster {
	t.Helper()
	p, err := plan.Parse("seed 1\n")
	if err != nil {
		t.Fatal(err)
	}
	s := scheme()
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(p, cluster.Options{Scheme: s, Processes: []process.Spec{{Name: "kube-controller-manager", Setup: func(pr *process.Process) error {
		mgr := pr.Manager()
		gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(),
			Kinds: []client.Object{&corev1.ConfigMap{}}, Sync: sync, Clock: pr.Clock()}
		return gc.SetupWithManager(mgr)
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func gadgetCRD() *apiextensionsv1.CustomResourceDefinition {
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.gadgets.ctrlsim.dev"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: gadgetGVK.Group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Gadget", ListKind: "GadgetList", Plural: "gadgets", Singular: "gadget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
					XPreserveUnknownFields: ptr.To(true)}}}},
		},
	}
}

// gadgetWithConfigMap creates Gadget name and a ConfigMap it owns, and
// returns the ConfigMap's key.
func gadgetWithConfigMap(t *testing.T, c *cluster.Cluster, name string) (*unstructured.Unstructured, client.ObjectKey) {
	t.Helper()
	g := &unstructured.Unstructured{}
	g.SetGroupVersionKind(gadgetGVK)
	g.SetNamespace("default")
	g.SetName(name)
	if err := c.Admin().Create(ctx, g); err != nil {
		t.Fatal(err)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "gadget-" + name, OwnerReferences: []metav1.OwnerReference{{
		APIVersion: gadgetGVK.GroupVersion().String(), Kind: gadgetGVK.Kind, Name: name, UID: g.GetUID(), Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}}}
	if err := c.Admin().Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	return g, client.ObjectKeyFromObject(cm)
}

func exists(t *testing.T, c *cluster.Cluster, key client.ObjectKey) bool {
	t.Helper()
	err := c.Get(key, &corev1.ConfigMap{})
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

// A kind that a CRD installed during the run serves is collected from the
// collector's next discovery sync on, as kube-controller-manager's garbage
// collector starts a monitor for each resource discovery newly lists
// (GarbageCollector.Sync every 30 s): the ConfigMap of a Gadget deleted
// before that sync (its owner never watched: upstream's virtual node) and
// the ConfigMap of a Gadget deleted after it are both collected, the first
// not before the sync instant; with no sync neither is.
func TestTheCollectorCollectsDependentsOfAKindServedAtRunTime(t *testing.T) {
	for _, sync := range []time.Duration{kube.GCSyncPeriod, 0} {
		c := gcWorld(t, sync)
		c.RunFor(2 * time.Second)
		if err := c.Admin().Create(ctx, gadgetCRD()); err != nil {
			t.Fatal(err)
		}
		c.RunFor(3 * time.Second) // Established
		early, earlyCM := gadgetWithConfigMap(t, c, "early")
		late, lateCM := gadgetWithConfigMap(t, c, "late")
		c.RunFor(time.Second)
		if err := c.Admin().Delete(ctx, early); err != nil {
			t.Fatal(err)
		}
		c.RunUntil(29 * time.Second)
		if !exists(t, c, earlyCM) {
			t.Errorf("sync %v: the ConfigMap of the Gadget deleted before the collector's first sync after the CRD was collected at %v, before the sync at 30s", sync, c.Now())
		}
		c.RunUntil(35 * time.Second)
		if got := exists(t, c, earlyCM); got != (sync == 0) {
			t.Errorf("sync %v: at %v the ConfigMap of the Gadget deleted before the sync exists: %v", sync, c.Now(), got)
		}
		if err := c.Admin().Delete(ctx, late); err != nil {
			t.Fatal(err)
		}
		c.RunFor(2 * time.Second)
		if got := exists(t, c, lateCM); got != (sync == 0) {
			t.Errorf("sync %v: 2s after its Gadget's deletion (after the sync) the ConfigMap exists: %v", sync, got)
		}
		if err := c.Err(); err != nil {
			t.Fatal(err)
		}
	}
}
