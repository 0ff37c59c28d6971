package differential

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it. They run on the model alone (no envtest).

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// modelAdmin is a fresh model's admin client.
func modelAdmin(t *testing.T) client.Client {
	t.Helper()
	c, err := NewModel().Client(apiserver.Admin)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestOnlyTheRunsNamespacesAreListed(t *testing.T) {
	for _, op := range FinalOps() {
		if op.Kind != Namespace && op.Namespace == "" {
			t.Errorf("a final list across namespaces: %v", op)
		}
	}
	m := NewModel()
	admin, err := m.Client(apiserver.Admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "elsewhere"}}); err != nil {
		t.Fatal(err)
	}
	names := Names{Run: 7}
	out, _ := runSide(ctx, m, names, []Op{
		{Verb: Create, Kind: Namespace, Namespace: "a"},
		{Verb: List, Kind: ConfigMap, Namespace: "a"},
		{Verb: List, Kind: Namespace},
	}, Tolerances{})
	if len(out[1].Items) != 0 {
		t.Errorf("a list of ConfigMaps in the run's namespace holds %v, want none (default's is not the run's)", out[1].Items)
	}
	var listed []string
	for _, it := range out[2].Items {
		listed = append(listed, itemName(it))
	}
	if want := []string{names.Namespace("a")}; !slices.Equal(listed, want) {
		t.Errorf("a list of Namespaces holds %v, want the run's %v (default and kube-system filtered out)", listed, want)
	}
}

func TestAListsResourceVersionIsNotCompared(t *testing.T) {
	var fields []string
	for f := range reflect.TypeFor[Outcome]().Fields() {
		fields = append(fields, f.Name)
	}
	if want := []string{"Error", "Object", "Items", "IsList", "Unordered"}; !slices.Equal(fields, want) {
		t.Errorf("an Outcome's fields are %v, want %v (no list metadata)", fields, want)
	}
	out, _ := runSide(ctx, NewModel(), Names{Run: 1}, []Op{
		{Verb: Create, Kind: Namespace, Namespace: "a"},
		{Verb: List, Kind: ConfigMap, Namespace: "a"},
	}, Tolerances{})
	b, err := json.Marshal(out[1])
	if err != nil {
		t.Fatal(err)
	}
	if !out[1].IsList || strings.Contains(string(b), "resourceVersion") {
		t.Errorf("an empty list's outcome is %s, want one with no resourceVersion", b)
	}
}

func TestTheSequencesDeploymentsCarryEveryDefault(t *testing.T) {
	admin := modelAdmin(t)
	if err := admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "d"}}); err != nil {
		t.Fatal(err)
	}
	for v := range 2 {
		d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "d", GenerateName: "d-"}, Spec: DeploymentSpec(v)}
		if err := admin.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(d.Spec, DeploymentSpec(v)) {
			t.Errorf("the model defaulted DeploymentSpec(%d): %+v", v, d.Spec)
		}
	}
	// The model does default a Deployment that leaves the defaults out: the
	// sequences' Deployments do not exercise it.
	bare := DeploymentSpec(0)
	bare.Strategy, bare.RevisionHistoryLimit, bare.ProgressDeadlineSeconds = appsv1.DeploymentStrategy{}, nil, nil
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "d", Name: "bare"}, Spec: bare}
	if err := admin.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	if d.Spec.Strategy.Type == "" || d.Spec.RevisionHistoryLimit == nil {
		t.Errorf("a bare Deployment on the model: strategy %q, revisionHistoryLimit %v; want them defaulted", d.Spec.Strategy.Type, d.Spec.RevisionHistoryLimit)
	}
}

func TestNoControllerRunsBesideTheModelAndFiveInKubeControllerManager(t *testing.T) {
	admin := modelAdmin(t)
	owner := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "owner"}}
	for _, o := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone"}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "gone", Name: "content"}}, owner} {
		if err := admin.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "child",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID, Controller: ptr.To(true)}}}}
	if err := admin.Create(ctx, child); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "gone"}}, owner} {
		if err := admin.Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	var ns corev1.Namespace
	if err := admin.Get(ctx, client.ObjectKey{Name: "gone"}, &ns); err != nil || ns.Status.Phase != corev1.NamespaceTerminating {
		t.Errorf("the deleted namespace: %v, phase %q; want it Terminating", err, ns.Status.Phase)
	}
	for _, key := range []client.ObjectKey{{Namespace: "gone", Name: "content"}, {Namespace: "default", Name: "child"}} {
		if err := admin.Get(ctx, key, &corev1.ConfigMap{}); err != nil {
			t.Errorf("%s: %v, want it left", key, err)
		}
	}
	want := []string{"deployment-controller", "replicaset-controller", "job-controller", "statefulset-controller", "endpointslice-controller"}
	if !slices.Equal(KubeControllerManagerControllers, want) {
		t.Errorf("kube-controller-manager runs %v, want %v (no garbage collector)", KubeControllerManagerControllers, want)
	}
	if args := KubeControllerManagerArgs(KubeControllerManagerControllers); !slices.Contains(args, "--controllers="+strings.Join(want, ",")) {
		t.Errorf("kube-controller-manager's arguments %v", args)
	}
}

func TestTheRepairLoopsEventsAreNotRecorded(t *testing.T) {
	ev := func(name, reason string) corev1.Event {
		return corev1.Event{ObjectMeta: metav1.ObjectMeta{Namespace: "w", Name: name}, Reason: reason, Type: corev1.EventTypeWarning,
			InvolvedObject: corev1.ObjectReference{Kind: "Service", Name: "web"}, Count: 1}
	}
	s := &Snapshot{Events: []corev1.Event{ev("a", "ClusterIPNotAllocated"), ev("b", "Other")}}
	lines := strings.Join(s.Lines(), "\n")
	if strings.Contains(lines, "ClusterIPNotAllocated") || !strings.Contains(lines, `"reason":"Other"`) {
		t.Errorf("the records are:\n%s\nwant the Other Event and not the repair loop's", lines)
	}
}

func TestARecordKeepsOnlyTheRecordedFields(t *testing.T) {
	pod := corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "w", Name: "p"}, Spec: corev1.PodSpec{
		Containers: []corev1.Container{{Name: "app", Image: "web:1", Env: []corev1.EnvVar{{Name: "A", Value: "1"}},
			Ports: []corev1.ContainerPort{{ContainerPort: 8080}}, Command: []string{"serve"}}},
		ServiceAccountName: "runner", Hostname: "p", RestartPolicy: corev1.RestartPolicyAlways},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "10.1.0.1"}}
	d := appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "w", Name: "web", ResourceVersion: "42"},
		Spec: DeploymentSpec(0)}
	lines := strings.Join((&Snapshot{Pods: []corev1.Pod{pod}, Deployments: []appsv1.Deployment{d}}).Lines(), "\n")
	for _, want := range []string{`"image":"web:1"`, `"env":`, `"hostname":"p"`, `"phase":"Running"`, `"replicas":`} {
		if !strings.Contains(lines, want) {
			t.Errorf("the records lack %s:\n%s", want, lines)
		}
	}
	for _, gone := range []string{"containerPort", "serve", "runner", "restartPolicy", "10.1.0.1", "strategy", "resourceVersion", "42"} {
		if strings.Contains(lines, gone) {
			t.Errorf("the records keep %s:\n%s", gone, lines)
		}
	}
}

func TestTheWorkloadsPodsAreUnboundAndDeletedAtOnce(t *testing.T) {
	for name, spec := range map[string]corev1.PodSpec{
		"pod":        WorkloadPodSpec("web:1", corev1.RestartPolicyAlways),
		"deployment": WorkloadDeployment("w", "web", 1, "web:1").Spec.Template.Spec,
		"job":        WorkloadJob("w", "batch", 1, "succeed").Spec.Template.Spec,
	} {
		if spec.NodeName != "" {
			t.Errorf("the %s's pods are bound to %s", name, spec.NodeName)
		}
	}
	admin := modelAdmin(t)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p"}, Spec: WorkloadPodSpec("web:1", corev1.RestartPolicyAlways)}
	if err := admin.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if err := admin.Delete(ctx, pod); err != nil {
		t.Fatal(err)
	}
	if err := admin.Get(ctx, client.ObjectKeyFromObject(pod), &corev1.Pod{}); !apierrors.IsNotFound(err) {
		t.Errorf("an unbound pod just deleted: %v, want NotFound (no graceful termination)", err)
	}
}
