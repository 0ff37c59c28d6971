package differential

import (
	"context"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The tests in this file check that the model validates and defaults built-in
// kinds as kube-apiserver does (sim/apiserver builtin_validation.go hosts
// kube-apiserver's own registry strategies, validation and v1 defaulters): the
// same objects, and the same 422s with the same causes, on both sides.

// createObj creates the object mk builds in the run's namespace.
func createObj(name string, mk func(ns string) client.Object) Step {
	return Step{name, func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
		o := mk(ns)
		return o, c.Create(ctx, o)
	}}
}

// patchStep merge-patches the object mk names with patch.
func patchStep(name string, mk func(ns string) client.Object, patch string) Step {
	return Step{name, func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
		o := mk(ns)
		return o, c.Patch(ctx, o, client.RawPatch(types.MergePatchType, []byte(patch)))
	}}
}

// wantOutcomes requires each step's outcome on the model (the same as on
// kube-apiserver once compareSteps passes) to be the one the test means: "ok" or
// an error category such as "422 Invalid".
func wantOutcomes(t *testing.T, c *Comparison, want ...string) {
	t.Helper()
	if len(c.Model) != len(want) {
		t.Fatalf("%d outcomes, want %d", len(c.Model), len(want))
	}
	for i, w := range want {
		if got := c.Model[i].Category(); got != w {
			t.Errorf("step %d (%s): %s, want %s", i, c.Ops[i], got, w)
		}
	}
}

const ok, invalid = "ok", "422 Invalid"

func container() corev1.Container {
	return corev1.Container{Name: "app", Image: "registry.example/app:1"}
}

func podTemplate(labels map[string]string, restart corev1.RestartPolicy) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
		Spec: corev1.PodSpec{RestartPolicy: restart, Containers: []corev1.Container{container()}}}
}

// Pods: a bare pod's spec is defaulted (restartPolicy, dnsPolicy, schedulerName,
// terminationGracePeriodSeconds, each container's imagePullPolicy, Always for a
// :latest image, and terminationMessagePath/Policy); a pod without containers, with
// an invalid container name or without an image is refused; an update may change
// only a container's image and a few other fields.
func TestBuiltinPodsAreValidatedAndDefaultedAsKubeAPIServerDoes(t *testing.T) {
	// Admission plugins the model does not run (Priority, DefaultTolerationSeconds)
	// add spec.priority, preemptionPolicy and tolerations on a real server; the
	// comparison looks at the rest of the spec.
	podSpec := func(o client.Object, err error) (client.Object, error) {
		if p, ok := o.(*corev1.Pod); ok && err == nil {
			p.Spec.Priority, p.Spec.PreemptionPolicy, p.Spec.Tolerations = nil, nil, nil
		}
		return o, err
	}
	pod := func(name string, cs ...corev1.Container) func(ns string) client.Object {
		return func(ns string) client.Object {
			return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.PodSpec{Containers: cs}}
		}
	}
	latest := container()
	latest.Image = "registry.example/app:latest"
	badName := container()
	badName.Name = "Bad_Name"
	noImage := container()
	noImage.Image = ""
	create := func(name string, mk func(ns string) client.Object) Step {
		st := createObj(name, mk)
		do := st.Do
		st.Do = func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			return podSpec(do(ctx, c, ns))
		}
		return st
	}
	c := compareSteps(t,
		create("create Pod", pod("web", container())),
		create("create Pod with a :latest image", pod("latest", latest)),
		create("create Pod without containers", pod("empty")),
		create("create Pod with container name Bad_Name", pod("badname", badName)),
		create("create Pod with a container without image", pod("noimage", noImage)),
		Step{"update Pod's image", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			p := &corev1.Pod{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, p); err != nil {
				return nil, err
			}
			p.Spec.Containers[0].Image = "registry.example/app:2"
			return podSpec(p, c.Update(ctx, p))
		}},
		Step{"update Pod's restartPolicy", func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			p := &corev1.Pod{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, p); err != nil {
				return nil, err
			}
			p.Spec.RestartPolicy = corev1.RestartPolicyNever
			err := c.Update(ctx, p)
			if err != nil && strings.Contains(err.Error(), "pod updates may not change fields other than") {
				return nil, err
			}
			return podSpec(p, err)
		}},
	)
	wantOutcomes(t, c, ok, ok, invalid, invalid, invalid, ok, invalid)
}

// Jobs: manualSelector without a selector and restartPolicy Always are refused
// (pkg/apis/batch/validation ValidateJobCreate); a Job's template is immutable.
func TestBuiltinJobsAreValidatedAsKubeAPIServerDoes(t *testing.T) {
	job := func(name string, edit func(*batchv1.Job)) func(ns string) client.Object {
		return func(ns string) client.Object {
			j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
				Spec: batchv1.JobSpec{Template: podTemplate(nil, corev1.RestartPolicyNever)}}
			edit(j)
			return j
		}
	}
	// The valid Job has its own selector: a generated one carries the Job's uid
	// (compared by the workload scripts, workload_test.go).
	pi := map[string]string{"app": "pi"}
	manual := func(j *batchv1.Job) {
		j.Spec.ManualSelector, j.Spec.Selector, j.Spec.Template.Labels = ptr.To(true), &metav1.LabelSelector{MatchLabels: pi}, pi
	}
	c := compareSteps(t,
		createObj("create Job with its own selector", job("pi", manual)),
		createObj("create Job with manualSelector and no selector", job("manual", func(j *batchv1.Job) { j.Spec.ManualSelector = ptr.To(true) })),
		createObj("create Job with restartPolicy Always", job("always", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways })),
		createObj("create Job with restartPolicy Bogus", job("bogus", func(j *batchv1.Job) { j.Spec.Template.Spec.RestartPolicy = "Bogus" })),
		createObj("create Job with completions -1", job("negative", func(j *batchv1.Job) { j.Spec.Completions = ptr.To[int32](-1) })),
		patchStep("patch Job's template image", job("pi", manual),
			`{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"registry.example/app:2"}]}}}}`),
		patchStep("patch Job's parallelism", job("pi", manual), `{"spec":{"parallelism":2}}`),
	)
	wantOutcomes(t, c, ok, invalid, invalid, invalid, invalid, invalid, ok)
}

// Deployments: a minimal Deployment is defaulted (replicas 1, RollingUpdate
// 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds 600, the pod
// template's defaults); one without a selector, or whose selector does not match
// its template, is refused; the selector is immutable (apps/v1 ValidateDeploymentUpdate).
func TestBuiltinDeploymentsAreValidatedAndDefaultedAsKubeAPIServerDoes(t *testing.T) {
	web := map[string]string{"app": "web"}
	deploy := func(name string, edit func(*appsv1.Deployment)) func(ns string) client.Object {
		return func(ns string) client.Object {
			d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: appsv1.DeploymentSpec{
				Selector: &metav1.LabelSelector{MatchLabels: web}, Template: podTemplate(web, "")}}
			edit(d)
			return d
		}
	}
	c := compareSteps(t,
		createObj("create minimal Deployment", deploy("web", func(*appsv1.Deployment) {})),
		createObj("create Deployment without selector", deploy("noselector", func(d *appsv1.Deployment) { d.Spec.Selector = nil })),
		createObj("create Deployment whose selector does not match its template", deploy("mismatch", func(d *appsv1.Deployment) {
			d.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
		})),
		createObj("create Deployment with strategy Recreate and rollingUpdate", deploy("recreate", func(d *appsv1.Deployment) {
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{}}
		})),
		patchStep("patch Deployment's selector", deploy("web", func(*appsv1.Deployment) {}),
			`{"spec":{"selector":{"matchLabels":{"app":"web","tier":"x"}},"template":{"metadata":{"labels":{"app":"web","tier":"x"}}}}}`),
		patchStep("patch Deployment's replicas to -1", deploy("web", func(*appsv1.Deployment) {}), `{"spec":{"replicas":-1}}`),
		patchStep("patch Deployment's strategy away", deploy("web", func(*appsv1.Deployment) {}), `{"spec":{"strategy":null}}`),
	)
	wantOutcomes(t, c, ok, invalid, invalid, invalid, invalid, invalid, ok)
}

// StatefulSets: a minimal StatefulSet is defaulted (podManagementPolicy
// OrderedReady, RollingUpdate with partition 0, revisionHistoryLimit 10, the PVC
// retention policy Retain/Retain); a selector that does not match the template and
// a bad podManagementPolicy are refused; only some fields may change.
func TestBuiltinStatefulSetsAreValidatedAndDefaultedAsKubeAPIServerDoes(t *testing.T) {
	web := map[string]string{"app": "web"}
	sts := func(name string, edit func(*appsv1.StatefulSet)) func(ns string) client.Object {
		return func(ns string) client.Object {
			s := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: appsv1.StatefulSetSpec{
				ServiceName: "web", Selector: &metav1.LabelSelector{MatchLabels: web}, Template: podTemplate(web, "")}}
			edit(s)
			return s
		}
	}
	c := compareSteps(t,
		createObj("create minimal StatefulSet", sts("web", func(*appsv1.StatefulSet) {})),
		createObj("create StatefulSet whose selector does not match its template", sts("mismatch", func(s *appsv1.StatefulSet) {
			s.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "other"}}
		})),
		createObj("create StatefulSet with podManagementPolicy Bogus", sts("bogus", func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = "Bogus" })),
		patchStep("patch StatefulSet's serviceName", sts("web", func(*appsv1.StatefulSet) {}), `{"spec":{"serviceName":"other"}}`),
		patchStep("patch StatefulSet's replicas", sts("web", func(*appsv1.StatefulSet) {}), `{"spec":{"replicas":3}}`),
	)
	wantOutcomes(t, c, ok, invalid, invalid, invalid, ok)
}

// Services: sessionAffinity, type, each port's protocol and targetPort are
// defaulted; a port out of range, a duplicate port and an ExternalName Service
// without its name are refused. (ExternalName Services: a ClusterIP Service gets
// cluster IPs from an allocator the model does not have; TestKnownGapServiceClusterIPs.)
func TestBuiltinServicesAreValidatedAndDefaultedAsKubeAPIServerDoes(t *testing.T) {
	svc := func(name string, edit func(*corev1.Service)) func(ns string) client.Object {
		return func(ns string) client.Object {
			s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{
				Type: corev1.ServiceTypeExternalName, ExternalName: "db.example.com", Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
			edit(s)
			return s
		}
	}
	c := compareSteps(t,
		createObj("create ExternalName Service", svc("db", func(*corev1.Service) {})),
		createObj("create Service with port 70000", svc("bigport", func(s *corev1.Service) { s.Spec.Ports[0].Port = 70000 })),
		createObj("create Service with a duplicate port", svc("dup", func(s *corev1.Service) {
			s.Spec.Ports = append(s.Spec.Ports, corev1.ServicePort{Name: "http2", Port: 80})
		})),
		createObj("create ExternalName Service without externalName", svc("noname", func(s *corev1.Service) { s.Spec.ExternalName = "" })),
		createObj("create Service named Bad.Name", svc("Bad.Name", func(*corev1.Service) {})),
		patchStep("patch Service's sessionAffinity to Bogus", svc("db", func(*corev1.Service) {}), `{"spec":{"sessionAffinity":"Bogus"}}`),
	)
	wantOutcomes(t, c, ok, invalid, invalid, invalid, invalid, invalid)
}

// Services get what the service registry allocates, as on kube-apiserver:
// clusterIPs from clusterIP, IP family fields, a cluster IP (none for a
// headless Service), node ports for a NodePort Service and a health-check
// node port for a LoadBalancer with externalTrafficPolicy Local; an update
// that leaves them out keeps them; what is asked for is given, or refused
// with the allocator's error when taken, outside the range or for a family
// the cluster lacks; a deleted Service's address is free again. (The model
// and envtest both use 10.0.0.0/24; a value either side allocated itself,
// the model from a hash and kube-apiserver at random, is compared by where
// it falls.)
func TestServiceAllocationMatchesKubeAPIServer(t *testing.T) {
	const asked = "10.0.0.10" // in the lower band, which dynamic allocation leaves alone
	svc := func(name string, edit func(*corev1.Service)) func(ns string) client.Object {
		return func(ns string) client.Object {
			s := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": name}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
			edit(s)
			return s
		}
	}
	none := func(*corev1.Service) {}
	create := func(name string, mk func(ns string) client.Object) Step {
		return Step{name, func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := mk(ns)
			err := c.Create(ctx, o)
			return allocatedByWhere(o, asked), err
		}}
	}
	update := func(name string, mk func(ns string) client.Object) Step {
		return Step{name, func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			o := mk(ns)
			var cur corev1.Service
			if err := c.Get(ctx, client.ObjectKeyFromObject(o), &cur); err != nil {
				return nil, err
			}
			o.SetResourceVersion(cur.ResourceVersion)
			err := c.Update(ctx, o)
			return allocatedByWhere(o, asked), err
		}}
	}
	del := func(name string, mk func(ns string) client.Object) Step {
		return Step{name, func(ctx context.Context, c client.Client, ns string) (client.Object, error) {
			return nil, c.Delete(ctx, mk(ns))
		}}
	}
	nodePort := func(s *corev1.Service) { s.Spec.Type = corev1.ServiceTypeNodePort }
	c := compareSteps(t,
		create("create ClusterIP Service", svc("web", none)),
		create("create headless Service", svc("db", func(s *corev1.Service) { s.Spec.ClusterIP = corev1.ClusterIPNone })),
		create("create headless Service without selector", svc("ext", func(s *corev1.Service) {
			s.Spec.ClusterIP, s.Spec.Selector = corev1.ClusterIPNone, nil
		})),
		create("create Service asking for "+asked, svc("pinned", func(s *corev1.Service) { s.Spec.ClusterIP = asked })),
		create("create Service asking for the same address", svc("pinned2", func(s *corev1.Service) { s.Spec.ClusterIP = asked })),
		create("create Service asking for an address outside the range", svc("far", func(s *corev1.Service) { s.Spec.ClusterIP = "10.1.0.5" })),
		create("create Service asking for the network address", svc("net", func(s *corev1.Service) { s.Spec.ClusterIP = "10.0.0.0" })),
		create("create RequireDualStack Service", svc("dual", func(s *corev1.Service) {
			s.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicyRequireDualStack)
		})),
		create("create IPv6 Service", svc("six", func(s *corev1.Service) { s.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv6Protocol} })),
		create("create NodePort Service", svc("np", nodePort)),
		create("create NodePort Service asking for 30010", svc("np2", func(s *corev1.Service) {
			nodePort(s)
			s.Spec.Ports[0].NodePort = 30010
		})),
		create("create NodePort Service asking for 30010 again", svc("np3", func(s *corev1.Service) {
			nodePort(s)
			s.Spec.Ports[0].NodePort = 30010
		})),
		create("create LoadBalancer Service with local traffic", svc("lb", func(s *corev1.Service) {
			s.Spec.Type, s.Spec.ExternalTrafficPolicy = corev1.ServiceTypeLoadBalancer, corev1.ServiceExternalTrafficPolicyLocal
		})),
		update("update ClusterIP Service without its address", svc("web", func(s *corev1.Service) { s.Spec.Ports[0].Port = 8080 })),
		update("update NodePort Service without its node port", svc("np2", func(s *corev1.Service) {
			nodePort(s)
			s.Spec.Selector = map[string]string{"app": "other"}
		})),
		update("update NodePort Service renaming its port", svc("np2", func(s *corev1.Service) {
			nodePort(s)
			s.Spec.Ports[0].Name = "web"
		})),
		create("create NodePort Service asking for 30010, given up", svc("np4", func(s *corev1.Service) {
			nodePort(s)
			s.Spec.Ports[0].NodePort = 30010
		})),
		del("delete the Service holding "+asked, svc("pinned", none)),
		create("create Service asking for "+asked+" again", svc("pinned3", func(s *corev1.Service) { s.Spec.ClusterIP = asked })),
	)
	wantOutcomes(t, c, ok, ok, ok, ok, invalid, invalid, invalid, invalid, invalid, ok, ok, invalid, ok, ok, ok, ok, ok, ok, ok)
}

// allocatedByWhere replaces in o (a Service) what the server allocated by
// where it falls: an address other than asked by "<allocated in
// 10.0.0.0/24>", a node port by 1 (in 30000-32767) or 2 (in the lower band of
// ports kept for those asked for, 30000-30085): the model allocates from a
// hash of the name, kube-apiserver at random.
func allocatedByWhere(o client.Object, asked string) client.Object {
	s, ok := o.(*corev1.Service)
	if !ok {
		return o
	}
	s = s.DeepCopy()
	where := func(ip string) string {
		if ip == asked || ip == corev1.ClusterIPNone || ip == "" {
			return ip
		}
		if strings.HasPrefix(ip, "10.0.0.") {
			return "<allocated in 10.0.0.0/24>"
		}
		return "<allocated outside 10.0.0.0/24: " + ip + ">"
	}
	s.Spec.ClusterIP = where(s.Spec.ClusterIP)
	for i := range s.Spec.ClusterIPs {
		s.Spec.ClusterIPs[i] = where(s.Spec.ClusterIPs[i])
	}
	port := func(p int32) int32 {
		switch {
		case p == 30010 || p == 0:
			return p
		case p >= 30000 && p < 30086:
			return 2
		case p >= 30086 && p <= 32767:
			return 1
		}
		return p
	}
	for i := range s.Spec.Ports {
		s.Spec.Ports[i].NodePort = port(s.Spec.Ports[i].NodePort)
	}
	s.Spec.HealthCheckNodePort = port(s.Spec.HealthCheckNodePort)
	return s
}

// ConfigMaps and Secrets: keys must be valid, the whole object at most 1 MiB, a
// Secret's type is defaulted to Opaque and a kubernetes.io/tls Secret needs its
// keys; the type is immutable.
func TestBuiltinConfigMapsAndSecretsAreValidatedAsKubeAPIServerDoes(t *testing.T) {
	big := strings.Repeat("x", 1<<20+1) // one byte over core.MaxSecretSize
	cm := func(name string, data map[string]string) func(ns string) client.Object {
		return func(ns string) client.Object {
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: data}
		}
	}
	secret := func(name string, typ corev1.SecretType, data map[string][]byte) func(ns string) client.Object {
		return func(ns string) client.Object {
			return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: typ, Data: data}
		}
	}
	c := compareSteps(t,
		createObj("create ConfigMap", cm("ok", map[string]string{"app.conf": "x", "KEY_1": "y"})),
		createObj("create ConfigMap with a bad key", cm("badkey", map[string]string{"a b": "x"})),
		createObj("create ConfigMap with several bad keys", cm("badkeys", map[string]string{"a b": "1", "c/d": "2", "e?f": "3", "ok": "4"})),
		createObj("create ConfigMap over 1 MiB", cm("big", map[string]string{"a": big})),
		createObj("create Secret", secret("ok", "", map[string][]byte{"token": []byte("t")})),
		createObj("create Secret with a bad key", secret("badkey", "", map[string][]byte{"a/b": []byte("t")})),
		createObj("create Secret over 1 MiB", secret("big", "", map[string][]byte{"a": []byte(big)})),
		createObj("create TLS Secret without its keys", secret("tls", corev1.SecretTypeTLS, nil)),
		patchStep("patch Secret's type", secret("ok", "", nil), `{"type":"kubernetes.io/tls"}`),
	)
	wantOutcomes(t, c, ok, invalid, invalid, invalid, ok, invalid, invalid, invalid, invalid)
}
