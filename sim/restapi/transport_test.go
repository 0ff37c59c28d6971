package restapi_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsclientset "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/utils/ptr"
	crclient "sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

func newScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := apiextensionsv1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

// world is a server on a virtual clock (the CRD controllers act when it is
// stepped) and a REST config for user, whose calls are counted.
type world struct {
	clk    *clock.Clock
	server *apiserver.Server
	cfg    *rest.Config
	calls  []kubeclient.Call
}

func newWorld(t *testing.T, user apiserver.User) *world {
	w := &world{clk: clock.New(clock.Epoch)}
	w.server = apiserver.New(apiserver.Options{Scheme: newScheme(t), Clock: w.clk,
		Later: func(d time.Duration, f func()) { w.clk.AfterFunc(d, f) }})
	w.server.CreateDefaultNamespaces()
	c := kubeclient.New(w.server, user, kubeclient.Options{Hooks: kubeclient.Hooks{
		Before: func(call kubeclient.Call) error { w.calls = append(w.calls, call); return nil },
	}})
	w.cfg = restapi.New(c, w.server, "op", nil).Config()
	return w
}

func TestTypedClientsetServesVerbsAndAPIErrors(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	cs, err := kubernetes.NewForConfig(w.cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cms := cs.CoreV1().ConfigMaps("default")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cm.UID == "" || cm.ResourceVersion == "" || cm.Namespace != "default" {
		t.Fatalf("create answered %+v, want the stored object", cm.ObjectMeta)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{}); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create: %v, want AlreadyExists", err)
	}
	if _, err := cms.Get(ctx, "missing", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("get of a missing object: %v, want NotFound", err)
	}
	stale := cm.DeepCopy()
	cm.Data["k"] = "w"
	if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale.Data["k"] = "z"
	if _, err := cms.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("stale update: %v, want Conflict", err)
	}
	if cm, err = cms.Patch(ctx, "a", types.MergePatchType, []byte(`{"data":{"p":"q"}}`), metav1.PatchOptions{}); err != nil || cm.Data["p"] != "q" {
		t.Fatalf("merge patch: %v %v", cm, err)
	}
	if _, err := cms.Patch(ctx, "a", types.StrategicMergePatchType, []byte(`{"data":{"s":"t"}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := cms.List(ctx, metav1.ListOptions{LabelSelector: "app=x"})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "a" || list.ResourceVersion == "" {
		t.Fatalf("list by label: %v %v", list, err)
	}
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: ptr.To(types.UID("nope"))}}); !apierrors.IsConflict(err) {
		t.Fatalf("delete with a wrong uid precondition: %v, want Conflict", err)
	}
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if list, _ := cms.List(ctx, metav1.ListOptions{}); len(list.Items) != 0 {
		t.Fatalf("after deletecollection: %d config maps left", len(list.Items))
	}
	// A status write through the subresource, and a namespace's finalize.
	pod, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Status.Phase = corev1.PodRunning
	if pod, err = cs.CoreV1().Pods("default").UpdateStatus(ctx, pod, metav1.UpdateOptions{}); err != nil || pod.Status.Phase != corev1.PodRunning {
		t.Fatalf("status update: %v %v", pod, err)
	}
	// Every request was one call of the process's client.
	if len(w.calls) < 14 {
		t.Fatalf("%d client calls for 14 requests", len(w.calls))
	}
}

func TestWatchOverRESTIsRefusedByName(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	cs := kubernetes.NewForConfigOrDie(w.cfg)
	_, err := cs.CoreV1().ConfigMaps("default").Watch(context.Background(), metav1.ListOptions{})
	if err == nil || !strings.Contains(err.Error(), "watch of configmaps over the REST config is not served") {
		t.Fatalf("watch: %v, want a refusal naming it", err)
	}
}

func TestRESTRequestsAreAuthorizedAsTheProcess(t *testing.T) {
	w := newWorld(t, apiserver.ServiceAccount("ops", "op"))
	cs := kubernetes.NewForConfigOrDie(w.cfg)
	_, err := cs.CoreV1().Secrets("default").List(context.Background(), metav1.ListOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "system:serviceaccount:ops:op" cannot list resource "secrets"`) {
		t.Fatalf("list without a Role: %v, want kube-apiserver's Forbidden", err)
	}
	admin := kubeclient.New(w.server, apiserver.Admin, kubeclient.Options{})
	ctx := context.Background()
	if err := admin.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "r"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"list"}}}}); err != nil {
		t.Fatal(err)
	}
	if err := admin.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "r"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: "r"},
		Subjects: []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "ops", Name: "op"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Fatalf("list with a Role: %v", err)
	}
}

const gadgetCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition",
"metadata":{"name":"gadgets.example.com"},
"spec":{"group":"example.com","scope":"Namespaced",
 "names":{"plural":"gadgets","singular":"gadget","kind":"Gadget","listKind":"GadgetList"},
 "versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{}},
  "schema":{"openAPIV3Schema":{"type":"object","properties":{
   "spec":{"type":"object","properties":{"size":{"type":"integer","minimum":1,"default":3}}},
   "status":{"type":"object","properties":{"ready":{"type":"boolean"}}}}}}}]}}`

func gadgetDefinition(t *testing.T) *apiextensionsv1.CustomResourceDefinition {
	var crd apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal([]byte(gadgetCRD), &crd); err != nil {
		t.Fatal(err)
	}
	return &crd
}

var gadgets = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
			return true
		}
	}
	return false
}

func TestACRDCreatedThroughTheClientsetIsServedThenDeletedWithItsObjects(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	ctx := context.Background()
	ax := apiextensionsclientset.NewForConfigOrDie(w.cfg)
	dyn := dynamic.NewForConfigOrDie(w.cfg)
	gadget := func(name string, spec map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": name}, "spec": spec}}
	}
	if _, err := dyn.Resource(gadgets).Namespace("default").Create(ctx, gadget("before", nil), metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("create before the CRD: %v, want NotFound", err)
	}
	created, err := ax.ApiextensionsV1().CustomResourceDefinitions().Create(ctx, gadgetDefinition(t), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(created.Status.Conditions) != 0 || len(created.Status.StoredVersions) != 1 || created.Status.StoredVersions[0] != "v1" {
		t.Fatalf("create answered status %+v: want no conditions yet and storedVersions [v1]", created.Status)
	}
	crd, err := ax.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "gadgets.example.com", metav1.GetOptions{})
	if err != nil || established(crd) {
		t.Fatalf("CRD before its controllers ran: %+v %v, want it not established yet", crd.Status, err)
	}
	if _, err := dyn.Resource(gadgets).Namespace("default").Create(ctx, gadget("early", nil), metav1.CreateOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("create before the CRD is established: %v, want NotFound", err)
	}
	w.clk.Step(time.Millisecond)
	crd, err = ax.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "gadgets.example.com", metav1.GetOptions{})
	if err != nil || !established(crd) || crd.Status.AcceptedNames.Kind != "Gadget" {
		t.Fatalf("CRD after its controllers ran: %+v %v, want Established with accepted names", crd.Status, err)
	}
	// Served, defaulted and validated from its schema.
	g, err := dyn.Resource(gadgets).Namespace("default").Create(ctx, gadget("g", map[string]any{}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructured.NestedInt64(g.Object, "spec", "size"); size != 3 {
		t.Fatalf("spec.size = %d, want the schema's default 3", size)
	}
	if _, err := dyn.Resource(gadgets).Namespace("default").Create(ctx, gadget("bad", map[string]any{"size": int64(0)}), metav1.CreateOptions{}); !apierrors.IsInvalid(err) {
		t.Fatalf("create below the minimum: %v, want Invalid", err)
	}
	// Discovery and a discovery-based RESTMapper see the new kind.
	dc := discovery.NewDiscoveryClientForConfigOrDie(w.cfg)
	groups, err := restmapper.GetAPIGroupResources(dc)
	if err != nil {
		t.Fatal(err)
	}
	m := restmapper.NewDiscoveryRESTMapper(groups)
	mapping, err := m.RESTMapping(schema.GroupKind{Group: "example.com", Kind: "Gadget"})
	if err != nil || mapping.Resource != gadgets || mapping.Scope.Name() != "namespace" {
		t.Fatalf("mapping: %+v %v", mapping, err)
	}
	// A finalizer holds one object; deleting the CRD deletes the rest and waits.
	held := gadget("held", map[string]any{})
	held.SetFinalizers([]string{"example.com/hold"})
	if _, err := dyn.Resource(gadgets).Namespace("default").Create(ctx, held, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := ax.ApiextensionsV1().CustomResourceDefinitions().Delete(ctx, "gadgets.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	w.clk.Step(time.Millisecond) // the finalizer controller deletes what it can
	crd, err = ax.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "gadgets.example.com", metav1.GetOptions{})
	if err != nil || crd.DeletionTimestamp == nil {
		t.Fatalf("CRD held by an object: %v %v, want it terminating", crd, err)
	}
	if _, err := dyn.Resource(gadgets).Namespace("default").Create(ctx, gadget("late", nil), metav1.CreateOptions{}); !apierrors.IsForbidden(err) ||
		!strings.Contains(err.Error(), "create not allowed while custom resource definition is terminating") {
		t.Fatalf("create while terminating: %v", err)
	}
	list, err := dyn.Resource(gadgets).Namespace("default").List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].GetName() != "held" || list.Items[0].GetDeletionTimestamp() == nil {
		t.Fatalf("objects while terminating: %v %v, want only the held one, deleting", list, err)
	}
	// Releasing it lets the next poll finish the cleanup: the CRD and its kind go.
	if _, err := dyn.Resource(gadgets).Namespace("default").Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	w.clk.Step(apiserver.CRDCleanupPoll)
	if _, err := ax.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, "gadgets.example.com", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("CRD after its objects went: %v, want NotFound", err)
	}
	if _, err := dyn.Resource(gadgets).Namespace("default").List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("list after the CRD went: %v, want NotFound (no longer served)", err)
	}
}

// controller-runtime's own client and dynamic RESTMapper, built from the
// config as an operator's main.go builds a second client, work on it.
func TestControllerRuntimeClientOnTheConfig(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	httpClient, err := rest.HTTPClientFor(w.cfg)
	if err != nil {
		t.Fatal(err)
	}
	mapper, err := apiutil.NewDynamicRESTMapper(w.cfg, httpClient)
	if err != nil {
		t.Fatal(err)
	}
	c, err := crclient.New(w.cfg, crclient.Options{Scheme: w.server.Scheme(), Mapper: mapper, HTTPClient: httpClient})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}, Data: map[string]string{"a": "b"}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	var got corev1.ConfigMap
	if err := c.Get(ctx, crclient.ObjectKeyFromObject(cm), &got); err != nil || got.Data["a"] != "b" {
		t.Fatalf("get: %v %v", got, err)
	}
	u := &unstructured.UnstructuredList{}
	u.SetAPIVersion("v1")
	u.SetKind("ConfigMapList")
	if err := c.List(ctx, u, crclient.InNamespace("default")); err != nil || len(u.Items) != 1 || u.Items[0].GetKind() != "ConfigMap" {
		t.Fatalf("unstructured list: %v %v", u.Items, err)
	}
	if err := c.Delete(ctx, &got); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, crclient.ObjectKeyFromObject(cm), &got); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: %v, want NotFound", err)
	}
}

// A dry run over REST (client-go's dryRun=All) is answered as the write
// would be and stores nothing; a dryRun value other than All is refused with
// kube-apiserver's 422.
func TestADryRunOverRESTIsAnsweredAndStoresNothing(t *testing.T) {
	w := newWorld(t, apiserver.Admin)
	cs := kubernetes.NewForConfigOrDie(w.cfg)
	ctx := context.Background()
	all := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	got, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Data: map[string]string{"k": "v"}}, all)
	if err != nil || got.UID == "" || got.Data["k"] != "v" || got.ResourceVersion != "" {
		t.Fatalf("a dry-run create answered %+v, %v; want the ConfigMap as created, no resourceVersion", got, err)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "d", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after a dry-run create: %v, want nothing created", err)
	}
	real, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "r"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	real.Data = map[string]string{"k": "new"}
	up, err := cs.CoreV1().ConfigMaps("default").Update(ctx, real, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
	if err != nil || up.Data["k"] != "new" || up.ResourceVersion != real.ResourceVersion {
		t.Errorf("a dry-run update answered %+v, %v; want the new data at the stored resourceVersion %s", up, err, real.ResourceVersion)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Patch(ctx, "r", types.MergePatchType, []byte(`{"data":{"k":"p"}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("a dry-run patch: %v", err)
	}
	if err := cs.CoreV1().ConfigMaps("default").Delete(ctx, "r", metav1.DeleteOptions{DryRun: []string{metav1.DryRunAll}}); err != nil {
		t.Errorf("a dry-run delete: %v", err)
	}
	if now, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "r", metav1.GetOptions{}); err != nil || now.ResourceVersion != real.ResourceVersion || len(now.Data) != 0 {
		t.Errorf("after dry runs the ConfigMap is %+v, %v; want it as created", now, err)
	}
	_, err = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "e"}}, metav1.CreateOptions{DryRun: []string{"Foo"}})
	if !apierrors.IsInvalid(err) {
		t.Errorf("a create with dryRun=Foo: %v, want 422", err)
	}
}
