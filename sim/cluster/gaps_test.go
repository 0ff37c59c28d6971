package cluster_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

func configMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
}

// An action of the workload (here three admin creates in one kernel
// callback, while a controller writes without pause) runs between two steps
// of the controllers: no call of theirs comes between its calls.
func TestAnAdminActionDoesNotInterleaveWithAReconcile(t *testing.T) {
	opts := statusWorld(&statusWriter{forever: true}, 3)
	setup := opts.Setup
	opts.Setup = func(c *cluster.Cluster) error {
		if err := setup(c); err != nil {
			return err
		}
		c.Clock.AfterFunc(5*time.Second, func() {
			for _, name := range []string{"x1", "x2", "x3"} {
				_ = c.Admin().Create(context.Background(), configMap(name))
			}
		})
		return nil
	}
	c, err := cluster.New(&plan.Plan{Seed: 1}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(6 * time.Second)
	steps := c.Trace.Steps()
	i := slices.IndexFunc(steps, func(s trace.Step) bool { return s.Process == "admin" && s.Object == "ConfigMap default/x1" })
	if i < 0 || i+3 > len(steps) || i == 0 || steps[i-1].Process != "op" {
		t.Fatalf("admin create of x1 at step %d of %d, want one after a step of the controller", i, len(steps))
	}
	for j, name := range []string{"x1", "x2", "x3"} {
		if s := steps[i+j]; s.Process != "admin" || s.Object != "ConfigMap default/"+name || s.At != 5*time.Second {
			t.Errorf("step %d is %+v, want the admin's create of %s at 5s", i+j, s, name)
		}
	}
}

// After Heal, not one request fails of the fault: it does not fade out.
func TestHealRemovesEveryFaultAtOnce(t *testing.T) {
	c := runFaults(t, "seed 1\napi verb=update resource=widgets subresource=status code=500\nlatency process=a min=2s max=2s\n", 5*time.Second)
	c.Heal()
	healed := c.Now()
	c.RunFor(time.Minute)
	var after []trace.Step
	for _, s := range stepsOf(c, func(s trace.Step) bool { return s.Op == "update/status" && s.At >= healed }) {
		after = append(after, s)
		if s.Result != "ok" && !strings.HasPrefix(s.Result, "Conflict") { // a and b write the same Widgets
			t.Errorf("after Heal at %v: %+v", healed, s)
		}
	}
	if len(after) == 0 {
		t.Fatal("no status write after Heal")
	}
}

// Timing has one distribution per leg of a call, the same for every kind,
// verb and object size.
func TestTimingIsOneDistributionPerLegForEveryKind(t *testing.T) {
	typ := reflect.TypeFor[cluster.Timing]()
	var fields []string
	for i := range typ.NumField() {
		f := typ.Field(i)
		if f.Type != reflect.TypeFor[cluster.Dist]() {
			t.Errorf("Timing.%s is a %v, want a Dist", f.Name, f.Type)
		}
		fields = append(fields, f.Name)
	}
	if want := []string{"Read", "Write", "Response", "Delivery"}; !slices.Equal(fields, want) {
		t.Errorf("Timing's fields are %v, want %v", fields, want)
	}
}

// Nothing collects the dependents of a deleted owner, nor empties a deleted
// namespace, unless a process runs models/kube's controllers.
func TestNoGarbageCollectorOrNamespaceControllerRunsByItself(t *testing.T) {
	ctx := context.Background()
	c, err := cluster.New(&plan.Plan{Seed: 1}, statusWorld(&statusWriter{}, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	owner := configMap("owner")
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}
	inNS := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "c"}}
	for _, o := range []client.Object{owner, ns, inNS} {
		if err := c.Admin().Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	dependent := configMap("dependent")
	dependent.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: owner.UID}}
	if err := c.Admin().Create(ctx, dependent); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{owner, ns} {
		if err := c.Admin().Delete(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	c.RunFor(time.Minute)
	if err := c.Get(client.ObjectKeyFromObject(dependent), &corev1.ConfigMap{}); err != nil {
		t.Errorf("the dependent of a deleted owner: %v, want it still there", err)
	}
	if err := c.Get(client.ObjectKeyFromObject(inNS), &corev1.ConfigMap{}); err != nil {
		t.Errorf("a ConfigMap of a deleted namespace: %v, want it still there", err)
	}
	got := &corev1.Namespace{}
	if err := c.Get(client.ObjectKeyFromObject(ns), got); err != nil || got.DeletionTimestamp == nil {
		t.Errorf("the deleted namespace: %v, %v; want it there, terminating", err, got.DeletionTimestamp)
	}
}
