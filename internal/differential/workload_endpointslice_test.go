package differential

import (
	"context"
	"fmt"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The endpointslice script: a Service over three bare pods bound to a Node of the
// script's own (the real controller skips a pod whose Node it cannot find:
// k8s.io/endpointslice reconciler.go reconcileByAddressType), made Running and Ready
// by the test kubelet with addresses drawn from their names; one pod goes NotReady;
// the Service's selector drops a pod and its ports change (a named and a numbered
// target port); the Service is deleted (no garbage collector runs: its slices stay).
func init() {
	workloadScripts["endpointslice"] = []WorkloadStep{
		{Name: "a Node, 3 pods on it and a Service over them", Do: func(ctx context.Context, c client.Client, ns string) error {
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: ns + "-node", Labels: map[string]string{corev1.LabelTopologyZone: "zone-a"}}}
			if err := c.Create(ctx, node); err != nil {
				return err
			}
			for i, tier := range []string{"a", "a", "b"} {
				if err := c.Create(ctx, endpointPod(ns, fmt.Sprintf("web-%d", i), tier, node.Name)); err != nil {
					return err
				}
			}
			return c.Create(ctx, WorkloadService(ns, "web", map[string]string{"app": "web"},
				corev1.ServicePort{Name: "http", Port: 80, TargetPort: intstr.FromString("http")}))
		}, Settled: endpointsReady("web", 3)},
		{Name: "pod web-1 goes NotReady", Do: func(ctx context.Context, c client.Client, ns string) error {
			p := &corev1.Pod{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web-1"}, p); err != nil {
				return err
			}
			// pkg/kubelet/status/generate.go GeneratePodReadyCondition: a container
			// not ready.
			for i := range p.Status.Conditions {
				cd := &p.Status.Conditions[i]
				if cd.Type == corev1.PodReady || cd.Type == corev1.ContainersReady {
					cd.Status, cd.Reason, cd.Message = corev1.ConditionFalse, "ContainersNotReady", "containers with unready status: [app]"
				}
			}
			for i := range p.Status.ContainerStatuses {
				p.Status.ContainerStatuses[i].Ready = false
			}
			return c.Status().Update(ctx, p)
		}, Settled: endpointsReady("web", 2)},
		{Name: "the Service selects tier a only, on ports http and 9090", Do: func(ctx context.Context, c client.Client, ns string) error {
			svc := &corev1.Service{}
			if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: "web"}, svc); err != nil {
				return err
			}
			base := svc.DeepCopy()
			svc.Spec.Selector = map[string]string{"app": "web", "tier": "a"}
			svc.Spec.Ports = append(svc.Spec.Ports, corev1.ServicePort{Name: "metrics", Port: 9090, TargetPort: intstr.FromInt32(9091), Protocol: corev1.ProtocolTCP})
			return c.Patch(ctx, svc, client.MergeFrom(base))
		}, Settled: endpointsPorts("web", 2, 2)},
		{Name: "the Service deleted", Do: func(ctx context.Context, c client.Client, ns string) error {
			return c.Delete(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}})
		}, Settled: func(s *Snapshot) bool { return len(s.Services) == 0 }},
	}
}

// endpointPod is a bare pod of the endpointslice script, bound to node, with a
// container port named http.
func endpointPod(ns, name, tier, node string) *corev1.Pod {
	spec := WorkloadPodSpec("web:1", corev1.RestartPolicyAlways)
	spec.NodeName = node
	spec.Containers[0].Ports = []corev1.ContainerPort{{Name: "http", ContainerPort: 8080, Protocol: corev1.ProtocolTCP}}
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "web", "tier": tier}}, Spec: spec}
}

// WorkloadService is a Service with the defaults kube-apiserver sets on what the
// records keep (pkg/apis/core/v1/defaults.go SetDefaults_ServicePort: protocol TCP).
func WorkloadService(ns, name string, selector map[string]string, ports ...corev1.ServicePort) *corev1.Service {
	for i := range ports {
		if ports[i].Protocol == "" {
			ports[i].Protocol = corev1.ProtocolTCP
		}
	}
	return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.ServiceSpec{Selector: selector, Ports: ports, Type: corev1.ServiceTypeClusterIP}}
}

// endpointsReady: the Service's slices have ready endpoints, ready of them, and none
// of a pod the test kubelet has not started.
func endpointsReady(svc string, ready int) func(*Snapshot) bool {
	return func(s *Snapshot) bool {
		n, total := 0, 0
		for _, sl := range s.EndpointSlices {
			if sl.Labels[discoveryv1.LabelServiceName] != svc {
				continue
			}
			for _, e := range sl.Endpoints {
				total++
				if e.Conditions.Ready != nil && *e.Conditions.Ready {
					n++
				}
			}
		}
		return n == ready && total == 3
	}
}

// endpointsPorts: the Service's slices have endpoints endpoints, each slice ports
// ports.
func endpointsPorts(svc string, endpoints, ports int) func(*Snapshot) bool {
	return func(s *Snapshot) bool {
		n := 0
		for _, sl := range s.EndpointSlices {
			if sl.Labels[discoveryv1.LabelServiceName] != svc {
				continue
			}
			if len(sl.Ports) != ports {
				return false
			}
			n += len(sl.Endpoints)
		}
		return n == endpoints
	}
}

// TestKubeControllerManagerEndpointSlices checks what upstream documents of the
// endpointslice script's records on the real kube-controller-manager
// (k8s.io/endpointslice reconciler.go, utils.go): one slice owned by the Service,
// named after it, labelled with its name and the controller's; the named target
// port resolved in the pods; one endpoint per pod with its address, node and the
// Node's zone; readiness following the pod's; the last-change-trigger-time
// annotation; a pod no longer selected leaves; the slice outlives its Service when no
// garbage collector runs.
func TestKubeControllerManagerEndpointSlices(t *testing.T) {
	recs := needKubeControllerManagerRecords(t)
	slice := func(step int) string {
		var out []string
		for _, l := range recs["endpointslice"][step].Lines {
			if strings.HasPrefix(l, "EndpointSlice ") {
				out = append(out, l)
			}
		}
		if len(out) != 1 {
			t.Fatalf("endpointslice step %d: %d EndpointSlices, want 1:\n  %s", step, len(out), strings.Join(recs["endpointslice"][step].Lines, "\n  "))
		}
		return out[0]
	}
	expect := func(step int, wants ...string) {
		t.Helper()
		s := slice(step)
		for _, w := range wants {
			if !strings.Contains(s, w) {
				t.Errorf("endpointslice step %d: no %s in\n  %s", step, w, s)
			}
		}
	}
	expect(0, `"name":"web-*"`, `"kubernetes.io/service-name":"web"`,
		`"endpointslice.kubernetes.io/managed-by":"endpointslice-controller.k8s.io"`,
		`"endpoints.kubernetes.io/last-change-trigger-time":"<time>"`,
		`"kind":"Service","name":"web","uid":"uid(Service/web)"`, `"controller":true`,
		`"ports":[{"name":"http","port":8080,"protocol":"TCP"}]`, `"addressType":"IPv4"`,
		`"zone":"zone-a"`, `"nodeName":"workload-endpointslice-node"`, `"addresses":["`+podIP("web-2")+`"]`)
	if n := strings.Count(slice(0), `"ready":true`); n != 3 {
		t.Errorf("after the pods started: %d ready endpoints, want 3", n)
	}
	expect(1, `"ready":false,"serving":false,"terminating":false},"nodeName":"workload-endpointslice-node","targetRef":{"kind":"Pod","name":"web-1"`)
	expect(2, `{"name":"metrics","port":9091,"protocol":"TCP"}`)
	if s := slice(2); strings.Contains(s, `"name":"web-2"`) {
		t.Errorf("web-2 (tier b) still an endpoint once the selector wants tier a:\n  %s", s)
	}
	expect(3, `"uid":"uid(Service/web)"`)
}
