package kube

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/meta/testrestmapper"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

var gapsEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// calls is a client that logs each write as "verb Kind name" (a
// deletecollection as "deletecollection Kind").
type calls struct {
	client.Client
	log []string
}

func (c *calls) add(verb string, obj runtime.Object, name string) {
	gvk, err := apiutil.GVKForObject(obj, c.Scheme())
	if err != nil {
		panic(err)
	}
	c.log = append(c.log, strings.TrimSpace(fmt.Sprintf("%s %s %s", verb, strings.TrimSuffix(gvk.Kind, "List"), name)))
}

func (c *calls) Create(ctx context.Context, obj client.Object, opts ...client.CreateOption) error {
	c.add("create", obj, obj.GetName())
	return c.Client.Create(ctx, obj, opts...)
}

func (c *calls) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	c.add("update", obj, obj.GetName())
	return c.Client.Update(ctx, obj, opts...)
}

func (c *calls) Patch(ctx context.Context, obj client.Object, p client.Patch, opts ...client.PatchOption) error {
	c.add("patch", obj, obj.GetName())
	return c.Client.Patch(ctx, obj, p, opts...)
}

func (c *calls) Delete(ctx context.Context, obj client.Object, opts ...client.DeleteOption) error {
	c.add("delete", obj, obj.GetName())
	return c.Client.Delete(ctx, obj, opts...)
}

func (c *calls) DeleteAllOf(ctx context.Context, obj client.Object, opts ...client.DeleteAllOfOption) error {
	c.add("deletecollection", obj, "")
	return c.Client.DeleteAllOf(ctx, obj, opts...)
}

// writes returns the calls of verb.
func (c *calls) writes(verb string) []string {
	var out []string
	for _, l := range c.log {
		if strings.HasPrefix(l, verb+" ") {
			out = append(out, l)
		}
	}
	return out
}

func fakeCluster(t *testing.T, objs ...client.Object) *calls {
	t.Helper()
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	fc := fake.NewClientBuilder().WithScheme(s).WithRESTMapper(testrestmapper.TestOnlyStaticRESTMapper(s)).
		WithStatusSubresource(&corev1.Namespace{}, &corev1.Pod{}, &appsv1.ReplicaSet{}, &appsv1.Deployment{}, &appsv1.StatefulSet{}).
		WithObjects(objs...).Build()
	return &calls{Client: fc}
}

func reconcileOnce(t *testing.T, r reconcile.Reconciler, namespace, name string) reconcile.Result {
	t.Helper()
	res, err := r.Reconcile(context.Background(), reconcile.Request{NamespacedName: types.NamespacedName{Namespace: namespace, Name: name}})
	if err != nil {
		t.Fatalf("reconcile %s/%s: %v", namespace, name, err)
	}
	return res
}

// deletingNamespace is Namespace ns deleted, its kubernetes finalizer
// pending (and a finalizer of the test's, which the fake client needs).
func deletingNamespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Finalizers: []string{"test/hold"},
		DeletionTimestamp: &metav1.Time{Time: gapsEpoch}},
		Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{FinalizerKubernetes}}}
}

func namespaceController(c *calls) *NamespaceController {
	return &NamespaceController{Client: c, APIReader: c, Clock: testingclock.NewFakeClock(gapsEpoch),
		Content: []client.ObjectList{&corev1.PodList{}, &corev1.ConfigMapList{}}}
}

func TestNamespaceContentIsDeletedObjectByObject(t *testing.T) {
	cm := func(name string, finalizers ...string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Finalizers: finalizers}}
	}
	c := fakeCluster(t, deletingNamespace("ns"), cm("a", "test/hold"), cm("b"), cm("c"))
	res := reconcileOnce(t, namespaceController(c), "", "ns")
	if got, want := c.writes("delete"), []string{"delete ConfigMap a", "delete ConfigMap b", "delete ConfigMap c"}; !slices.Equal(got, want) {
		t.Errorf("deletions %v, want %v", got, want)
	}
	if got := c.writes("deletecollection"); len(got) != 0 {
		t.Errorf("deletecollection calls %v, want none", got)
	}
	// The requeue on remaining content (a finalizer: the 15s estimate) is
	// RequeueAfter 15/2+1 s with no error, which Forgets the item's failures.
	if res != (reconcile.Result{RequeueAfter: 8 * time.Second}) {
		t.Errorf("result %+v, want RequeueAfter 8s", res)
	}
}

func TestAPodsGracePeriodIsTheEstimateAndMinTerminatingTheRest(t *testing.T) {
	// The pod stays (a finalizer): the estimate is its grace period, from
	// the pods listed before the deletion, not the finalizers' 15s.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "p", Finalizers: []string{"test/hold"}},
		Spec: corev1.PodSpec{TerminationGracePeriodSeconds: ptr.To[int64](30), Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
	c := fakeCluster(t, deletingNamespace("ns"), pod)
	if res := reconcileOnce(t, namespaceController(c), "", "ns"); res != (reconcile.Result{RequeueAfter: 16 * time.Second}) {
		t.Errorf("result %+v, want RequeueAfter 30/2+1 s", res)
	}
	// Slow content of other kinds has no estimate of its own: an empty
	// namespace stays MinTerminating.
	c = fakeCluster(t, deletingNamespace("ns"))
	nc := namespaceController(c)
	nc.MinTerminating = 20 * time.Second
	if res := reconcileOnce(t, nc, "", "ns"); res != (reconcile.Result{RequeueAfter: 20 * time.Second}) {
		t.Errorf("empty namespace: result %+v, want RequeueAfter MinTerminating (20s)", res)
	}
}

func TestTheNamespaceControllerHasNoEventRecorder(t *testing.T) {
	recorder := reflect.TypeFor[record.EventRecorder]()
	for f := range reflect.TypeFor[NamespaceController]().Fields() {
		if f.Type == recorder {
			t.Errorf("NamespaceController has an event recorder, %s", f.Name)
		}
	}
}

func TestTheNamespaceRequeueIsRequeueAfterOnAPerItemLimiterAlone(t *testing.T) {
	c := fakeCluster(t, deletingNamespace("ns"),
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", Finalizers: []string{"test/hold"}}})
	// Remaining content (a finalizer: the 15s estimate) is RequeueAfter
	// 15/2+1 s with no error, which Forgets the item's failure count.
	if res := reconcileOnce(t, namespaceController(c), "", "ns"); res != (reconcile.Result{RequeueAfter: 8 * time.Second}) {
		t.Errorf("result %+v, want RequeueAfter 8s", res)
	}
	// No 10 qps bucket (burst 100) beside the per-item limiter: the 200th
	// new item waits 5ms as the first did.
	rl := NamespaceRateLimiter()
	for i := range 200 {
		if d := rl.When(reconcile.Request{NamespacedName: types.NamespacedName{Name: fmt.Sprint("ns-", i)}}); d != 5*time.Millisecond {
			t.Fatalf("new item %d waits %v, want 5ms", i, d)
		}
	}
}

func replicaSet(replicas *int32) *appsv1.ReplicaSet {
	labels := map[string]string{"app": "web"}
	return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "rs-uid"},
		Spec: appsv1.ReplicaSetSpec{Replicas: replicas, Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}}
}

func replicaSetController(c *calls) *ReplicaSetController {
	rc := &ReplicaSetController{Client: c, Clock: testingclock.NewFakeClock(gapsEpoch)}
	rc.Controllers()
	return rc
}

func TestAWorkloadControllerAdoptsNoOrphan(t *testing.T) {
	orphan := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "orphan", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
	c := fakeCluster(t, replicaSet(ptr.To[int32](1)), orphan)
	reconcileOnce(t, replicaSetController(c), "default", "web")
	if got := c.writes("create"); !slices.Equal(got, []string{"create Pod"}) {
		t.Errorf("creates %v, want one new pod beside the orphan it selects", got)
	}
	if got := c.writes("patch"); len(got) != 0 {
		t.Errorf("patches %v, want no adoption (upstream's claimPods patches the orphan's ownerReferences)", got)
	}
}

func gapsDeployment(name string, template corev1.PodSpec, annotations map[string]string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(name + "-uid"), Annotations: annotations},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: template}}}
}

// reconcileDeployment reconciles deployment d on a fake cluster and returns
// its new ReplicaSet's pod-template-hash, and the Deployment after.
func reconcileDeployment(t *testing.T, d *appsv1.Deployment) (string, *appsv1.Deployment) {
	t.Helper()
	c := fakeCluster(t, d)
	dc := &DeploymentController{Client: c, Clock: testingclock.NewFakeClock(gapsEpoch)}
	dc.Controllers()
	reconcileOnce(t, dc, d.Namespace, d.Name)
	var rss appsv1.ReplicaSetList
	if err := c.List(context.Background(), &rss); err != nil || len(rss.Items) != 1 {
		t.Fatalf("ReplicaSets %d (%v), want 1", len(rss.Items), err)
	}
	after := &appsv1.Deployment{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(d), after); err != nil {
		t.Fatal(err)
	}
	return rss.Items[0].Labels[appsv1.DefaultDeploymentUniqueLabelKey], after
}

func TestADeploymentsRollbackToAnnotationIsIgnored(t *testing.T) {
	spec := corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}
	_, after := reconcileDeployment(t, gapsDeployment("web", spec, map[string]string{appsv1.DeprecatedRollbackTo: "1"}))
	if after.Annotations[appsv1.DeprecatedRollbackTo] != "1" {
		t.Errorf("annotations %v: want the rollbackTo annotation left in place (upstream rolls back and clears it)", after.Annotations)
	}
}

func TestASuspendedJobGetsNoSuspendedCondition(t *testing.T) {
	labels := map[string]string{batchv1.ControllerUidLabel: "job-uid", batchv1.JobNameLabel: "work"}
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "work", UID: "job-uid"},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), Parallelism: ptr.To[int32](1), Completions: ptr.To[int32](1),
			BackoffLimit: ptr.To[int32](6), CompletionMode: ptr.To(batchv1.NonIndexedCompletion),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}}
	c := fakeCluster(t, job)
	jc := &JobController{Client: c, Clock: testingclock.NewFakeClock(gapsEpoch)}
	jc.Controllers()
	reconcileOnce(t, jc, "default", "work")
	if got := c.writes("create"); len(got) != 0 {
		t.Fatalf("a suspended Job: creates %v, want none", got)
	}
	got := &batchv1.Job{}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(job), got); err != nil {
		t.Fatal(err)
	}
	if len(got.Status.Conditions) != 0 {
		t.Errorf("conditions %+v, want none (upstream: Suspended=True)", got.Status.Conditions)
	}
}

func TestAParallelStatefulSetCreatesItsPodsOneAfterTheOtherInOrdinalOrder(t *testing.T) {
	labels := map[string]string{"app": "db"}
	set := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "db", UID: "db-uid"},
		Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](4), PodManagementPolicy: appsv1.ParallelPodManagement, ServiceName: "db",
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}}
	c := fakeCluster(t, set)
	sc := &StatefulSetController{Client: c, APIReader: c, Clock: testingclock.NewFakeClock(gapsEpoch)}
	sc.Controllers()
	reconcileOnce(t, sc, "default", "db")
	var pods []string
	for _, w := range c.writes("create") {
		if name, ok := strings.CutPrefix(w, "create Pod "); ok {
			pods = append(pods, name)
		}
	}
	if want := []string{"db-0", "db-1", "db-2", "db-3"}; !slices.Equal(pods, want) {
		t.Errorf("pods created %v, want %v", pods, want)
	}
}

func TestOneEndpointSliceHoldsEveryEndpoint(t *testing.T) {
	objs := []client.Object{
		&corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1"}},
		&corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "svc-uid"},
			Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, ClusterIP: "10.0.0.1",
				Ports: []corev1.ServicePort{{Name: "http", Port: 80, Protocol: corev1.ProtocolTCP}}}},
	}
	const n = 101 // upstream: at most 100 endpoints a slice
	for i := range n {
		objs = append(objs, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("web-%03d", i), Labels: map[string]string{"app": "web"}},
			Spec: corev1.PodSpec{NodeName: "node-1", Containers: []corev1.Container{{Name: "c", Image: "i"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: fmt.Sprintf("10.1.%d.%d", i/250, i%250+1),
				PodIPs:     []corev1.PodIP{{IP: fmt.Sprintf("10.1.%d.%d", i/250, i%250+1)}},
				Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}})
	}
	c := fakeCluster(t, objs...)
	ec := &EndpointSliceController{Client: c}
	ec.Controllers()
	reconcileOnce(t, ec, "default", "web")
	var eps discoveryv1.EndpointSliceList
	if err := c.List(context.Background(), &eps); err != nil {
		t.Fatal(err)
	}
	if len(eps.Items) != 1 || len(eps.Items[0].Endpoints) != n {
		var sizes []int
		for _, s := range eps.Items {
			sizes = append(sizes, len(s.Endpoints))
		}
		t.Errorf("slices of %v endpoints, want one of %d", sizes, n)
	}
}

func TestTheKubeletBindsByAnUpdateAndRegistersNodesByNameOnly(t *testing.T) {
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p", UID: "p-uid"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
	c := fakeCluster(t, pod)
	k := &Kubelet{Client: c, Clock: testingclock.NewFakeClock(gapsEpoch)}
	k.Controllers()
	reconcileOnce(t, k, "default", "p")
	if got := c.writes("update"); !slices.Contains(got, "update Pod p") {
		t.Errorf("updates %v, want the pod bound by an update of spec.nodeName", got)
	}
	var node corev1.Node
	if err := c.Get(context.Background(), client.ObjectKey{Name: "node-1"}, &node); err != nil {
		t.Fatalf("node-1: %v, want it registered at the first pod", err)
	}
	if len(node.Labels) != 0 || !reflect.DeepEqual(node.Status, corev1.NodeStatus{}) {
		t.Errorf("node-1 labels %v, status %+v; want a name only", node.Labels, node.Status)
	}
}
