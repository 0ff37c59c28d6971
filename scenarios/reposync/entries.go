package reposync

import (
	"github.com/ctrlsim/ctrlsim/controllers/reposync"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

const (
	seedName = "4 (003)"
	seedFile = "003_d59d43f03cb7e194.txt"
	upstream = "https://github.com/GoogleContainerTools/config-sync/pull/1191"
	// Namespace is the RepoSync namespace of the catalogue's worlds.
	Namespace = "bookstore"
)

// Kinds as plans name them.
const (
	NamespaceKind   = "/v1/Namespace"
	RepoSyncKind    = "configsync.gke.io/v1beta1/RepoSync"
	RoleBindingKind = "rbac.authorization.k8s.io/v1/RoleBinding"
	DeploymentKind  = "apps/v1/Deployment"
)

// deletionOrders are the namespace controller's orders a plan may draw: the
// two objects that race first in either order, one of them first, or the
// seed's shuffle.
var deletionOrders = []string{"RoleBinding", "RepoSync", "RoleBinding,RepoSync", "RepoSync,RoleBinding", ""}

func expect(buggy, fixed, robust catalogue.Outcome) map[variant.Variant]catalogue.Outcome {
	return map[variant.Variant]catalogue.Outcome{variant.Buggy: buggy, variant.Fixed: fixed, variant.Robust: robust}
}

// port opens the Why of each entry: the entries run on operatortest.
const port = "On operatortest (the same world written with the public API, scenarios/reposync/operatortest.go) the outcomes are the kernel's. "

func entry(id, summary, why string, ex map[variant.Variant]catalogue.Outcome) *catalogue.Entry {
	return &catalogue.Entry{
		ID: id, Seed: seedName, SeedFile: seedFile, Upstream: upstream, Summary: summary, Why: why,
		Expect: ex,
	}
}

// Entries are the Seed 4 entries of the catalogue.
func Entries() []*catalogue.Entry {
	const c, h = catalogue.Caught, catalogue.Holds
	return []*catalogue.Entry{
		entry("reposync/namespace-deleted",
			"A RepoSync with the Foreground deletion policy carries two finalizers: the ns-reconciler's (configsync.gke.io/reconciler), which it removes "+
				"after destroying what it applied, and the reconciler-manager's. When the namespace is deleted, the namespace controller deletes its content in "+
				"some order; if the shared RoleBinding "+reposync.RepoSyncBaseRoleBindingName+" goes before the ns-reconciler has finished, every write of its "+
				"Finalize is forbidden. Before config-sync #1191 the manager only waits while the reconciler finalizer is there (no requeue), so the RepoSync "+
				"and the namespace stay Terminating forever.\n\n"+
				"The fix (9e28c844b) has the manager read the RepoSync's Namespace from its cache and, when it is Terminating, remove the reconciler finalizer "+
				"itself and tear the ns-reconciler down. The robust manager reads the Namespace live and also watches Namespaces. The namespace controller's "+
				"deletion order and pace come from the plan's seed; faults are informer lag and holds (not of Namespaces), crashes and API latency.",
			port+"The minimal plan, `at 7ms delete-namespace ns=bookstore first=RoleBinding pace=0s` (deleted before the ns-reconciler has started, "+
				"the shared RoleBinding first), also violates interleavings-agree in the buggy variant: the fault-free run with seed 2048 finishes the "+
				"deletion (its schedule lets the ns-reconciler finish before the RoleBinding goes), the one with seed 0 does not; the property that "+
				"decides the outcome is deletion-completes (check.Terminates, absolute: the bug shows with no fault), and plans to catch went 1 -> 3 "+
				"(operatortest's generator draws the deletion's time in milliseconds).",
			expect(c, h, h)),
		entry("reposync/namespace-deleted-stale-cache",
			"The same namespace deletion, with the reconciler-manager's Namespace cache stale. The fix reads the Namespace's phase from the informer cache "+
				"and has no Namespace watch: when the deleting RepoSync is reconciled while the cache still shows the namespace Active, the manager waits and "+
				"returns without a requeue, and nothing brings it back once the cache catches up (SEEDS.md Seed 4 (f) 3).\n\n"+
				"A lag alone does not do it: the first cached Get of a Namespace starts the informer, which lists the namespace fresh (already Terminating). "+
				"The cache must be warm and stale, as a hold of the manager's Namespace informer that starts before the deletion makes it. The robust manager "+
				"reads the Namespace live and watches Namespaces.",
			port+"The fixed variant is caught after 41 plans (38 on the kernel) with `hold process=reconciler-manager kind=/v1/Namespace from=1ms "+
				"until=5.046s`: the manager's Namespace cache is held from before the deletion at 7ms, it reads bookstore Active, waits with no "+
				"requeue, and the RepoSync and the namespace stay Terminating (deletion-completes, terminates; converges, and no-error-at-rest for "+
				"the ns-reconciler's forbidden status write).",
			expect(c, c, h)),
		entry("reposync/rolebinding-revoked",
			"A weakness SEEDS.md lists for the fix (Seed 4 (f) 1): the RepoSync alone is deleted, its namespace stays Active, and the shared RoleBinding "+
				"is revoked by hand while the ns-reconciler is finalizing. Its remaining writes are forbidden, and both the buggy and the fixed manager wait "+
				"for the reconciler finalizer with no requeue (the fix acts only when the namespace is Terminating): the RepoSync hangs Terminating.\n\n"+
				"The robust manager keeps the ns-reconciler's ServiceAccount, RoleBinding and Deployment in place while the reconciler finalizer is there and "+
				"the namespace is Active, so it puts the revoked RoleBinding back and the ns-reconciler finishes its Foreground deletion.",
			"Not in docs/design.md's table: a weakness of the fix. Minimal plan `at 5s delete-reposync ns=bookstore` + `at 5s revoke-rolebinding ns=bookstore` "+
				"(on operatortest as on the kernel; the RepoSync's deletion is drawn 5 to 20 s in, once the ns-reconciler has added its "+
				"finalizer, and the revocation within 3 s After it); in the fixed variant the ns-reconciler's first write of Finalize is forbidden and "+
				"the manager, reading an Active namespace, waits:\n\n"+
				"    5.000351576s  reconciler-manager/reposync#1 r6 cached-get Namespace bookstore rv=10 -> ok\n"+
				"    5.000351576s  reconciler-manager/reposync#1 r6 result     bookstore/repo-sync -> ok\n"+
				"    5.00873726s   ns-reconciler-bookstore/Finalizer#1 r4 update/status RepoSync bookstore/repo-sync rv=23 -> Forbidden: ... cannot update resource \"reposyncs/status\" ...\n\n"+
				"and the RepoSync keeps both finalizers to the end of the heal budget (deletion-completes, terminates). The robust manager reads the "+
				"namespace live, finds it Active, and puts the RoleBinding back (`5.003178408s reconciler-manager/reposync#1 r6 create RoleBinding "+
				"bookstore/configsync.gke.io:ns-reconciler wrote rv=25 -> ok`).\n\n"+
				"The port's generic oracles found two flaws the kernel's terminates could not see, both fixed rather than expected: the ns-reconciler's "+
				"Syncer applied declared-2 after the Finalizer's destroy had passed it (interleavings-agree, `at 2.012s` both steps: one fault-free "+
				"schedule of two left it behind; config-sync's RepoSyncFinalizer stops the parser and remediator and waits for them before it "+
				"destroys, and the model's Finalizer now does), and the robust manager, its RoleBinding cache lagging 2.138 s, read the RoleBinding "+
				"it had put back as gone at teardown and left it after the RepoSync (converges; its teardown now reads it live). "+
				"TestTheRobustVariantsFormerFailuresHold replays both.\n\n"+catalogue.RequiredStepsWhy+
				"Plan 0 now holds the RepoSync's deletion and the revocation (`at 5s delete-reposync ns=bookstore`, `at 5s revoke-rolebinding "+
				"ns=bookstore`, seed 1), and both variants are caught there with no fault: the fault-free run with seed 2049 ends with the RepoSync still "+
				"being deleted, the one with seed 1 deleted it (interleavings-agree: `RepoSync bookstore/repo-sync exists after the fault-free run with "+
				"seed 2049, not after the fault-free run with seed 1`, the suspect the run whose deletion does not complete), the same hang "+
				"deletion-completes and terminates reported on seed 0's plan.",
			expect(c, c, h)),
	}
}
