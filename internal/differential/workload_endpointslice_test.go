package differential

import (
	"context"
	"fmt"

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
