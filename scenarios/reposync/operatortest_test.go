package reposync

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Each port keeps its entry's expectations on operatortest
// (catalogue.TestPorts): a variant expected caught is caught by the
// deletion-completes property.
func TestThePortsKeepTheirExpectations(t *testing.T) {
	caughtBy := map[string]string{
		"reposync/namespace-deleted/buggy":             PropDeletionCompletes,
		"reposync/namespace-deleted-stale-cache/buggy": PropDeletionCompletes,
		"reposync/namespace-deleted-stale-cache/fixed": PropDeletionCompletes,
		"reposync/rolebinding-revoked/buggy":           PropDeletionCompletes,
		"reposync/rolebinding-revoked/fixed":           PropDeletionCompletes,
	}
	catalogue.TestPorts(t, OnOperatortest(), caughtBy)
}

// Two plans the robust variant once failed, each a flaw of the world's
// model or of the robust design that the one engine's generic oracles
// found, each holding now:
//
//   - the ns-reconciler's Finalizer stops its Syncer and waits for an apply
//     under way before it destroys, as config-sync's RepoSyncFinalizer does
//     (StopControllers, then ControllersStopped): without it the Syncer
//     applied declared-2 after the destroy had passed it, in one schedule of
//     two (interleavings-agree);
//   - the robust manager's teardown reads the shared RoleBinding live: it had
//     put the revoked RoleBinding back, its cache (lagging up to 2.138 s)
//     showed it gone, and it stayed after the RepoSync (converges).
func TestTheRobustVariantsFormerFailuresHold(t *testing.T) {
	for name, text := range map[string]string{
		"syncer stopped": "seed 0\nat 2.012s delete-reposync ns=bookstore\nat 2.012s revoke-rolebinding ns=bookstore\n",
		"live teardown": "seed 1\nat 2.632s delete-reposync ns=bookstore\nat 2.866s revoke-rolebinding ns=bookstore\n" +
			"lag process=reconciler-manager kind=rbac.authorization.k8s.io/v1/RoleBinding min=3ms max=2.138s\n",
	} {
		p, err := plan.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		r, err := operatortest.Replay(t, RoleBindingRevoked(variant.Robust), p)
		if err != nil {
			t.Fatal(err)
		}
		if v := check.Violated(r.Verdicts); len(v) > 0 {
			t.Errorf("%s: violated: %v", name, v)
		}
	}
}
