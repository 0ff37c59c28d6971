package kubeworld_test

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A pod bound to a node that has no Node object is left out of its Service's
// slice, and the sync fails with the FailedToUpdateEndpointSlices event
// (reconcileByAddressType: "skipping Pod ... Node ... Not Found"); once the
// Node exists (with a zone label), the failed sync's retry lists the pod, with
// the Node's zone. The kubelet's own nodes are registered before it binds.
func TestEndpointSliceWaitsForThePodsNode(t *testing.T) {
	c := world(t, "seed 26\n")
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p", Labels: map[string]string{"app": "p"}},
		Spec: corev1.PodSpec{NodeName: "ghost", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p"},
		Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "p"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
	for _, o := range []client.Object{pod, svc} {
		if err := c.Admin().Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	c.RunFor(30 * time.Second)
	endpoints := func() []discoveryv1.Endpoint {
		var l discoveryv1.EndpointSliceList
		if err := c.List(&l, client.InNamespace("default")); err != nil {
			t.Fatal(err)
		}
		var out []discoveryv1.Endpoint
		for _, s := range l.Items {
			out = append(out, s.Endpoints...)
		}
		return out
	}
	if get(t, c, pod).Status.PodIP == "" {
		t.Fatal("the kubelet did not start the pod")
	}
	if eps := endpoints(); len(eps) != 0 {
		t.Errorf("endpoints of a pod whose Node is missing: %+v", eps)
	}
	var events corev1.EventList
	if err := c.List(&events, client.InNamespace("default")); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range events.Items {
		found = found || e.Reason == "FailedToUpdateEndpointSlices" && e.Type == corev1.EventTypeWarning &&
			strings.Contains(e.Message, "Error updating Endpoint Slices for Service default/p: skipping Pod p for Service default/p: Node ghost Not Found")
	}
	if !found {
		t.Errorf("no FailedToUpdateEndpointSlices event in %+v", events.Items)
	}
	var nodes corev1.NodeList
	if err := c.List(&nodes); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, n := range nodes.Items {
		names = append(names, n.Name)
	}
	eq(t, "registered nodes", strings.Join(names, ","), "node-1,node-2")

	if err := c.Admin().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "ghost", Labels: map[string]string{corev1.LabelTopologyZone: "z1"}}}); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	eps := endpoints()
	if len(eps) != 1 || eps[0].TargetRef.Name != "p" || eps[0].Zone == nil || *eps[0].Zone != "z1" {
		t.Errorf("once the Node exists: endpoints %+v, want pod p's in zone z1", eps)
	}
}
