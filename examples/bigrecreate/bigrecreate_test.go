package bigrecreate_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/bigrecreate"
	"github.com/ctrlsim/ctrlsim/internal/long"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, bigrecreate.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// app is the workload's App, of five members.
func app() *bigrecreate.App {
	return &bigrecreate.App{TypeMeta: metav1.TypeMeta{APIVersion: bigrecreate.GroupVersion.String(), Kind: "App"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: bigrecreate.AppSpec{Members: 5}}
}

// The user's script: the App created, deleted at 5 s and created again
// under its name 1 ms later (a GitOps tool replacing it; kubectl replace
// --force).
const (
	deleteAt   = 5 * time.Second
	recreateAt = deleteAt + time.Millisecond
)

// ReadyAppsHaveTheirChildren is the author's property: at the end of the
// run, an App whose status says Ready for its generation has every child
// its members call for, controlled by it (by its uid).
var ReadyAppsHaveTheirChildren = operatortest.Property{Name: "ready-apps-have-their-children", Check: func(h *operatortest.History) error {
	var apps bigrecreate.AppList
	if err := h.List(&apps); err != nil {
		return err
	}
	for _, a := range apps.Items {
		if a.Status.Phase != bigrecreate.PhaseReady || a.Status.ObservedGeneration != a.Generation || !a.DeletionTimestamp.IsZero() {
			continue
		}
		for _, c := range bigrecreate.Children(a.Name, a.Spec.Members) {
			var o client.Object
			switch c[0] {
			case "ConfigMap":
				o = &corev1.ConfigMap{}
			case "Secret":
				o = &corev1.Secret{}
			default:
				o = &corev1.Service{}
			}
			err := h.Get(client.ObjectKey{Namespace: a.Namespace, Name: c[1]}, o)
			switch {
			case err != nil:
				return fmt.Errorf("App %s/%s (uid %s) is Ready, and its %s %s is missing: %v", a.Namespace, a.Name, a.UID, c[0], c[1], err)
			case !metav1.IsControlledBy(o, &a):
				return fmt.Errorf("App %s/%s (uid %s) is Ready, and its %s %s is controlled by another (%v)", a.Namespace, a.Name, a.UID, c[0], c[1], o.GetOwnerReferences())
			}
		}
	}
	return nil
}}

// options are what the operator's test gives: its CRD, its manager, the
// workload as a script and its property; everything else is
// operatortest's default.
func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: scheme,
		CRDs:   [][]byte{bigrecreate.CRD},
		Managers: []operatortest.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return (&bigrecreate.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
		}}},
		Workload: operatortest.Workload{Script: []operatortest.Step{
			operatortest.Create(0, app()),
			operatortest.Delete(deleteAt, app()),
			operatortest.Create(recreateAt, app()),
		}},
		Properties: []operatortest.Property{ReadyAppsHaveTheirChildren},
	}
}

// faultFree is the script as a plan of seed 1 with no fault.
func faultFree(t *testing.T) *plan.Plan {
	t.Helper()
	b, err := json.Marshal(app())
	if err != nil {
		t.Fatal(err)
	}
	create := plan.Args{{Key: "content", Value: string(b)}}
	return &plan.Plan{Seed: 1, Steps: []plan.Step{
		{At: 0, Action: "create", Args: create, Script: true},
		{At: deleteAt, Action: "delete", Args: plan.Args{{Key: "kind", Value: "bigrecreate.ctrlsim.dev/v1/App"}, {Key: "namespace", Value: "shop"}, {Key: "name", Value: "web"}}, Script: true},
		{At: recreateAt, Action: "create", Args: create, Script: true},
	}}
}

// With no fault both operators hold: the App's 16 children are made, the
// members' 15 deleted as they leave and the headless Service by the
// garbage collector, and the 16 made again for the new App.
func TestTheFaultFreeRunHolds(t *testing.T) {
	for _, buggy := range []bool{true, false} {
		r, err := operatortest.Replay(t, options(buggy), faultFree(t))
		if err != nil {
			t.Fatal(err)
		}
		if v := r.Violated(); len(v) != 0 {
			t.Errorf("buggy=%v with no fault: violated %v\n%s", buggy, v, strings.Join(r.Timeline, "\n"))
		}
		made, deleted := 0, 0
		for _, ev := range r.Final.Run().Log {
			switch o := ev.Object.(type) {
			case *corev1.ConfigMap, *corev1.Secret, *corev1.Service:
				if o.(client.Object).GetNamespace() != "shop" || o.(client.Object).GetName() == "kube-root-ca.crt" {
					continue // the cluster's, made with the namespace
				}
				switch ev.Type {
				case watch.Added:
					made++
				case watch.Deleted:
					deleted++
				}
			}
		}
		if made != 32 || deleted != 16 {
			t.Errorf("buggy=%v with no fault: %d children made, %d deleted; want 32 and 16", buggy, made, deleted)
		}
	}
}

// The search with default Options and the default budget of 100 plans,
// from explorer seed 1 (from seeds 1-5 in make long; not with -short):
// over a thousand stale pairs, the child skipped, at a median plan of at
// most 30 over the five.
func TestTheSearchFindsTheSkippedChildAmongAThousandStalePairs(t *testing.T) {
	if testing.Short() {
		t.Skip("five explorations; not with -short")
	}
	var found []int
	for seed := uint64(1); seed <= long.Pick[uint64](1, 5); seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			o := options(true)
			o.Seed, o.Expect, o.ShrinkRuns = seed, ReadyAppsHaveTheirChildren.Name, 50
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
				t.Errorf("explorer seed %d: the sweep had %d stale pairs, want at least 1,000", seed, pairs)
			}
			if !res.Caught {
				t.Fatalf("explorer seed %d: not within %d plans (%d stale pairs, %d ranked plans)", seed, res.Checks, pairs, ranked)
			}
			var violated []string
			for _, v := range res.Violations {
				violated = append(violated, v.Property)
			}
			if !slices.Contains(violated, ReadyAppsHaveTheirChildren.Name) {
				t.Errorf("explorer seed %d: the plan found violates %v, not %s", seed, violated, ReadyAppsHaveTheirChildren.Name)
			}
			found = append(found, res.FirstFailure)
			t.Logf("explorer seed %d: found at plan %d (%v); %d stale pairs, %d ranked plans; minimal plan:\n%s\n%s", seed, res.FirstFailure, violated, pairs, ranked, res.Minimal, res.Violations)
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
