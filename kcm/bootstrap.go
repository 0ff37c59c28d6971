package kcm

import (
	"context"
	"fmt"
	"reflect"
	"slices"

	"github.com/go-logr/logr"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/klog/v2"
)

// SeedNamespaceContent makes every namespace's content as a cluster has it
// from its bootstrap, before the run: the serviceaccount and
// root-ca-cert-publisher controllers (ServiceAccount, RootCACertPublisher),
// each built by its own constructor as Setup builds it on a clientset of
// cfg (kube-controller-manager's REST config: its identity, its field
// manager), sync each namespace once, the controllers in Controllers' order
// and the namespaces by name: each namespace's default ServiceAccount and
// its kube-root-ca.crt ConfigMap, written by the controllers' own code.
// Their listers hold one list of the namespaces, ServiceAccounts and
// ConfigMaps the server has (no informer starts), and their workqueues are
// shut down unused: nothing outlives the call, and it needs no bubble. The
// same controllers hosted in the run (Setup) then find each namespace's
// content on their first sync and write nothing; only a namespace made, or
// content deleted or edited, during the run gets writes of theirs.
func SeedNamespaceContent(ctx context.Context, cfg *rest.Config) error {
	ctx = klog.NewContext(ctx, logr.Discard())
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("kcm: clientset: %w", err)
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	var syncs []func(context.Context, string) error
	sa, err := newServiceAccounts(ctx, f, cs)
	if err != nil {
		return fmt.Errorf("kcm: %s: %w", ServiceAccount, err)
	}
	pub, err := newPublisher(f, cs, cfg)
	if err != nil {
		return fmt.Errorf("kcm: %s: %w", RootCACertPublisher, err)
	}
	for _, c := range []any{sa, pub} {
		sync, err := unusedSync(c)
		if err != nil {
			return fmt.Errorf("kcm: %T: %w", c, err)
		}
		syncs = append(syncs, sync)
	}
	namespaces, err := fill(ctx, cs, f)
	if err != nil {
		return err
	}
	for _, sync := range syncs {
		for _, ns := range namespaces {
			if err := sync(ctx, ns); err != nil {
				return fmt.Errorf("kcm: the namespace content of %s: %w", ns, err)
			}
		}
	}
	return nil
}

// unusedSync is the sync handler of the controller c points to (its
// syncHandler field, which pkg/controller's constructors set to the
// controller's syncNamespace), after shutting down the workqueue its
// constructor started, which nothing will use.
func unusedSync(c any) (func(context.Context, string) error, error) {
	q, err := field(reflect.ValueOf(c), "queue")
	if err != nil {
		return nil, err
	}
	queue, ok := q.Interface().(workqueue.TypedRateLimitingInterface[string])
	if !ok || queue == nil {
		return nil, fmt.Errorf("its queue is a %s", q.Type())
	}
	queue.ShutDown()
	h, err := field(reflect.ValueOf(c), "syncHandler")
	if err != nil {
		return nil, err
	}
	sync, ok := h.Interface().(func(context.Context, string) error)
	if !ok || sync == nil {
		return nil, fmt.Errorf("its syncHandler is a %s", h.Type())
	}
	return sync, nil
}

// fill puts what the server holds of the namespace content's kinds into
// the indexers of f's informers (the listers the controllers read), and
// returns the namespaces' names, sorted.
func fill(ctx context.Context, cs kubernetes.Interface, f informers.SharedInformerFactory) ([]string, error) {
	nss, err := cs.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("kcm: listing namespaces: %w", err)
	}
	sas, err := cs.CoreV1().ServiceAccounts("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("kcm: listing ServiceAccounts: %w", err)
	}
	cms, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("kcm: listing ConfigMaps: %w", err)
	}
	var names []string
	for i := range nss.Items {
		if err := f.Core().V1().Namespaces().Informer().GetIndexer().Add(&nss.Items[i]); err != nil {
			return nil, err
		}
		names = append(names, nss.Items[i].Name)
	}
	for i := range sas.Items {
		if err := f.Core().V1().ServiceAccounts().Informer().GetIndexer().Add(&sas.Items[i]); err != nil {
			return nil, err
		}
	}
	for i := range cms.Items {
		if err := f.Core().V1().ConfigMaps().Informer().GetIndexer().Add(&cms.Items[i]); err != nil {
			return nil, err
		}
	}
	slices.Sort(names)
	return names, nil
}
