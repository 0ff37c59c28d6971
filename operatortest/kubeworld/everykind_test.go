package kubeworld_test

import (
	"context"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// widget and gadget are kinds only a CRD defines (no Go type): namespaced
// and cluster-scoped.
var (
	widget = apiserver.CRD{GVK: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, Namespaced: true}
	gadget = apiserver.CRD{GVK: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Gadget"}}
)

// everyKindWorld runs kube-controller-manager alone with the namespace
// controller and the collector over every stored kind the apiserver model
// serves (kubeworld.StoredKinds, SetupEveryKind), as a world holding every
// kind would run them.
func everyKindWorld(t *testing.T) (*cluster.Cluster, []schema.GroupVersionKind) {
	t.Helper()
	var kinds []schema.GroupVersionKind
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		CRDs:   []apiserver.CRD{widget, gadget},
		Processes: []process.Spec{{Name: kcm, StartDelay: time.Second, Setup: func(p *process.Process) error {
			return kubeworld.SetupEveryKind(p, kinds)
		}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	if kinds, err = kubeworld.StoredKinds(c.Server, c.Admin().RESTMapper()); err != nil {
		t.Fatal(err)
	}
	return c, kinds
}

// objectOf is a valid object of kind gvk named name in namespace ns ("" for
// a cluster-scoped kind): the kinds whose registry strategy the model runs
// get the fields their validation requires.
func objectOf(t *testing.T, gvk schema.GroupVersionKind, ns, name string) client.Object {
	t.Helper()
	var o client.Object
	if clientgoscheme.Scheme.Recognizes(gvk) {
		obj, err := kube.ObjectOf(clientgoscheme.Scheme, gvk)
		if err != nil {
			t.Fatal(err)
		}
		o = obj
	} else {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(gvk)
		o = u
	}
	o.SetNamespace(ns)
	o.SetName(name)
	labels := map[string]string{"app": "x"}
	container := []corev1.Container{{Name: "c", Image: "busybox", ImagePullPolicy: corev1.PullIfNotPresent, TerminationMessagePolicy: corev1.TerminationMessageReadFile}}
	template := corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: container}}
	selector := &metav1.LabelSelector{MatchLabels: labels}
	switch x := o.(type) {
	case *corev1.Pod:
		x.Spec.Containers = container
	case *corev1.PodTemplate:
		x.Template = template
	case *corev1.ReplicationController:
		x.Spec.Selector, x.Spec.Template = labels, &template
	case *corev1.Service:
		x.Spec.Ports = []corev1.ServicePort{{Port: 80}}
	case *appsv1.Deployment:
		x.Spec.Selector, x.Spec.Template = selector, template
	case *appsv1.ReplicaSet:
		x.Spec.Selector, x.Spec.Template = selector, template
	case *appsv1.StatefulSet:
		x.Spec.Selector, x.Spec.Template = selector, template
	case *appsv1.DaemonSet:
		x.Spec.Selector, x.Spec.Template = selector, template
	case *appsv1.ControllerRevision:
		x.Revision, x.Data = 1, runtime.RawExtension{Raw: []byte("{}")}
	case *batchv1.Job:
		x.Spec.Template = template
		x.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	case *rbacv1.RoleBinding:
		x.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}
	case *rbacv1.ClusterRoleBinding:
		x.RoleRef = rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "view"}
	case *batchv1.CronJob:
		x.Spec.Schedule = "* * * * *"
		x.Spec.JobTemplate.Spec.Template = template
		x.Spec.JobTemplate.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	}
	return o
}

// The namespace controller deletes, with its namespace, an object of every
// namespaced kind the apiserver model serves and stores (RBAC, quotas,
// NetworkPolicies, PodDisruptionBudgets, Leases, Events, Ingresses, a
// CRD-only kind, ...), and only then finalizes the namespace.
func TestEveryNamespacedKindIsDeletedWithItsNamespace(t *testing.T) {
	c, kinds := everyKindWorld(t)
	ctx := context.Background()
	if err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	var made []client.Object
	var madeKinds []string
	for _, gvk := range kinds {
		o := objectOf(t, gvk, "team", "x")
		if namespaced, err := c.Admin().IsObjectNamespaced(o); err != nil || !namespaced {
			continue
		}
		if err := c.Admin().Create(ctx, o); err != nil {
			t.Errorf("creating a %s: %v", gvk, err)
			continue
		}
		o.GetObjectKind().SetGroupVersionKind(gvk)
		made = append(made, o)
		madeKinds = append(madeKinds, gvk.Kind)
	}
	for _, kind := range []string{"RoleBinding", "Role", "ResourceQuota", "LimitRange", "NetworkPolicy", "PodDisruptionBudget", "Lease", "ServiceAccount", "Event", "Ingress", "Widget"} {
		if !slices.Contains(madeKinds, kind) {
			t.Errorf("no %s among the namespaced kinds served", kind)
		}
	}
	c.RunFor(5 * time.Second)
	if err := c.Admin().Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	if err := c.Get(client.ObjectKey{Name: "team"}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the namespace is still there a minute after its deletion (%v)", err)
	}
	for _, o := range made {
		if err := c.Get(client.ObjectKeyFromObject(o), o.DeepCopyObject().(client.Object)); !apierrors.IsNotFound(err) {
			t.Errorf("%s team/x outlived its namespace (%v)", o.GetObjectKind().GroupVersionKind(), err)
		}
	}
	t.Logf("%d namespaced kinds deleted with their namespace", len(made))
}

// The collector deletes an object of every kind the apiserver model serves
// and stores once its owner is gone: a namespaced one owned by a ConfigMap
// of its namespace, a cluster-scoped one (a Namespace, a ClusterRole, a
// CRD-only kind, ...) owned by a cluster-scoped owner.
func TestEveryKindIsCollectedWhenItsOwnerIsGone(t *testing.T) {
	c, kinds := everyKindWorld(t)
	ctx := context.Background()
	if err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	nsOwner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "owner"}}
	clusterOwner := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}
	for _, o := range []client.Object{nsOwner, clusterOwner} {
		if err := c.Admin().Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	var made []client.Object
	for _, gvk := range kinds {
		o := objectOf(t, gvk, "", "dependent")
		namespaced, err := c.Admin().IsObjectNamespaced(o)
		if err != nil {
			t.Fatal(err)
		}
		owner := client.Object(clusterOwner)
		ref := metav1.OwnerReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: owner.GetName(), UID: owner.GetUID()}
		if namespaced {
			o.SetNamespace("team")
			ref = metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: nsOwner.Name, UID: nsOwner.UID}
		}
		o.SetOwnerReferences([]metav1.OwnerReference{ref})
		if err := c.Admin().Create(ctx, o); err != nil {
			t.Errorf("creating a %s: %v", gvk, err)
			continue
		}
		o.GetObjectKind().SetGroupVersionKind(gvk)
		made = append(made, o)
	}
	for _, kind := range []string{"Namespace", "ClusterRole", "ClusterRoleBinding", "PersistentVolume", "Node", "Gadget", "RoleBinding", "PodDisruptionBudget", "Widget"} {
		if !slices.ContainsFunc(made, func(o client.Object) bool { return o.GetObjectKind().GroupVersionKind().Kind == kind }) {
			t.Errorf("no %s among the kinds served", kind)
		}
	}
	c.RunFor(5 * time.Second)
	for _, o := range made {
		if err := c.Get(client.ObjectKeyFromObject(o), o.DeepCopyObject().(client.Object)); err != nil {
			t.Fatalf("%s %s was collected while its owner was there (%v)", o.GetObjectKind().GroupVersionKind(), client.ObjectKeyFromObject(o), err)
		}
	}
	for _, o := range []client.Object{nsOwner, clusterOwner} {
		if err := c.Admin().Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	c.RunFor(time.Minute)
	for _, o := range made {
		if err := c.Get(client.ObjectKeyFromObject(o), o.DeepCopyObject().(client.Object)); !apierrors.IsNotFound(err) {
			t.Errorf("%s %s outlived its owner (%v)", o.GetObjectKind().GroupVersionKind(), client.ObjectKeyFromObject(o), err)
		}
	}
	t.Logf("%d kinds collected", len(made))
}

// A cluster-scoped object that names a namespaced owner is never collected,
// whether or not an owner of that name and uid exists in some namespace:
// upstream's collector forgets it (namespacedOwnerOfClusterScopedObjectErr)
// and, having seen the owner in its namespace, reports a Warning
// OwnerRefInvalidNamespace on it.
func TestAClusterScopedObjectWithANamespacedOwnerIsReportedNotCollected(t *testing.T) {
	c, _ := everyKindWorld(t)
	ctx := context.Background()
	if err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}); err != nil {
		t.Fatal(err)
	}
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "owner"}}
	if err := c.Admin().Create(ctx, owner); err != nil {
		t.Fatal(err)
	}
	dep := objectOf(t, gadget.GVK, "", "dependent")
	dep.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}})
	if err := c.Admin().Create(ctx, dep); err != nil {
		t.Fatal(err)
	}
	c.RunFor(10 * time.Second)
	if err := c.Admin().Delete(ctx, owner); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	if err := c.Get(client.ObjectKeyFromObject(dep), dep); err != nil {
		t.Fatalf("the cluster-scoped dependent of a namespaced owner was collected: %v", err)
	}
	var events corev1.EventList
	if err := c.Admin().List(ctx, &events); err != nil {
		t.Fatal(err)
	}
	reported := slices.ContainsFunc(events.Items, func(e corev1.Event) bool {
		return e.Reason == "OwnerRefInvalidNamespace" && e.Type == corev1.EventTypeWarning && e.InvolvedObject.Name == "dependent" &&
			e.Source.Component == "garbage-collector-controller" &&
			e.Message == `ownerRef [v1/ConfigMap, namespace: , name: owner, uid: `+string(owner.UID)+`] does not exist in namespace ""`
	})
	if !reported {
		t.Errorf("no OwnerRefInvalidNamespace event; events: %+v", events.Items)
	}
}
