package process_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// seen records the requests a ConfigMap controller reconciles, and what a Get
// of another ConfigMap (probe) answered in each.
type seen struct {
	c      client.Client
	probe  client.ObjectKey
	reqs   []string
	probes []string
}

func (s *seen) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	s.reqs = append(s.reqs, req.String())
	if s.probe.Name != "" {
		err := s.c.Get(ctx, s.probe, &corev1.ConfigMap{})
		s.probes = append(s.probes, errString(err))
	}
	return reconcile.Result{}, nil
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

// optionsWorld is a world with namespaces a and b, ConfigMaps a/cm, b/cm and
// a/other (labelled app=x), and one process with opts running a seen controller.
func optionsWorld(t *testing.T, opts *manager.Options, s *seen, then func(c *cluster.Cluster) error) *cluster.Cluster {
	t.Helper()
	c, err := cluster.New(&plan.Plan{}, cluster.Options{
		Scheme: apiservertest.Scheme(),
		Processes: []process.Spec{{Name: "op", Options: opts, Setup: func(p *process.Process) error {
			s.c = p.Manager().GetClient()
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(s)
		}}},
		Setup: func(c *cluster.Cluster) error {
			for _, ns := range []string{"a", "b"} {
				if err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
					return err
				}
				if err := c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "cm"}}); err != nil {
					return err
				}
			}
			if err := c.Admin().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "other", Labels: map[string]string{"app": "x"}}}); err != nil {
				return err
			}
			if then != nil {
				return then(c)
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// Cache.DefaultNamespaces: the process caches, and its controllers see, only
// those namespaces; a cached read elsewhere is controller-runtime's
// multi-namespace cache error.
func TestDefaultNamespacesScopeTheCache(t *testing.T) {
	s := &seen{probe: client.ObjectKey{Namespace: "b", Name: "cm"}}
	c := optionsWorld(t, &manager.Options{Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{"a": {}}}}, s, nil)
	c.RunFor(time.Minute)
	slices.Sort(s.reqs)
	if got := strings.Join(s.reqs, " "); got != "a/cm a/other" {
		t.Errorf("reconciled %q, want only namespace a's ConfigMaps", got)
	}
	if len(s.probes) == 0 || s.probes[0] != "unable to get: b/cm because of unknown namespace for the cache" {
		t.Errorf("a cached Get in namespace b: %q", s.probes)
	}
}

// Client.Cache.DisableFor: the kind is read from the apiserver, so a read
// outside the cached namespaces works.
func TestDisableForReadsLive(t *testing.T) {
	s := &seen{probe: client.ObjectKey{Namespace: "b", Name: "cm"}}
	c := optionsWorld(t, &manager.Options{
		Cache:  cache.Options{DefaultNamespaces: map[string]cache.Config{"a": {}}},
		Client: client.Options{Cache: &client.CacheOptions{DisableFor: []client.Object{&corev1.ConfigMap{}}}},
	}, s, nil)
	c.RunFor(time.Minute)
	if len(s.probes) == 0 || s.probes[0] != "ok" {
		t.Errorf("a Get of a kind in DisableFor: %q, want it read from the apiserver", s.probes)
	}
}

// Cache.ByObject's label selector: only matching objects are cached; one that
// stops matching leaves the cache as a delete (a watch with a selector sends
// DELETED), and its controller hears of it.
func TestByObjectLabelSelectorFiltersTheCache(t *testing.T) {
	s := &seen{probe: client.ObjectKey{Namespace: "a", Name: "other"}}
	sel := labels.SelectorFromSet(labels.Set{"app": "x"})
	c := optionsWorld(t, &manager.Options{Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{&corev1.ConfigMap{}: {Label: sel}}}}, s, nil)
	c.RunFor(time.Minute)
	if got := strings.Join(s.reqs, " "); got != "a/other" {
		t.Fatalf("reconciled %q, want only the labelled ConfigMap", got)
	}
	cm := &corev1.ConfigMap{}
	if err := c.Get(client.ObjectKey{Namespace: "a", Name: "other"}, cm); err != nil {
		t.Fatal(err)
	}
	cm.Labels = nil
	if err := c.Admin().Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	c.RunFor(time.Minute)
	if got := strings.Join(s.reqs, " "); got != "a/other a/other" {
		t.Errorf("reconciled %q, want a/other again when it stops matching", got)
	}
	if last := s.probes[len(s.probes)-1]; !strings.Contains(last, "not found") {
		t.Errorf("after it stopped matching, the cached Get answered %q, want not found", last)
	}
}

// Options the simulator cannot honour are refused, each named, rather than
// ignored; the process does not start.
func TestUnsupportedManagerOptionsAreRefused(t *testing.T) {
	d := time.Hour
	err := process.CheckOptions(manager.Options{Cache: cache.Options{SyncPeriod: &d}, GracefulShutdownTimeout: &d})
	if err == nil || !strings.Contains(err.Error(), "Cache.SyncPeriod") || !strings.Contains(err.Error(), "GracefulShutdownTimeout") {
		t.Errorf("CheckOptions: %v", err)
	}
	if err := process.CheckOptions(manager.Options{Cache: cache.Options{DefaultNamespaces: map[string]cache.Config{"a": {}}}}); err != nil {
		t.Errorf("CheckOptions of DefaultNamespaces: %v", err)
	}
	s := &seen{}
	c := optionsWorld(t, &manager.Options{Cache: cache.Options{SyncPeriod: &d}}, s, nil)
	c.RunFor(time.Minute)
	if len(s.reqs) != 0 {
		t.Errorf("a process with refused options reconciled %v", s.reqs)
	}
	found := false
	for _, st := range c.Trace.Steps() {
		found = found || (st.Op == "setup" && strings.Contains(st.Result, "Cache.SyncPeriod"))
	}
	if !found {
		t.Errorf("no setup error naming Cache.SyncPeriod in the trace")
	}
}
