package bigcluster_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/bigcluster"
	"github.com/ctrlsim/ctrlsim/internal/long"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, bigcluster.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// cluster is the workload's Cluster of five members.
func cluster() *bigcluster.Cluster {
	return &bigcluster.Cluster{TypeMeta: metav1.TypeMeta{APIVersion: bigcluster.GroupVersion.String(), Kind: "Cluster"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "db", Name: "main"}, Spec: bigcluster.ClusterSpec{Members: 5, Storage: "1Gi"}}
}

// LiveDataIsNeverDeleted is the author's property: a claim is deleted only
// when the Cluster that made it (its uid label) is being deleted or gone.
// Judged on the apiserver's watch log.
var LiveDataIsNeverDeleted = operatortest.Property{Name: "live-data-never-deleted", Check: func(h *operatortest.History) error {
	run := h.Run()
	live := map[types.UID]bool{}
	deleting := map[types.UID]bool{}
	for _, ev := range run.Log {
		switch o := ev.Object.(type) {
		case *bigcluster.Cluster:
			live[o.UID] = ev.Type != watch.Deleted && o.DeletionTimestamp.IsZero()
		case *corev1.PersistentVolumeClaim:
			if deleting[o.UID] || (ev.Type != watch.Deleted && o.DeletionTimestamp.IsZero()) {
				continue
			}
			deleting[o.UID] = true
			if owner := types.UID(o.Labels[bigcluster.UIDLabel]); live[owner] {
				return operatortest.ViolatedAt(ev.At.Sub(run.Start), fmt.Errorf(
					"PersistentVolumeClaim %s/%s deleted at resourceVersion %d while its Cluster %s (uid %s) is live", o.Namespace, o.Name, ev.ResourceVersion, o.Labels[bigcluster.ClusterLabel], owner))
			}
		}
	}
	return nil
}}

// options are what the operator's test gives: its CRD, its manager, the
// workload as a script (the Cluster created, deleted at 5 s, created again
// at 10 s) and its property; everything else is operatortest's default.
func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: scheme,
		CRDs:   [][]byte{bigcluster.CRD},
		Managers: []operatortest.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return (&bigcluster.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Buggy: buggy}).SetupWithManager(mgr)
		}}},
		Workload: operatortest.Workload{Script: []operatortest.Step{
			operatortest.Create(0, cluster()),
			operatortest.Delete(5*time.Second, cluster()),
			operatortest.Create(10*time.Second, cluster()),
		}},
		Properties: []operatortest.Property{LiveDataIsNeverDeleted},
	}
}

// With no fault both operators hold: the fault-free run makes the five
// members' claims twice, and deletes the first Cluster's once.
func TestTheFaultFreeRunHolds(t *testing.T) {
	b, err := json.Marshal(cluster())
	if err != nil {
		t.Fatal(err)
	}
	create := plan.Args{{Key: "content", Value: string(b)}}
	p := &plan.Plan{Seed: 1, Steps: []plan.Step{
		{At: 0, Action: "create", Args: create, Script: true},
		{At: 5 * time.Second, Action: "delete", Args: plan.Args{{Key: "kind", Value: "bigcluster.ctrlsim.dev/v1/Cluster"}, {Key: "namespace", Value: "db"}, {Key: "name", Value: "main"}}, Script: true},
		{At: 10 * time.Second, Action: "create", Args: create, Script: true},
	}}
	for _, buggy := range []bool{true, false} {
		r, err := operatortest.Replay(t, options(buggy), p)
		if err != nil {
			t.Fatal(err)
		}
		if v := r.Violated(); len(v) != 0 {
			t.Errorf("buggy=%v with no fault: violated %v", buggy, v)
		}
		made, deleted := 0, 0
		for _, ev := range r.Final.Run().Log {
			if _, ok := ev.Object.(*corev1.PersistentVolumeClaim); ok {
				switch ev.Type {
				case watch.Added:
					made++
				case watch.Deleted:
					deleted++
				}
			}
		}
		if made != 10 || deleted != 5 {
			t.Errorf("buggy=%v with no fault: %d claims made, %d deleted; want 10 and 5", buggy, made, deleted)
		}
	}
}

// The search with default Options and the default budget of 100 plans,
// from explorer seed 1 (seeds 1-5 in make long; not with -short): the
// sweep has over a thousand
// stale pairs (an operator that writes as much as a real one), and its
// ranking reaches the data loss among its ranked plans; the median plan
// over the five is at most 30.
func TestTheSearchFindsTheDataLossAmongAThousandStalePairs(t *testing.T) {
	if testing.Short() {
		t.Skip("five explorations; not with -short")
	}
	var found []int
	for seed := uint64(1); seed <= long.Pick[uint64](1, 5); seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			o := options(true)
			o.Seed, o.Expect, o.ShrinkRuns = seed, LiveDataIsNeverDeleted.Name, 50
			res, err := operatortest.Explore(t, o)
			if err != nil {
				t.Fatal(err)
			}
			pairs, ranked := 0, 0
			for _, c := range res.Targeted {
				ranked += c.Ranked
				if c.Class == string(plan.SweepStale) {
					pairs = c.Of
				}
			}
			if pairs < 1000 {
				t.Errorf("explorer seed %d: the sweep had %d stale pairs, want at least 1,000 (the operator writes too little to stand for a real one)", seed, pairs)
			}
			if !res.Caught {
				t.Fatalf("explorer seed %d: not within %d plans (%d stale pairs, %d ranked plans)", seed, res.Checks, pairs, ranked)
			}
			found = append(found, res.FirstFailure)
			t.Logf("explorer seed %d: found at plan %d; %d stale pairs, %d ranked plans; minimal plan:\n%s", seed, res.FirstFailure, pairs, ranked, res.Minimal)
		})
	}
	if len(found) == 5 {
		slices.Sort(found)
		if found[2] > 30 {
			t.Errorf("found at plans %v: the median is %d, want at most 30", found, found[2])
		}
		t.Logf("found at plans %v (median %d)", found, found[2])
	}
}

// The correct operator holds over the search: 1,000 plans in make long
// (package internal/long), 30 otherwise.
func TestTheCorrectOperatorHoldsTheSearch(t *testing.T) {
	o := options(false)
	o.Checks = long.Pick(30, 1000)
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught {
		t.Fatalf("the correct operator violated %v after %d plans (a false alarm); plan:\n%s", res.Violations, res.Checks, res.Minimal)
	}
	t.Logf("the correct operator held %d plans", res.Checks)
}
