package reposync_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	scenario "github.com/ctrlsim/ctrlsim/scenarios/reposync"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// apiLatency bounds what API calls add to a step's time (a few
// milliseconds a call, a handful of calls before the step).
const apiLatency = 50 * time.Millisecond

// TestEntries checks the expectations of this package's catalogue entries
// on operatortest (catalogue.TestEntries: the catalogue's budget; skipped
// under -short).
func TestEntries(t *testing.T) { catalogue.TestEntries(t, scenario.OnOperatortest()) }

// TestDeleteNamespaceOrderAndPace: a delete-namespace step's first= and pace=
// set the namespace controller's order and pace (SEEDS.md Seed 4 (c): the race
// is won by the namespace controller when the RoleBinding goes before the
// ns-reconciler has finished).
func TestDeleteNamespaceOrderAndPace(t *testing.T) {
	cases := []struct {
		first      []string
		terminates bool
	}{
		{[]string{"RoleBinding", "RepoSync"}, false},
		{[]string{"RepoSync", "RoleBinding"}, true},
	}
	for _, tc := range cases {
		args := "first=" + strings.Join(tc.first, ",") + " pace=1s"
		p, err := plan.Parse("seed 1\nat 30s delete-namespace ns=bookstore " + args + "\n")
		if err != nil {
			t.Fatal(err)
		}
		o := scenario.Test(scenario.Options{Variant: variant.Buggy}, 2*time.Minute, time.Millisecond)
		o.Disable = world.Oracles()
		c, err := operatortest.Replay(t, o, p)
		if err != nil {
			t.Fatal(err)
		}
		var deletes []trace.Step // the namespace controller's first pass
		for _, s := range c.Steps {
			if s.Process == scenario.KubeControllerManager && s.Op == "delete" &&
				(len(deletes) == 0 || s.Controller == deletes[0].Controller && s.Reconcile == deletes[0].Reconcile) {
				deletes = append(deletes, s)
			}
		}
		err = c.Final.Get(types.NamespacedName{Name: "bookstore"}, &corev1.Namespace{})
		if gone := apierrors.IsNotFound(err); gone != tc.terminates {
			t.Errorf("buggy with %s: namespace gone %v, want %v", args, gone, tc.terminates)
		}
		var kinds []string // the kinds of the deletions, in order, runs collapsed
		for i, d := range deletes {
			kind, _, _ := strings.Cut(d.Object, " ")
			if len(kinds) == 0 || kinds[len(kinds)-1] != kind {
				kinds = append(kinds, kind)
			}
			// The pace, plus the delete call's own latency (a few ms).
			if i == 0 {
				continue
			}
			if gap := d.At - deletes[i-1].At; gap < time.Second || gap > time.Second+apiLatency {
				t.Errorf("%s: deletions at %v and %v, want the 1s pace (plus at most %v of API latency)", args, deletes[i-1].At, d.At, apiLatency)
			}
		}
		if len(kinds) < len(tc.first) || !slices.Equal(kinds[:len(tc.first)], tc.first) {
			t.Errorf("%s: the namespace controller deleted %v, in that order", args, kinds)
		}
	}
}
