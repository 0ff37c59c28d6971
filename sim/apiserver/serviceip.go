package apiserver

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Service addresses and node ports.
//
// kube-apiserver's service registry (k8s.io/kubernetes
// pkg/registry/core/service/storage: beginCreate, beginUpdate, Allocators)
// gives a Service, before its strategy prepares and validates it:
//
//   - clusterIPs from clusterIP when a client set only the singular
//     (normalizeClusterIPs), and on an update the allocated values a client
//     left out, taken from the stored object (patchAllocatedValues);
//   - its IP family fields (initIPFamilyFields): ipFamilyPolicy SingleStack
//     unless given (RequireDualStack for a headless Service without a
//     selector), ipFamilies the cluster's;
//   - a cluster IP from the service CIDR (not for ExternalName or headless
//     Services), the one asked for or the next free one;
//   - a node port for each port of a NodePort or LoadBalancer Service
//     (30000-32767), and a health-check node port for a LoadBalancer with
//     externalTrafficPolicy Local;
//
// and releases them when the Service goes. Its allocators cannot run here
// (unexported, and they write IPAddress objects through storage), so this
// is their logic for a single-stack IPv4 cluster, checked against a real
// kube-apiserver by internal/differential's TestServiceAllocationMatchesKubeAPIServer.
// The next free address or port is not drawn at random as a real allocator
// draws it: it is found from a hash of the Service's namespace and name (and
// the port), so the same Service gets the same address whatever the order
// Services are made in. operatortest's equivalence names an address by its
// Service.

// DefaultServiceCIDR is the service CIDR of the model: kubeadm's and kind's
// default --service-cluster-ip-range.
const DefaultServiceCIDR = "10.96.0.0/12"

// nodePortBase and nodePortSize are kube-apiserver's default
// --service-node-port-range, 30000-32767.
const nodePortBase, nodePortSize = 30000, 2768

var serviceGVK = corev1.SchemeGroupVersion.WithKind("Service")

// serviceAllocs holds the addresses and node ports of the stored Services.
type serviceAllocs struct {
	cidr  netip.Prefix
	ips   map[netip.Addr]bool
	ports map[int32]bool
}

func newServiceAllocs(cidr string) (*serviceAllocs, error) {
	if cidr == "" {
		cidr = DefaultServiceCIDR
	}
	p, err := netip.ParsePrefix(cidr)
	if err != nil || !p.Addr().Is4() || p.Bits() > 30 {
		return nil, fmt.Errorf("service CIDR %q: want an IPv4 prefix of /30 or wider", cidr)
	}
	return &serviceAllocs{cidr: p.Masked(), ips: map[netip.Addr]bool{}, ports: map[int32]bool{}}, nil
}

// serviceTxn is what one write allocated, given back if the write fails
// (revert), and what it frees, freed only if the write is stored (commit).
type serviceTxn struct {
	a                *serviceAllocs
	ips, freeIPs     []netip.Addr
	ports, freePorts []int32
}

func (t *serviceTxn) revert() {
	if t == nil {
		return
	}
	for _, ip := range t.ips {
		delete(t.a.ips, ip)
	}
	for _, p := range t.ports {
		delete(t.a.ports, p)
	}
}

func (t *serviceTxn) commit() {
	if t == nil {
		return
	}
	for _, ip := range t.freeIPs {
		delete(t.a.ips, ip)
	}
	for _, p := range t.freePorts {
		delete(t.a.ports, p)
	}
}

// size is the number of addresses of the CIDR; first and last (the network
// and broadcast addresses) are never given.
func (a *serviceAllocs) size() uint32 { return 1 << (32 - a.cidr.Bits()) }

func (a *serviceAllocs) addr(off uint32) netip.Addr {
	b := a.cidr.Addr().As4()
	v := binary.BigEndian.Uint32(b[:]) + off
	binary.BigEndian.PutUint32(b[:], v)
	return netip.AddrFrom4(b)
}

// allocateIP reserves ip, with the allocators' errors.
func (a *serviceAllocs) allocateIP(t *serviceTxn, ip netip.Addr) error {
	if !ip.Is4() || !a.cidr.Contains(ip) || ip == a.addr(0) || ip == a.addr(a.size()-1) {
		// ipallocator.ErrMismatchedNetwork: the allocator of the cluster's
		// ServiceCIDR holds its usable addresses only.
		return errors.New("the provided network does not match the current range")
	}
	if a.ips[ip] {
		return errors.New("provided IP is already allocated") // ipallocator.ErrAllocated
	}
	a.ips[ip] = true
	t.ips = append(t.ips, ip)
	return nil
}

// nextIP reserves a free address for the Service key. As the allocators do
// (KEP-3070), dynamic allocations take the upper band first and the lower
// band only when the upper is full; the lower, min(max(16, size/16), 256)
// addresses, is kept for addresses asked for (ipallocator's
// calculateRangeOffset).
func (a *serviceAllocs) nextIP(t *serviceTxn, key string) (netip.Addr, error) {
	size := a.size()
	offset := uint32(0)
	if size > 16 {
		offset = min(max(size/16, 16), 256)
	}
	off, err := nextFree(hash(key), size-2, offset, func(i uint32) bool { return i != 0 && !a.ips[a.addr(1+i)] }) // the first: the kubernetes Service's
	if err != nil {
		return netip.Addr{}, err
	}
	ip := a.addr(1 + off)
	a.ips[ip] = true
	t.ips = append(t.ips, ip)
	return ip, nil
}

// nextFree is the first free place of n from h's place in the upper band
// [offset, n), else in the lower [0, offset).
func nextFree(h, n, offset uint32, free func(uint32) bool) (uint32, error) {
	for _, band := range [][2]uint32{{offset, n}, {0, offset}} {
		width := band[1] - band[0]
		for i := range width {
			if p := band[0] + (h+i)%width; free(p) {
				return p, nil
			}
		}
	}
	return 0, errors.New("range is full")
}

func (a *serviceAllocs) allocatePort(t *serviceTxn, port int32) error {
	if port < nodePortBase || port >= nodePortBase+nodePortSize {
		return fmt.Errorf("provided port is not in the valid range. The range of valid ports is %d-%d", nodePortBase, nodePortBase+nodePortSize-1)
	}
	if a.ports[port] {
		return errors.New("provided port is already allocated")
	}
	a.ports[port] = true
	t.ports = append(t.ports, port)
	return nil
}

// nextPort reserves a free node port for key, from the upper band first as
// portallocator does (its lower band: min(max(16, size/32), 128) ports).
func (a *serviceAllocs) nextPort(t *serviceTxn, key string) (int32, error) {
	off, err := nextFree(hash(key), nodePortSize, min(max(nodePortSize/32, 16), 128), func(i uint32) bool { return !a.ports[int32(nodePortBase+i)] })
	if err != nil {
		return 0, err
	}
	p := int32(nodePortBase + off)
	a.ports[p] = true
	t.ports = append(t.ports, p)
	return p, nil
}

func hash(key string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return h.Sum32()
}

// release gives back what svc holds.
func (a *serviceAllocs) release(svc *corev1.Service) {
	for _, s := range svc.Spec.ClusterIPs {
		if ip, err := netip.ParseAddr(s); err == nil {
			delete(a.ips, ip)
		}
	}
	for _, p := range svc.Spec.Ports {
		delete(a.ports, p.NodePort)
	}
	if svc.Spec.HealthCheckNodePort != 0 {
		delete(a.ports, svc.Spec.HealthCheckNodePort)
	}
}

// allocateService runs the registry's beginCreate (old nil) or beginUpdate
// on the Service of a write; the caller reverts the transaction if the write
// then fails.
func (s *Server) allocateService(k *Kind, obj, old client.Object) (*serviceTxn, error) {
	svc, ok := obj.(*corev1.Service)
	if !ok || k.GVK != serviceGVK {
		return nil, nil
	}
	var prev *corev1.Service
	if old != nil {
		prev = old.(*corev1.Service)
		patchAllocatedValues(svc, prev)
	}
	normalizeClusterIPs(svc, prev)
	t := &serviceTxn{a: s.services}
	err := s.services.allocate(t, svc, prev)
	if err != nil {
		t.revert()
		return nil, err
	}
	return t, nil
}

func (a *serviceAllocs) allocate(t *serviceTxn, svc, old *corev1.Service) error {
	invalid := func(errs ...*field.Error) error {
		return apierrors.NewInvalid(serviceGVK.GroupKind(), svc.Name, errs)
	}
	if err := initIPFamilyFields(svc, old, invalid); err != nil {
		return err
	}
	// Cluster IPs: a Service that needs none releases what it held (the
	// caller releases on delete); one that had none gets them now.
	if needsClusterIP(svc) && !headless(svc) && (old == nil || !needsClusterIP(old) || headless(old) || len(old.Spec.ClusterIPs) == 0) {
		if len(svc.Spec.ClusterIPs) == 0 {
			svc.Spec.ClusterIPs = []string{""}
		}
		want := svc.Spec.ClusterIPs[0]
		if want == "" {
			ip, err := a.nextIP(t, svc.Namespace+"/"+svc.Name)
			if err != nil {
				return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP for Service %q: %w", svc.Name, err))
			}
			want = ip.String()
		} else {
			ip, perr := netip.ParseAddr(want)
			if perr != nil {
				return apierrors.NewInternalError(fmt.Errorf("failed to parse service IP %q", want))
			}
			if err := a.allocateIP(t, ip); err != nil {
				return invalid(field.Invalid(field.NewPath("spec", "clusterIPs"), svc.Spec.ClusterIPs, fmt.Sprintf("failed to allocate IP %v: %v", want, err)))
			}
		}
		svc.Spec.ClusterIPs[0] = want
		svc.Spec.ClusterIP = want
	}
	if old != nil && needsClusterIP(old) && !headless(old) && (!needsClusterIP(svc) || headless(svc)) {
		for _, s := range old.Spec.ClusterIPs {
			if ip, err := netip.ParseAddr(s); err == nil {
				t.freeIPs = append(t.freeIPs, ip)
			}
		}
	}
	return a.allocateNodePorts(t, svc, old, invalid)
}

// allocateNodePorts is initNodePorts (create) and updateNodePorts (update):
// each port of the same number shares one node port.
func (a *serviceAllocs) allocateNodePorts(t *serviceTxn, svc, old *corev1.Service, invalid func(...*field.Error) error) error {
	held := map[int32]bool{} // the old object's node ports, kept if still used
	if old != nil {
		for _, p := range old.Spec.Ports {
			if p.NodePort != 0 {
				held[p.NodePort] = true
			}
		}
		if old.Spec.HealthCheckNodePort != 0 {
			held[old.Spec.HealthCheckNodePort] = true
		}
	}
	kept := map[int32]bool{}
	if svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		byPort := map[int32]int32{}
		for i := range svc.Spec.Ports {
			sp := &svc.Spec.Ports[i]
			if sp.NodePort == 0 && !shouldAllocateNodePorts(svc) {
				continue
			}
			if got := byPort[sp.Port]; got != 0 {
				if sp.NodePort == 0 {
					sp.NodePort = got
				} else if sp.NodePort != got && !held[sp.NodePort] && !kept[sp.NodePort] {
					if err := a.allocatePort(t, sp.NodePort); err != nil {
						return invalid(field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), sp.NodePort, err.Error()))
					}
				}
				kept[sp.NodePort] = true
				continue
			}
			np := sp.NodePort
			if np == 0 {
				np = requestedNodePort(sp.Port, svc.Spec.Ports)
			}
			switch {
			case np != 0 && (held[np] || kept[np]):
				// Still the Service's own.
			case np != 0:
				if err := a.allocatePort(t, np); err != nil {
					return invalid(field.Invalid(field.NewPath("spec", "ports").Index(i).Child("nodePort"), np, err.Error()))
				}
			default:
				p, err := a.nextPort(t, fmt.Sprintf("%s/%s:%d", svc.Namespace, svc.Name, sp.Port))
				if err != nil {
					return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: %w", err))
				}
				np = p
			}
			sp.NodePort = np
			byPort[sp.Port] = np
			kept[np] = true
		}
	} else {
		for i := range svc.Spec.Ports {
			svc.Spec.Ports[i].NodePort = 0 // a ClusterIP Service has none (validation refuses one it is given)
		}
	}
	if svc.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal {
		hc := svc.Spec.HealthCheckNodePort
		switch {
		case hc != 0 && (held[hc] || kept[hc]):
		case hc != 0:
			if err := a.allocatePort(t, hc); err != nil {
				return apierrors.NewInternalError(fmt.Errorf("failed to allocate requested HealthCheck NodePort %v: %v", hc, err))
			}
		default:
			p, err := a.nextPort(t, svc.Namespace+"/"+svc.Name+":health")
			if err != nil {
				return apierrors.NewInternalError(fmt.Errorf("failed to allocate a HealthCheck NodePort %v: %v", 0, err))
			}
			hc = p
		}
		svc.Spec.HealthCheckNodePort = hc
		kept[hc] = true
	}
	for p := range held { // lint:order-independent frees a set
		if !kept[p] {
			t.freePorts = append(t.freePorts, p)
		}
	}
	return nil
}

// requestedNodePort is the node port another port of the same number asks
// for (findRequestedNodePort).
func requestedNodePort(port int32, ports []corev1.ServicePort) int32 {
	for _, p := range ports {
		if p.Port == port && p.NodePort != 0 {
			return p.NodePort
		}
	}
	return 0
}

func shouldAllocateNodePorts(svc *corev1.Service) bool {
	switch svc.Spec.Type {
	case corev1.ServiceTypeNodePort:
		return true
	case corev1.ServiceTypeLoadBalancer:
		return svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts
	}
	return false
}

func needsClusterIP(svc *corev1.Service) bool { return svc.Spec.Type != corev1.ServiceTypeExternalName }

func headless(svc *corev1.Service) bool {
	return len(svc.Spec.ClusterIPs) > 0 && svc.Spec.ClusterIPs[0] == corev1.ClusterIPNone
}

// normalizeClusterIPs keeps clusterIP and clusterIPs in step as the registry
// does before anything reads them.
func normalizeClusterIPs(svc, old *corev1.Service) {
	if old == nil {
		if svc.Spec.ClusterIP != "" && len(svc.Spec.ClusterIPs) == 0 {
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
		return
	}
	if len(old.Spec.ClusterIPs) > 0 && len(svc.Spec.ClusterIPs) == 0 && old.Spec.ClusterIP == svc.Spec.ClusterIP {
		svc.Spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if old.Spec.ClusterIP != svc.Spec.ClusterIP {
		if old.Spec.ClusterIP != "" && svc.Spec.ClusterIP == "" {
			// A client clearing it: clear the plural too when it is the old one.
			if slices.Equal(old.Spec.ClusterIPs, svc.Spec.ClusterIPs) {
				svc.Spec.ClusterIPs = nil
			}
		}
		if old.Spec.ClusterIP != "" && svc.Spec.ClusterIP != "" && len(svc.Spec.ClusterIPs) > 0 && slices.Equal(old.Spec.ClusterIPs, svc.Spec.ClusterIPs) {
			// A client changing the singular only: the plural follows.
			svc.Spec.ClusterIPs = append([]string{svc.Spec.ClusterIP}, svc.Spec.ClusterIPs[1:]...)
		}
	}
}

// patchAllocatedValues fills what an update left out from the stored object.
func patchAllocatedValues(svc, old *corev1.Service) {
	if needsClusterIP(old) && needsClusterIP(svc) {
		if svc.Spec.ClusterIP == "" {
			svc.Spec.ClusterIP = old.Spec.ClusterIP
		}
		if len(svc.Spec.ClusterIPs) == 0 && len(old.Spec.ClusterIPs) > 0 {
			svc.Spec.ClusterIPs = old.Spec.ClusterIPs
		}
	}
	needsNodePort := func(s *corev1.Service) bool {
		return s.Spec.Type == corev1.ServiceTypeNodePort || s.Spec.Type == corev1.ServiceTypeLoadBalancer
	}
	if needsNodePort(old) && needsNodePort(svc) {
		used := map[int32]bool{}
		newUsed := map[int32]bool{}
		for _, p := range svc.Spec.Ports {
			if p.NodePort != 0 {
				newUsed[p.NodePort] = true
			}
		}
		byName := map[string]int32{}
		for _, p := range old.Spec.Ports {
			if p.NodePort != 0 && newUsed[p.NodePort] {
				used[p.NodePort] = true
			}
			byName[p.Name] = p.NodePort
		}
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			if p.NodePort == 0 && !used[byName[p.Name]] {
				p.NodePort = byName[p.Name]
			}
		}
	}
	needsHC := func(s *corev1.Service) bool {
		return s.Spec.Type == corev1.ServiceTypeLoadBalancer && s.Spec.ExternalTrafficPolicy == corev1.ServiceExternalTrafficPolicyLocal
	}
	if needsHC(old) && needsHC(svc) && svc.Spec.HealthCheckNodePort == 0 {
		svc.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
}

// initIPFamilyFields gives the IP family fields of a single-stack IPv4
// cluster, with the registry's errors for what such a cluster cannot give.
func initIPFamilyFields(svc, old *corev1.Service, invalid func(...*field.Error) error) error {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if svc.Spec.IPFamilyPolicy == nil {
		var policy corev1.IPFamilyPolicy
		switch {
		case old != nil && old.Spec.IPFamilyPolicy != nil:
			policy = *old.Spec.IPFamilyPolicy
		case svc.Spec.ClusterIP == corev1.ClusterIPNone && len(svc.Spec.Selector) == 0:
			policy = corev1.IPFamilyPolicyRequireDualStack
		default:
			policy = corev1.IPFamilyPolicySingleStack
		}
		svc.Spec.IPFamilyPolicy = &policy
	}
	policy := *svc.Spec.IPFamilyPolicy
	// The families of the cluster IPs given and not named.
	var errs field.ErrorList
	for i, ip := range svc.Spec.ClusterIPs {
		if ip == corev1.ClusterIPNone {
			break
		}
		if i < len(svc.Spec.IPFamilies) {
			continue
		}
		if a, err := netip.ParseAddr(ip); err == nil && a.Is6() {
			errs = append(errs, field.Invalid(field.NewPath("spec", "clusterIPs").Index(i), svc.Spec.ClusterIPs, "IPv6 is not configured on this cluster"))
		} else {
			svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, corev1.IPv4Protocol)
		}
	}
	if len(errs) > 0 {
		return invalid(errs...)
	}
	if headless(svc) && len(svc.Spec.Selector) == 0 {
		if len(svc.Spec.IPFamilies) == 0 {
			svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
		}
		if len(svc.Spec.IPFamilies) < 2 && policy != corev1.IPFamilyPolicySingleStack {
			if svc.Spec.IPFamilies[0] == corev1.IPv4Protocol {
				svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, corev1.IPv6Protocol)
			} else {
				svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, corev1.IPv4Protocol)
			}
		}
		return nil
	}
	if policy == corev1.IPFamilyPolicyRequireDualStack {
		errs = append(errs, field.Invalid(field.NewPath("spec", "ipFamilyPolicy"), svc.Spec.IPFamilyPolicy, "this cluster is not configured for dual-stack services"))
	}
	for i, f := range svc.Spec.IPFamilies {
		if f != corev1.IPv4Protocol {
			errs = append(errs, field.Invalid(field.NewPath("spec", "ipFamilies").Index(i), f, "not configured on this cluster"))
		}
	}
	if len(errs) > 0 {
		return invalid(errs...)
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	return nil
}
