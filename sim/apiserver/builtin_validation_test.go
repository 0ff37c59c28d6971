package apiserver_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/clock"
)

// deployment is the smallest Deployment kube-apiserver accepts.
func deployment(name string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}}},
	}}
}

// pod is the smallest Pod kube-apiserver accepts.
func pod(name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.example/app:1"}}}}
}

// wantInvalid requires a 422 Invalid whose message is exactly msg.
func wantInvalid(t *testing.T, what string, err error, msg string) {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Errorf("%s: want 422 Invalid %q, got %v", what, msg, err)
		return
	}
	if err.Error() != msg {
		t.Errorf("%s: message\n  %s\nwant\n  %s", what, err.Error(), msg)
	}
}

// Built-in kinds are validated by kube-apiserver's own registry strategies and
// validation (k8s.io/kubernetes pkg/registry/<group>/<kind>, pkg/apis/<group>/
// validation), with its messages; the texts below are kube-apiserver v1.37.2's.
func TestBuiltinKindsAreValidatedAsKubeAPIServerValidatesThem(t *testing.T) {
	w := newWorld(t)

	d := deployment("noselector")
	d.Spec.Selector = nil
	wantInvalid(t, "Deployment without selector", w.s.Create(admin, d),
		`Deployment.apps "noselector" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: {"app":"noselector"}: `+"`selector` does not match template `labels`]")

	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "manual"}, Spec: batchv1.JobSpec{
		ManualSelector: ptr.To(true),
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "pi", Image: "perl"}}}}}}
	wantInvalid(t, "Job with manualSelector and no selector", w.s.Create(admin, job),
		`Job.batch "manual" is invalid: [spec.selector: Required value, spec.template.metadata.labels: Invalid value: null: `+"`selector` does not match template `labels`]")

	job = &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "always"}, Spec: batchv1.JobSpec{
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyAlways,
			Containers: []corev1.Container{{Name: "pi", Image: "perl"}}}}}}
	wantInvalid(t, "Job with restartPolicy Always", w.s.Create(admin, job),
		`Job.batch "always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`)

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 70000}}}}
	wantInvalid(t, "Service with port 70000", w.s.Create(admin, svc),
		`Service "web" is invalid: [spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive, `+
			`spec.ports[0].targetPort: Invalid value: 70000: must be between 1 and 65535, inclusive]`) // targetPort defaults to port

	// Updates run the strategy's ValidateUpdate: a Deployment's selector is immutable.
	d = deployment("web")
	w.must(w.s.Create(admin, d))
	d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web", "tier": "x"}}
	d.Spec.Template.Labels = map[string]string{"app": "web", "tier": "x"}
	err := w.s.Update(admin, d, "")
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "spec.selector: Invalid value") || !strings.Contains(err.Error(), "field is immutable") {
		t.Errorf("a Deployment's selector change: want 422 field is immutable, got %v", err)
	}
	// ... and the status strategy's: a negative replica count in status (the
	// causes in field order).
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(d), d))
	d.Status.Replicas = -1
	wantInvalid(t, "Deployment status with replicas -1", w.s.Update(admin, d, "status"),
		`Deployment.apps "web" is invalid: [status.availableReplicas: Invalid value: 0: cannot be greater than status.replicas, `+
			`status.readyReplicas: Invalid value: 0: cannot be greater than status.replicas, `+
			`status.replicas: Invalid value: -1: must be greater than or equal to 0, `+
			`status.updatedReplicas: Invalid value: 0: cannot be greater than status.replicas]`)
	// A patch is validated as an update.
	err = w.s.Patch(admin, d, types.MergePatchType, []byte(`{"spec":{"replicas":-2}}`), "")
	wantInvalid(t, "Deployment patched to replicas -2", err,
		`Deployment.apps "web" is invalid: spec.replicas: Invalid value: -2: must be greater than or equal to 0`)
}

// Causes that validation finds by walking a map (ConfigMap keys, labels) are
// listed in field order, so a run does not depend on Go map iteration.
func TestBuiltinValidationCausesAreInFieldOrder(t *testing.T) {
	w := newWorld(t)
	var first string
	for i := 0; i < 20; i++ {
		c := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "bad"},
			Data: map[string]string{"a b": "1", "c/d": "2", "e f": "3", "g?h": "4", "ok": "5"}}
		err := w.s.Create(admin, c)
		if !apierrors.IsInvalid(err) {
			t.Fatalf("ConfigMap with invalid keys: want 422, got %v", err)
		}
		if i == 0 {
			first = err.Error()
			if !strings.Contains(first, `data[a b]: Invalid value: "a b"`) || strings.Index(first, "data[a b]") > strings.Index(first, "data[g?h]") {
				t.Fatalf("causes not in field order: %s", first)
			}
		} else if err.Error() != first {
			t.Fatalf("the same request gave two messages:\n%s\n%s", first, err.Error())
		}
	}
}

// Bodies are defaulted with kube-apiserver's v1 defaulters (pkg/apis/apps/v1 and
// pkg/apis/core/v1 defaults.go) on create and on update.
func TestBuiltinKindsGetKubeAPIServersDefaults(t *testing.T) {
	w := newWorld(t)
	d := deployment("web")
	w.must(w.s.Create(admin, d))
	s := d.Spec
	quarter := intstr.FromString("25%")
	if ptr.Deref(s.Replicas, 0) != 1 || s.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || s.Strategy.RollingUpdate == nil ||
		*s.Strategy.RollingUpdate.MaxSurge != quarter || *s.Strategy.RollingUpdate.MaxUnavailable != quarter ||
		ptr.Deref(s.RevisionHistoryLimit, 0) != 10 || ptr.Deref(s.ProgressDeadlineSeconds, 0) != 600 {
		t.Errorf("Deployment spec not defaulted: %+v", s)
	}
	c := s.Template.Spec.Containers[0]
	if c.ImagePullPolicy != corev1.PullIfNotPresent || c.TerminationMessagePath != corev1.TerminationMessagePathDefault ||
		s.Template.Spec.RestartPolicy != corev1.RestartPolicyAlways || s.Template.Spec.DNSPolicy != corev1.DNSClusterFirst {
		t.Errorf("pod template not defaulted: %+v", s.Template.Spec)
	}

	p := pod("latest")
	p.Spec.Containers[0].Image = "registry.example/app:latest"
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resourceQuantity("1"), corev1.ResourceMemory: resourceQuantity("1Gi")}
	w.must(w.s.Create(admin, p))
	if got := p.Spec.Containers[0].ImagePullPolicy; got != corev1.PullAlways {
		t.Errorf("an image tagged latest is pulled Always, got %q", got)
	}
	if p.Status.QOSClass != corev1.PodQOSGuaranteed {
		t.Errorf("limits alone are copied into requests before the QoS class: got %q, want Guaranteed", p.Status.QOSClass)
	}

	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "web"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Port: 80}}}}
	w.must(w.s.Create(admin, svc))
	if svc.Spec.SessionAffinity != corev1.ServiceAffinityNone || svc.Spec.Type != corev1.ServiceTypeClusterIP ||
		svc.Spec.Ports[0].Protocol != corev1.ProtocolTCP || svc.Spec.Ports[0].TargetPort != intstr.FromInt32(80) {
		t.Errorf("Service not defaulted: %+v", svc.Spec)
	}

	// An update's body is defaulted too: a cleared strategy comes back.
	d.Spec.Strategy = appsv1.DeploymentStrategy{}
	w.must(w.s.Update(admin, d, ""))
	if d.Spec.Strategy.Type != appsv1.RollingUpdateDeploymentStrategyType || d.Generation != 1 {
		t.Errorf("an update without a strategy: %+v, generation %d (want the default again, no spec change)", d.Spec.Strategy, d.Generation)
	}
}

func resourceQuantity(s string) resource.Quantity { return resource.MustParse(s) }

// BenchmarkBuiltinDeploymentUpdate is an update of a Deployment's spec
// (defaulting, conversion to the internal type and kube-apiserver's
// ValidateUpdate included), next to the same update of a ConfigMap's data.
func BenchmarkBuiltinDeploymentUpdate(b *testing.B) {
	s := apiserver.New(apiserver.Options{Scheme: apiservertest.Scheme(), Clock: clock.New(clock.Epoch)})
	s.CreateDefaultNamespaces()
	if err := s.Create(admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}}); err != nil {
		b.Fatal(err)
	}
	d, c := deployment("web"), cm("web")
	if err := errors.Join(s.Create(admin, d), s.Create(admin, c)); err != nil {
		b.Fatal(err)
	}
	b.Run("Deployment", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			d.Spec.Replicas = ptr.To(int32(i % 5))
			if err := s.Update(admin, d, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ConfigMap", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			c.Data["k"] = strconv.Itoa(i % 5)
			if err := s.Update(admin, c, ""); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// The model has no pods/binding subresource: an update binds an unbound pod
// (spec.nodeName set), and any other spec change is still refused.
func TestAnUpdateBindsAnUnboundPod(t *testing.T) {
	w := newWorld(t)
	p := pod("p")
	w.must(w.s.Create(admin, p))
	p.Spec.NodeName = "node-1"
	w.must(w.s.Update(admin, p, ""))
	p.Spec.NodeName = "node-2"
	if err := w.s.Update(admin, p, ""); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "pod updates may not change fields other than") {
		t.Errorf("moving a bound pod to another node: want 422, got %v", err)
	}
	q := pod("q")
	w.must(w.s.Create(admin, q))
	q.Spec.NodeName = "node-1"
	q.Spec.RestartPolicy = corev1.RestartPolicyNever
	if err := w.s.Update(admin, q, ""); !apierrors.IsInvalid(err) {
		t.Errorf("binding with another spec change: want 422, got %v", err)
	}
}

// A Secret's stringData is merged into data by the conversion to the internal
// type and is not stored.
func TestSecretStringDataIsMergedIntoData(t *testing.T) {
	w := newWorld(t)
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "s"}, StringData: map[string]string{"k": "v"}}
	w.must(w.s.Create(admin, s))
	var got corev1.Secret
	w.must(w.s.Get(admin, client.ObjectKeyFromObject(s), &got))
	if string(got.Data["k"]) != "v" || got.StringData != nil || got.Type != corev1.SecretTypeOpaque {
		t.Errorf("stored Secret: data %v, stringData %v, type %q", got.Data, got.StringData, got.Type)
	}
}
