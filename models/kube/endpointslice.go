package kube

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// EndpointSliceControllerName is the endpointslice controller's managed-by
// label value (pkg/controller/endpointslice).
const EndpointSliceControllerName = "endpointslice-controller.k8s.io"

// ConcurrentServiceEndpointSyncs is kube-controller-manager's default
// --concurrent-service-endpoint-syncs.
const ConcurrentServiceEndpointSyncs = 5

// EndpointSliceController is kube-controller-manager's endpointslice
// controller (k8s.io/kubernetes@v1.37.1 pkg/controller/endpointslice, with the
// reconciler and helpers of k8s.io/endpointslice@v0.37: reconciler.go,
// utils.go podToEndpoint, getEndpointPorts, newEndpointSlice,
// setEndpointSliceLabels): for each Service with a selector, IPv4
// EndpointSlices named "<service>-<random>", owned by the Service, labelled
// kubernetes.io/service-name and endpointslice.kubernetes.io/managed-by (and
// service.kubernetes.io/headless for a headless Service, plus the Service's
// own labels), one per set of ports, with an endpoint per pod that has an IP
// and is not terminal: addresses, conditions ready, serving and terminating,
// nodeName, targetRef; an empty placeholder slice when no pod matches.
type EndpointSliceController struct {
	// Client reads from the cache and writes.
	Client client.Client
	// Recorder, if set, records events (none are modelled yet).
	Recorder record.EventRecorder
}

// Controllers describes the controller SetupWithManager registers: Services,
// and pods mapped to every Service of their namespace.
func (ec *EndpointSliceController) Controllers() []Controller {
	return []Controller{{
		Name: "endpointslice",
		Watches: []Watch{
			{Object: &corev1.Service{}, Handler: &handler.EnqueueRequestForObject{}},
			{Object: &corev1.Pod{}, Handler: handler.EnqueueRequestsFromMapFunc(ec.servicesOf)},
			{Object: &discoveryv1.EndpointSlice{}, Handler: handler.EnqueueRequestsFromMapFunc(sliceService)},
		},
		Workers:    ConcurrentServiceEndpointSyncs,
		Reconciler: ec,
	}}
}

// SetupWithManager registers the controller with a controller-runtime manager.
func (ec *EndpointSliceController) SetupWithManager(mgr ctrl.Manager) error {
	return setup(mgr, ec.Controllers())
}

func (ec *EndpointSliceController) servicesOf(ctx context.Context, pod client.Object) []reconcile.Request {
	var list corev1.ServiceList
	if err := ec.Client.List(ctx, &list, client.InNamespace(pod.GetNamespace())); err != nil {
		return nil
	}
	var out []reconcile.Request
	for _, s := range list.Items {
		if s.Spec.Selector != nil {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&s)})
		}
	}
	return out
}

func sliceService(_ context.Context, obj client.Object) []reconcile.Request {
	if obj.GetLabels()[discoveryv1.LabelManagedBy] != EndpointSliceControllerName {
		return nil
	}
	name := obj.GetLabels()[discoveryv1.LabelServiceName]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: obj.GetNamespace(), Name: name}}}
}

// Reconcile is syncService and reconciler.reconcile for the IPv4 family.
func (ec *EndpointSliceController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	svc := &corev1.Service{}
	if err := ec.Client.Get(ctx, req.NamespacedName, svc); err != nil {
		// Slices of a deleted Service go with it (the collector).
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if svc.Spec.Selector == nil || svc.DeletionTimestamp != nil {
		return reconcile.Result{}, nil
	}
	var pods corev1.PodList
	if err := ec.Client.List(ctx, &pods, client.InNamespace(svc.Namespace), client.MatchingLabelsSelector{Selector: labels.SelectorFromSet(svc.Spec.Selector)}); err != nil {
		return reconcile.Result{}, err
	}
	// Desired endpoints, grouped by their ports (endpointMeta).
	type group struct {
		ports     []discoveryv1.EndpointPort
		endpoints []discoveryv1.Endpoint
	}
	groups := map[string]*group{}
	var keys []string
	items := pods.Items
	sort.SliceStable(items, func(i, j int) bool { return items[i].Name < items[j].Name })
	for i := range items {
		p := &items[i]
		if !shouldPodBeInEndpoints(p) {
			continue
		}
		ports := endpointPorts(svc, p)
		k := portsKey(ports)
		g, ok := groups[k]
		if !ok {
			g = &group{ports: ports}
			groups[k] = g
			keys = append(keys, k)
		}
		g.endpoints = append(g.endpoints, podToEndpoint(p, svc))
	}
	var existing discoveryv1.EndpointSliceList
	if err := ec.Client.List(ctx, &existing, client.InNamespace(svc.Namespace), client.MatchingLabels{
		discoveryv1.LabelServiceName: svc.Name, discoveryv1.LabelManagedBy: EndpointSliceControllerName}); err != nil {
		return reconcile.Result{}, err
	}
	var owned []*discoveryv1.EndpointSlice
	for i := range existing.Items {
		s := &existing.Items[i]
		if ownedByService(s, svc) && s.AddressType == discoveryv1.AddressTypeIPv4 && s.DeletionTimestamp == nil {
			owned = append(owned, s)
		}
	}
	sort.SliceStable(owned, func(i, j int) bool { return owned[i].Name < owned[j].Name })
	if len(keys) == 0 {
		// A placeholder slice keeps a Service with no endpoints visible.
		keys = []string{""}
		groups[""] = &group{ports: []discoveryv1.EndpointPort{}}
	}
	sliceLabels := endpointSliceLabels(svc)
	used := map[string]bool{}
	for _, k := range keys {
		g := groups[k]
		var match *discoveryv1.EndpointSlice
		for _, s := range owned {
			if !used[s.Name] && portsKey(s.Ports) == k {
				match = s
				break
			}
		}
		endpoints := g.endpoints
		if endpoints == nil {
			endpoints = []discoveryv1.Endpoint{}
		}
		if match == nil {
			ns := &discoveryv1.EndpointSlice{
				ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, GenerateName: svc.Name + "-", Labels: sliceLabels,
					OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service"))}},
				AddressType: discoveryv1.AddressTypeIPv4, Ports: g.ports, Endpoints: endpoints,
			}
			if err := ec.Client.Create(ctx, ns); err != nil {
				if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
					return reconcile.Result{}, nil
				}
				return reconcile.Result{}, err
			}
			continue
		}
		used[match.Name] = true
		if equality.Semantic.DeepEqual(match.Endpoints, endpoints) && equality.Semantic.DeepEqual(match.Labels, sliceLabels) {
			continue
		}
		u := match.DeepCopy()
		u.Endpoints, u.Labels = endpoints, sliceLabels
		if err := ec.Client.Update(ctx, u); err != nil {
			return reconcile.Result{}, err
		}
	}
	for _, s := range owned {
		if !used[s.Name] {
			if err := ec.Client.Delete(ctx, s); err != nil && !apierrors.IsNotFound(err) {
				return reconcile.Result{}, err
			}
		}
	}
	return reconcile.Result{}, nil
}

// shouldPodBeInEndpoints is endpointsliceutil.ShouldPodBeInEndpoints with
// terminating pods included.
func shouldPodBeInEndpoints(p *corev1.Pod) bool {
	if p.Status.Phase == corev1.PodFailed || p.Status.Phase == corev1.PodSucceeded {
		return false
	}
	return p.Status.PodIP != "" || len(p.Status.PodIPs) > 0
}

// podToEndpoint is utils.go podToEndpoint.
func podToEndpoint(p *corev1.Pod, svc *corev1.Service) discoveryv1.Endpoint {
	serving := isPodReady(p)
	terminating := p.DeletionTimestamp != nil
	ready := svc.Spec.PublishNotReadyAddresses || (serving && !terminating)
	ep := discoveryv1.Endpoint{
		Addresses:  []string{},
		Conditions: discoveryv1.EndpointConditions{Ready: &ready, Serving: &serving, Terminating: &terminating},
		TargetRef:  &corev1.ObjectReference{Kind: "Pod", Namespace: p.Namespace, Name: p.Name, UID: p.UID},
	}
	for _, ip := range p.Status.PodIPs {
		if !strings.Contains(ip.IP, ":") {
			ep.Addresses = append(ep.Addresses, ip.IP)
		}
	}
	if p.Spec.NodeName != "" {
		ep.NodeName = ptr.To(p.Spec.NodeName)
	}
	if p.Spec.Hostname != "" && p.Spec.Subdomain == svc.Name && svc.Spec.ClusterIP == corev1.ClusterIPNone {
		ep.Hostname = ptr.To(p.Spec.Hostname) // ShouldSetHostname
	}
	return ep
}

// endpointPorts is getEndpointPorts.
func endpointPorts(svc *corev1.Service, p *corev1.Pod) []discoveryv1.EndpointPort {
	out := []discoveryv1.EndpointPort{}
	for i := range svc.Spec.Ports {
		sp := &svc.Spec.Ports[i]
		n, err := findPort(p, sp)
		if err != nil {
			continue
		}
		proto := sp.Protocol
		if proto == "" {
			proto = corev1.ProtocolTCP // SetDefaults_ServicePort
		}
		out = append(out, discoveryv1.EndpointPort{Name: ptr.To(sp.Name), Port: ptr.To(int32(n)), Protocol: ptr.To(proto), AppProtocol: sp.AppProtocol})
	}
	return out
}

// findPort is podutil.FindPort: a named target port is looked up in the
// pod's containers; a number is taken as is (0: the service port).
func findPort(p *corev1.Pod, sp *corev1.ServicePort) (int, error) {
	tp := sp.TargetPort
	switch tp.Type {
	case intstr.String:
		for _, c := range p.Spec.Containers {
			for _, cp := range c.Ports {
				proto := cp.Protocol
				if proto == "" {
					proto = corev1.ProtocolTCP
				}
				sproto := sp.Protocol
				if sproto == "" {
					sproto = corev1.ProtocolTCP
				}
				if cp.Name == tp.StrVal && proto == sproto {
					return int(cp.ContainerPort), nil
				}
			}
		}
		return 0, fmt.Errorf("no suitable port for manifest: %s", p.UID)
	default:
		if tp.IntValue() == 0 {
			return int(sp.Port), nil // SetDefaults_Service: targetPort defaults to port
		}
		return tp.IntValue(), nil
	}
}

func portsKey(ports []discoveryv1.EndpointPort) string {
	var b strings.Builder
	for _, p := range ports {
		fmt.Fprintf(&b, "%s/%d/%s;", ptr.Deref(p.Name, ""), ptr.Deref(p.Port, 0), ptr.Deref(p.Protocol, ""))
	}
	return b.String()
}

func ownedByService(s *discoveryv1.EndpointSlice, svc *corev1.Service) bool {
	return slices.ContainsFunc(s.OwnerReferences, func(o metav1.OwnerReference) bool {
		return o.UID == svc.UID && o.Kind == "Service" && o.APIVersion == "v1"
	})
}

// endpointSliceLabels is setEndpointSliceLabels for a new slice.
func endpointSliceLabels(svc *corev1.Service) map[string]string {
	out := map[string]string{}
	for k, v := range svc.Labels { // lint:order-independent copied into a map
		if k == discoveryv1.LabelServiceName || k == discoveryv1.LabelManagedBy || k == corev1.IsHeadlessService {
			continue
		}
		out[k] = v
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		out[corev1.IsHeadlessService] = ""
	}
	out[discoveryv1.LabelServiceName] = svc.Name
	out[discoveryv1.LabelManagedBy] = EndpointSliceControllerName
	return out
}
