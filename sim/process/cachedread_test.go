package process_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// runConfigMaps runs a world of one process "op" whose ConfigMap reconciler is
// r (given the manager's client), with ConfigMap default/x created first.
func runConfigMaps(t *testing.T, planText string, x *corev1.ConfigMap, r func(c client.Client) reconcile.Func) []trace.Step {
	t.Helper()
	p, err := plan.Parse(planText)
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(p, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(r(p.Manager().GetClient()))
		}}},
		Setup: func(c *cluster.Cluster) error { return c.Admin().Create(context.Background(), x) },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(3 * time.Second)
	return c.Trace.Steps()
}

// A cached read says what it returned against what was current: a list its
// number of items and the resourceVersion its cache was at against that of the
// newest change to what it lists; a get that found nothing, the version the
// object had. Here the watch of ConfigMaps is held, so the ConfigMap the
// reconciler has just created is in neither.
func TestACachedReadSaysWhatItReturnedAndHowFarBehindTheCacheWas(t *testing.T) {
	steps := runConfigMaps(t, "seed 1\nhold process=op kind=/v1/ConfigMap from=0s until=2s\n",
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}},
		func(c client.Client) reconcile.Func {
			return func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				y := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "y"}}
				if req.Name == "x" {
					if err := c.Create(ctx, y); err != nil && !apierrors.IsAlreadyExists(err) {
						return reconcile.Result{}, err
					}
				}
				var l corev1.ConfigMapList
				if err := c.List(ctx, &l, client.InNamespace("default")); err != nil {
					return reconcile.Result{}, err
				}
				err := c.Get(ctx, client.ObjectKeyFromObject(y), &corev1.ConfigMap{})
				return reconcile.Result{}, client.IgnoreNotFound(err)
			}
		})
	var list, get, create *trace.Step
	for i := range steps {
		s := &steps[i]
		switch {
		case s.Op == "create" && s.Object == "ConfigMap default/y" && create == nil:
			create = s
		case s.Op == "cached-list" && list == nil:
			list = s
		case s.Op == "cached-get" && s.Object == "ConfigMap default/y" && get == nil:
			get = s
		}
	}
	if create == nil || list == nil || get == nil {
		t.Fatalf("want a create, a cached list and a cached get of y; the trace:\n%s", timeline(steps))
	}
	if list.Items != 1 || list.RVCurrent != create.RVWritten || list.RVSeen >= list.RVCurrent || !list.Stale() {
		t.Errorf("the cached list: %+v; want 1 item (x), the cache behind the create of y (rv=%d)", *list, create.RVWritten)
	}
	if want := "1 item cache at rv="; !strings.Contains(list.String(), want) || !strings.Contains(list.String(), ", stale)") {
		t.Errorf("the list's line %q does not say %q and stale", list.String(), want)
	}
	if get.RVSeen != 0 || get.RVCurrent != create.RVWritten || !get.Stale() || !strings.Contains(get.String(), "(current rv=") {
		t.Errorf("the cached get of y, not in the cache: %+v (%s); want nothing seen against current rv=%d", *get, get.String(), create.RVWritten)
	}
	// After the hold the cache catches up: a later list is current.
	var last *trace.Step
	for i := range steps {
		if steps[i].Op == "cached-list" {
			last = &steps[i]
		}
	}
	if last == list || last.Items != 2 || last.Stale() {
		t.Errorf("the last cached list, after the hold: %+v; want 2 items, current", *last)
	}
}

// A write that removes the last finalizer of a deleting object deletes it:
// its step says so, not "wrote rv=N" with the version it read.
func TestAFinalizerReleaseShowsAsADeletion(t *testing.T) {
	steps := runConfigMaps(t, "seed 1\n",
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x", Finalizers: []string{"example.com/f"}}},
		func(c client.Client) reconcile.Func {
			return func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				var cm corev1.ConfigMap
				if err := c.Get(ctx, req.NamespacedName, &cm); err != nil {
					return reconcile.Result{}, client.IgnoreNotFound(err)
				}
				if cm.DeletionTimestamp == nil {
					return reconcile.Result{}, c.Delete(ctx, &cm)
				}
				cm.Finalizers = nil
				return reconcile.Result{}, c.Update(ctx, &cm)
			}
		})
	var release *trace.Step
	for i := range steps {
		if steps[i].Op == "update" && steps[i].Result == "ok" {
			release = &steps[i]
		}
	}
	if release == nil {
		t.Fatalf("no update; the trace:\n%s", timeline(steps))
	}
	if release.Digest != trace.DigestDeleted || !release.Deletes() || !strings.Contains(release.String(), "deleted it (its last finalizer removed)") || strings.Contains(release.String(), "wrote rv=") {
		t.Errorf("the finalizer release: %s (%+v); want it shown as a deletion", release.String(), *release)
	}
}

func timeline(steps []trace.Step) string {
	var b strings.Builder
	for _, s := range steps {
		b.WriteString(s.String() + "\n")
	}
	return b.String()
}
