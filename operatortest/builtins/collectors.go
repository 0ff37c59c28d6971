package builtins

import (
	"cmp"
	"context"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/kcm"
	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/kubeclient"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/restapi"
)

// World is what of a world the collector and the namespace controller are
// set up from: its scheme and CRDs, the kinds it collects in every run
// (world.World.Collected) and Options.NamespaceTermination.
type World struct {
	Scheme               *runtime.Scheme
	CRDs                 []apiserver.CRD
	Collected            []schema.GroupVersionKind
	NamespaceTermination time.Duration
	// HostedCollector: kube-controller-manager's own garbage collector runs in
	// the process (kubeworld.HostedGarbageCollector), and the model's is not
	// set up.
	HostedCollector bool
}

// NamespaceContent are the kinds of what kube-controller-manager puts into
// every namespace (SetupCollectors): its default ServiceAccount and its
// kube-root-ca.crt ConfigMap. A world holds them from the start.
var NamespaceContent = []schema.GroupKind{{Kind: "ServiceAccount"}, {Kind: "ConfigMap"}}

// HostsNamespaceContent reports whether a run of held (nil: the probe) in
// cluster c hosts the serviceaccount and root-ca-cert-publisher
// controllers (SetupCollectors): a run given its kinds, in a
// testing/synctest bubble. Such a run's namespaces have their content from
// the cluster's bootstrap (SeedNamespaceContent).
func HostsNamespaceContent(c *cluster.Cluster, held *Holding) bool {
	return held != nil && c.Sched.InBubble()
}

// SeedNamespaceContent gives every namespace of cluster c its content as a
// real cluster has it from its bootstrap, before the run's time starts:
// kube-controller-manager's serviceaccount and root-ca-cert-publisher
// controllers sync each namespace once (kcm.SeedNamespaceContent), as
// process (kube-controller-manager's name) with its identity, untraced, as
// the default namespaces are made. A world calls it after its seed objects
// (their namespaces included) are made, where HostsNamespaceContent: the
// same controllers hosted in the run then write nothing at its start, and
// only a namespace made during the run (or content deleted or edited)
// gets writes of theirs in its trace.
func SeedNamespaceContent(c *cluster.Cluster, process string) error {
	user := apiserver.Admin
	user.Agent = process
	cfg := restapi.New(kubeclient.New(c.Server, user, kubeclient.Options{}), c.Server, process, nil).Config()
	return kcm.SeedNamespaceContent(context.Background(), cfg)
}

// SetupCollectors sets up, in kube-controller-manager's process p, the
// namespace controller and the garbage collector of a run of held (nil:
// every kind), over the kinds builtinKinds gives, and, in a run given its
// kinds (held not nil) in a testing/synctest bubble, hosts
// kube-controller-manager's serviceaccount and root-ca-cert-publisher
// controllers (package kcm), which make every namespace's default
// ServiceAccount and kube-root-ca.crt ConfigMap. The probe of the kinds a
// world holds (held nil) runs without them, as it hosts no controller
// (operatortest/kubeworld.SetupControllersFor says why).
func SetupCollectors(p *process.Process, w World, held *Holding) error {
	mgr := p.Manager()
	if held != nil && kcm.Available(p) {
		err := kcm.Setup(p, func(c kcm.Controller) bool { return c.Name == kcm.ServiceAccount || c.Name == kcm.RootCACertPublisher })
		if err != nil {
			return err
		}
	}
	content, collected, err := w.builtinKinds(p, held)
	if err != nil {
		return err
	}
	nc := &kube.NamespaceController{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: p.Clock(), Content: content,
		MinTerminating: w.NamespaceTermination}
	if err := nc.SetupWithManager(mgr); err != nil {
		return err
	}
	if w.HostedCollector {
		return nil
	}
	// Sync: the kinds of CRDs installed at run time are collected too, from the
	// collector's next discovery sync on, as kube-controller-manager's are.
	gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(), Kinds: collected,
		Sync: kube.GCSyncPeriod, Clock: p.Clock(), Recorder: p.GetEventRecorderFor("garbage-collector-controller")}
	return gc.SetupWithManager(mgr)
}

// builtinKinds are the namespace controller's content and the collector's
// kinds in a run of held: Collected's kinds (the collector's
// those held), then every CRD's kind with no Go type (as metadata), then
// the kinds held for an owner relation (the collector's) or for an object in
// a deleting namespace (the namespace controller's, when namespaced), by
// group and kind, each in its preferred served version; a kind not served
// when the process starts is left to the collector's discovery sync (a
// CRD's) or to the namespace controller's next sync after it is.
func (w World) builtinKinds(p *process.Process, held *Holding) ([]client.ObjectList, []client.Object, error) {
	scheme := w.Scheme
	mapper := p.GetRESTMapper()
	var content []client.ObjectList
	var collected []client.Object
	var inContent, inCollected []schema.GroupKind
	addContent := func(gvk schema.GroupVersionKind) error {
		if slices.Contains(inContent, gvk.GroupKind()) {
			return nil
		}
		l, err := kube.ListOf(scheme, gvk)
		if err != nil {
			return err
		}
		inContent = append(inContent, gvk.GroupKind())
		content = append(content, l)
		return nil
	}
	addCollected := func(gvk schema.GroupVersionKind) error {
		if slices.Contains(inCollected, gvk.GroupKind()) {
			return nil
		}
		o, err := kube.ObjectOf(scheme, gvk)
		if err != nil {
			return err
		}
		inCollected = append(inCollected, gvk.GroupKind())
		collected = append(collected, o)
		return nil
	}
	namespaced := func(gvk schema.GroupVersionKind) bool {
		m, _ := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		return m != nil && m.Scope.Name() == meta.RESTScopeNameNamespace
	}
	for _, gvk := range w.Collected {
		if _, err := scheme.New(gvk.GroupVersion().WithKind(gvk.Kind + "List")); err != nil {
			continue
		}
		if held.Holds(gvk.GroupKind()) {
			if err := addCollected(gvk); err != nil {
				return nil, nil, err
			}
		}
		if namespaced(gvk) {
			if err := addContent(gvk); err != nil {
				return nil, nil, err
			}
		}
	}
	for _, c := range w.CRDs {
		if scheme.Recognizes(c.GVK) {
			continue
		}
		// A kind only its CRD defines: collected and deleted with its
		// namespace through its metadata, as upstream's controllers read
		// every kind.
		if err := addCollected(c.GVK); err != nil {
			return nil, nil, err
		}
		if c.Namespaced {
			if err := addContent(c.GVK); err != nil {
				return nil, nil, err
			}
		}
	}
	if held == nil {
		return content, collected, nil
	}
	more := held.Owned.With(held.Content...)
	slices.SortFunc(more, func(a, b schema.GroupKind) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind))
	})
	for _, gk := range more {
		gvk, ok := kube.PreferredVersion(mapper, gk)
		if !ok {
			continue
		}
		if held.Owned.Holds(gk) {
			if err := addCollected(gvk); err != nil {
				return nil, nil, err
			}
		}
		if held.Content.Holds(gk) && namespaced(gvk) {
			if err := addContent(gvk); err != nil {
				return nil, nil, err
			}
		}
	}
	return content, collected, nil
}
