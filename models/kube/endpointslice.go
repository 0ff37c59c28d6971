package kube

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
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
// and is not terminal and whose Node exists: addresses, conditions ready,
// serving and terminating, nodeName, zone (the Node's
// topology.kubernetes.io/zone), targetRef; an empty placeholder slice when no
// pod matches; the endpoints.kubernetes.io/last-change-trigger-time annotation
// on every write.
type EndpointSliceController struct {
	// Client reads from the cache and writes.
	Client client.Client
	// Recorder, if set, records the FailedToUpdateEndpointSlices event.
	Recorder record.EventRecorder

	mu       sync.Mutex
	triggers map[types.NamespacedName]*serviceTriggers
}

// serviceTriggers is a Service's ServiceState in upstream's TriggerTimeTracker
// (k8s.io/endpointslice util/trigger_time_tracker.go): the last trigger times seen
// of the Service and of each of its pods.
type serviceTriggers struct {
	service time.Time
	pods    map[string]time.Time
}

// lastChangeTriggerTime is ComputeEndpointLastChangeTriggerTime: the Service's
// creation the first time it is synced, then the earliest of the changed trigger
// times (a pod's Ready condition's lastTransitionTime, the Service's creation),
// zero when none changed.
func (ec *EndpointSliceController) lastChangeTriggerTime(svc *corev1.Service, pods []*corev1.Pod) time.Time {
	key := types.NamespacedName{Namespace: svc.Namespace, Name: svc.Name}
	ec.mu.Lock()
	defer ec.mu.Unlock()
	if ec.triggers == nil {
		ec.triggers = map[types.NamespacedName]*serviceTriggers{}
	}
	state, known := ec.triggers[key]
	if !known {
		state = &serviceTriggers{}
		ec.triggers[key] = state
	}
	earliest := func(cur, t time.Time) time.Time {
		if cur.IsZero() || t.Before(cur) {
			return t
		}
		return cur
	}
	var changed time.Time
	podTimes := map[string]time.Time{}
	for _, p := range pods {
		var t time.Time
		if c := podReadyCondition(p.Status); c != nil {
			t = c.LastTransitionTime.Time
		}
		if t.IsZero() {
			continue
		}
		podTimes[p.Name] = t
		if t.After(state.pods[p.Name]) {
			changed = earliest(changed, t)
		}
	}
	if st := svc.CreationTimestamp.Time; st.After(state.service) {
		changed = earliest(changed, st)
	}
	state.pods, state.service = podTimes, svc.CreationTimestamp.Time
	if !known {
		return svc.CreationTimestamp.Time
	}
	return changed
}

// forgetService is the TriggerTimeTracker's DeleteService.
func (ec *EndpointSliceController) forgetService(key types.NamespacedName) {
	ec.mu.Lock()
	defer ec.mu.Unlock()
	delete(ec.triggers, key)
}

// setTriggerTime is addTriggerTimeAnnotation.
func setTriggerTime(s *discoveryv1.EndpointSlice, t time.Time) {
	if s.Annotations == nil {
		s.Annotations = map[string]string{}
	}
	if t.IsZero() {
		delete(s.Annotations, corev1.EndpointsLastChangeTriggerTime)
	} else {
		s.Annotations[corev1.EndpointsLastChangeTriggerTime] = t.UTC().Format(time.RFC3339Nano)
	}
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
		if apierrors.IsNotFound(err) {
			// Slices of a deleted Service go with it (the collector).
			ec.forgetService(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.Selector == nil {
		return reconcile.Result{}, nil
	}
	var pods corev1.PodList
	if err := ec.Client.List(ctx, &pods, client.InNamespace(svc.Namespace), client.MatchingLabelsSelector{Selector: labels.SelectorFromSet(svc.Spec.Selector)}); err != nil {
		return reconcile.Result{}, err
	}
	selected := make([]*corev1.Pod, len(pods.Items))
	for i := range pods.Items {
		selected[i] = &pods.Items[i]
	}
	trigger := ec.lastChangeTriggerTime(svc, selected)
	var errs []error
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
		// reconcileByAddressType: a pod whose Node is missing is left out (and
		// the sync fails, to come back) unless the Service publishes not-ready
		// addresses.
		node := &corev1.Node{}
		if err := ec.Client.Get(ctx, client.ObjectKey{Name: p.Spec.NodeName}, node); err != nil {
			if !apierrors.IsNotFound(err) {
				return reconcile.Result{}, err
			}
			node = nil
			if !svc.Spec.PublishNotReadyAddresses {
				errs = append(errs, fmt.Errorf("skipping Pod %s for Service %s/%s: Node %s Not Found", p.Name, svc.Namespace, svc.Name, p.Spec.NodeName))
				continue
			}
		}
		if ep := podToEndpoint(p, node, svc); len(ep.Addresses) > 0 {
			g.endpoints = append(g.endpoints, ep)
		}
	}
	var existing discoveryv1.EndpointSliceList
	if err := ec.Client.List(ctx, &existing, client.InNamespace(svc.Namespace), client.MatchingLabels{
		discoveryv1.LabelServiceName: svc.Name, discoveryv1.LabelManagedBy: EndpointSliceControllerName}); err != nil {
		return reconcile.Result{}, err
	}
	// Slices of the Service's name not owned by it (an earlier Service of the
	// same name) are deleted, and never reused.
	var owned, foreign []*discoveryv1.EndpointSlice
	for i := range existing.Items {
		s := &existing.Items[i]
		switch {
		case s.AddressType != discoveryv1.AddressTypeIPv4 || s.DeletionTimestamp != nil:
		case ownedByService(s, svc):
			owned = append(owned, s)
		default:
			foreign = append(foreign, s)
		}
	}
	sort.SliceStable(owned, func(i, j int) bool { return owned[i].Name < owned[j].Name })
	sliceLabels := endpointSliceLabels(svc)
	var toCreate, toUpdate, toDelete []*discoveryv1.EndpointSlice
	used := map[string]bool{}
	for _, k := range keys { // reconcileByPortMapping, one slice per set of ports
		g := groups[k]
		var match *discoveryv1.EndpointSlice
		for _, s := range owned {
			if !used[s.Name] && portsKey(s.Ports) == k {
				match = s
				break
			}
		}
		if match == nil {
			if len(g.endpoints) > 0 {
				toCreate = append(toCreate, ec.newSlice(svc, sliceLabels, g.ports, g.endpoints))
			}
			continue
		}
		used[match.Name] = true
		switch {
		case len(g.endpoints) == 0 && len(match.Endpoints) > 0:
			toDelete = append(toDelete, match) // every endpoint gone
		case !equality.Semantic.DeepEqual(match.Endpoints, g.endpoints) && len(g.endpoints) > 0,
			!equality.Semantic.DeepEqual(match.Labels, sliceLabels):
			u := match.DeepCopy()
			if len(g.endpoints) > 0 {
				u.Endpoints = g.endpoints
			}
			u.Labels = sliceLabels
			toUpdate = append(toUpdate, u)
		}
	}
	for _, s := range owned { // slices of ports no longer wanted
		if !used[s.Name] {
			toDelete = append(toDelete, s)
		}
	}
	if len(owned) == len(toDelete) && len(toCreate) == 0 {
		toDelete = append(toDelete, foreign...)
		foreign = nil
		// A placeholder slice keeps a Service with no endpoints visible; an
		// existing placeholder about to be deleted is kept instead.
		ph := ec.newSlice(svc, sliceLabels, []discoveryv1.EndpointPort{}, []discoveryv1.Endpoint{})
		if len(toDelete) == 1 && isPlaceholder(toDelete[0], ph) {
			toDelete = nil
		} else {
			toCreate = append(toCreate, ph)
		}
	}
	// finalize: a slice to create replaces a slice to delete, by an update of
	// the latter (with no resourceVersion: EndpointSlices allow unconditional
	// updates).
	for i := 0; i < len(toDelete) && len(toCreate) > 0; {
		if !ownedByService(toDelete[i], svc) {
			i++
			continue
		}
		s := toCreate[len(toCreate)-1]
		s.Name = toDelete[i].Name
		toCreate, toDelete = toCreate[:len(toCreate)-1], slices.Delete(toDelete, i, i+1)
		toUpdate = append(toUpdate, s)
	}
	toDelete = append(toDelete, foreign...)
	if svc.DeletionTimestamp != nil {
		toCreate = nil // no creates racing the collector
	}
	for _, s := range toCreate {
		setTriggerTime(s, trigger)
		if err := ec.Client.Create(ctx, s); err != nil {
			if apierrors.HasStatusCause(err, corev1.NamespaceTerminatingCause) {
				return reconcile.Result{}, nil
			}
			return ec.failed(svc, append(errs, fmt.Errorf("failed to create EndpointSlice for Service %s/%s: %v", svc.Namespace, svc.Name, err)))
		}
	}
	for _, s := range toUpdate {
		setTriggerTime(s, trigger)
		if err := ec.Client.Update(ctx, s); err != nil {
			return ec.failed(svc, append(errs, fmt.Errorf("failed to update %s EndpointSlice for Service %s/%s: %v", s.Name, svc.Namespace, svc.Name, err)))
		}
	}
	for _, s := range toDelete {
		if err := ec.Client.Delete(ctx, s); err != nil && !apierrors.IsNotFound(err) {
			return ec.failed(svc, append(errs, fmt.Errorf("failed to delete %s EndpointSlice for Service %s/%s: %v", s.Name, svc.Namespace, svc.Name, err)))
		}
	}
	if len(errs) > 0 {
		return ec.failed(svc, errs)
	}
	return reconcile.Result{}, nil
}

// failed is syncService's error path: the FailedToUpdateEndpointSlices event
// with the reconciler's errors aggregated, and a retry.
func (ec *EndpointSliceController) failed(svc *corev1.Service, errs []error) (reconcile.Result, error) {
	err := utilerrors.NewAggregate(errs)
	if ec.Recorder != nil {
		ec.Recorder.Eventf(svc, corev1.EventTypeWarning, "FailedToUpdateEndpointSlices",
			"Error updating Endpoint Slices for Service %s/%s: %v", svc.Namespace, svc.Name, err)
	}
	return reconcile.Result{}, err
}

// newSlice is newEndpointSlice.
func (ec *EndpointSliceController) newSlice(svc *corev1.Service, labels map[string]string, ports []discoveryv1.EndpointPort, endpoints []discoveryv1.Endpoint) *discoveryv1.EndpointSlice {
	return &discoveryv1.EndpointSlice{
		ObjectMeta: metav1.ObjectMeta{Namespace: svc.Namespace, GenerateName: svc.Name + "-", Labels: maps.Clone(labels),
			OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(svc, corev1.SchemeGroupVersion.WithKind("Service"))}},
		AddressType: discoveryv1.AddressTypeIPv4, Ports: ports, Endpoints: endpoints,
	}
}

// isPlaceholder is placeholderSliceCompare.DeepEqual: the same namespace, labels,
// owners, address type, ports and endpoints (names and annotations aside).
func isPlaceholder(s, ph *discoveryv1.EndpointSlice) bool {
	return s.Namespace == ph.Namespace && maps.Equal(s.Labels, ph.Labels) && len(s.Ports) == 0 && len(s.Endpoints) == 0 &&
		s.AddressType == ph.AddressType && equality.Semantic.DeepEqual(s.OwnerReferences, ph.OwnerReferences)
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
func podToEndpoint(p *corev1.Pod, node *corev1.Node, svc *corev1.Service) discoveryv1.Endpoint {
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
	if node != nil && node.Labels[corev1.LabelTopologyZone] != "" {
		ep.Zone = ptr.To(node.Labels[corev1.LabelTopologyZone])
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
