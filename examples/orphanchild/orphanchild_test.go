package orphanchild_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/orphanchild"
	"github.com/ctrlsim/ctrlsim/internal/long"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, orphanchild.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// site is the workload's one Site.
func site() *orphanchild.Site {
	return &orphanchild.Site{TypeMeta: metav1.TypeMeta{APIVersion: orphanchild.GroupVersion.String(), Kind: "Site"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "web", Name: "home"}, Spec: orphanchild.SiteSpec{Greeting: "hello"}}
}

// deleteAt is when the user deletes the Site.
const deleteAt = 5 * time.Second

// options are the whole of what the operator's test gives: its CRD, its
// manager and the workload as a script (the Site created, deleted 5 s
// later); everything else is operatortest's default.
func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: scheme,
		CRDs:   [][]byte{orphanchild.CRD},
		Managers: []operatortest.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return (&orphanchild.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
		}}},
		Workload: operatortest.Workload{Script: []operatortest.Step{
			operatortest.Create(0, site()),
			operatortest.Delete(deleteAt, site()),
		}},
	}
}

// script is the script's lines as a plan's text writes them.
func script(t *testing.T) string {
	t.Helper()
	b, err := json.Marshal(site())
	if err != nil {
		t.Fatal(err)
	}
	var u map[string]any
	if err := json.Unmarshal(b, &u); err != nil {
		t.Fatal(err)
	}
	delete(u["metadata"].(map[string]any), "creationTimestamp")
	if b, err = json.Marshal(u); err != nil {
		t.Fatal(err)
	}
	p := plan.Plan{Steps: []plan.Step{
		{At: 0, Action: "create", Args: plan.Args{{Key: "content", Value: string(b)}}, Script: true},
		{At: deleteAt, Action: "delete", Args: plan.Args{{Key: "kind", Value: "orphanchild.ctrlsim.dev/v1/Site"}, {Key: "namespace", Value: "web"}, {Key: "name", Value: "home"}}, Script: true},
	}}
	return strings.TrimPrefix(p.String(), "seed 0\n")
}

// replay runs seed 1, the script and faults (plan lines) on the operator
// and returns the properties it violated and the run's timeline.
func replay(t *testing.T, buggy bool, faults string) ([]string, []string) {
	t.Helper()
	p, err := plan.Parse("seed 1\n" + script(t) + faults)
	if err != nil {
		t.Fatal(err)
	}
	r, err := operatortest.Replay(t, options(buggy), p)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, v := range r.Violated() {
		out = append(out, v.Property)
	}
	return out, r.Timeline
}

// The fault-free run: the operator adds its finalizer and creates the page
// at once; at 5 s the Site's deletion has it delete the page and remove
// the finalizer. Both operators hold.
func TestTheFaultFreeRunHolds(t *testing.T) {
	for _, buggy := range []bool{true, false} {
		if v, tl := replay(t, buggy, ""); len(v) != 0 {
			t.Errorf("buggy=%v with no fault: violated %v\n%s", buggy, v, strings.Join(tl, "\n"))
		}
	}
}

// holdAcrossTheDeletion stalls the operator's ConfigMap watch from before
// the page is created until after the Site's deletion: its finalizer lists
// no page, removes itself, and the page is left behind (converges: the
// fault-free run ends with none). The correct operator's page has the Site
// as its owner: the garbage collector deletes it once the Site is gone.
const holdAcrossTheDeletion = "hold process=op kind=/v1/ConfigMap from=0s until=10s\n"

func TestAPageCreatedWhileTheCacheLagsIsLeakedByTheBuggyFinalizer(t *testing.T) {
	if v, tl := replay(t, true, holdAcrossTheDeletion); !slices.Contains(v, operatortest.Converges) {
		t.Errorf("the buggy operator under %q: violated %v, want converges\n%s", holdAcrossTheDeletion, v, strings.Join(tl, "\n"))
	}
	if v, tl := replay(t, false, holdAcrossTheDeletion); len(v) != 0 {
		t.Errorf("the correct operator under %q: violated %v, want nothing (a false alarm)\n%s", holdAcrossTheDeletion, v, strings.Join(tl, "\n"))
	}
}

// The search with default Options (every fault class, the script as the
// workload) finds the leak within the default budget of 100 plans, from
// each of explorer seeds 1-10 (the sweep's hold across the deletion finds
// it at plan 7 from every seed; the figures are logged).
func TestTheSearchFindsTheLeak(t *testing.T) {
	if testing.Short() {
		t.Skip("ten explorations; not with -short")
	}
	for seed := uint64(1); seed <= 10; seed++ {
		t.Run(fmt.Sprintf("seed%d", seed), func(t *testing.T) {
			o := options(true)
			o.Seed, o.Checks, o.Expect, o.ShrinkRuns = seed, 100, operatortest.Converges, 50
			res, err := operatortest.Explore(t, o)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Caught {
				t.Fatalf("explorer seed %d: not within %d plans", seed, res.Checks)
			}
			t.Logf("explorer seed %d: found at plan %d (%s); minimal plan:\n%s", seed, res.FirstFailure, res.Violations[0].Property, res.Minimal)
		})
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
