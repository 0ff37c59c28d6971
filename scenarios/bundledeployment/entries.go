package bundledeployment

import (
	"time"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

const (
	seedName = "1 (000)"
	seedFile = "000_297ef58f3d24d948.txt"
	upstream = "https://github.com/operator-framework/rukpak/pull/596"
)

// SlowTermination is T_term of bd/slow-cleanup: longer than #596's 30 s wait.
const SlowTermination = 45 * time.Second

func expect(buggy, fixed, robust catalogue.Outcome) map[variant.Variant]catalogue.Outcome {
	return map[variant.Variant]catalogue.Outcome{variant.Buggy: buggy, variant.Fixed: fixed, variant.Robust: robust}
}

// Entries are the bd/ entries of the catalogue.
func Entries() []*catalogue.Entry {
	const c, h = catalogue.Caught, catalogue.Holds
	return []*catalogue.Entry{
		{
			ID: "bd/terminating-cleanup", Seed: seedName, SeedFile: seedFile, Upstream: upstream,
			Summary: "A BundleDeployment's install fails for good (its bundle holds an invalid Deployment next to a Namespace). " +
				"The helm action client uninstalls the failed release without waiting, so the Namespace stays Terminating for T_term (8 s). " +
				"Rukpak writes the failure to the Installed condition, and that status write enqueues the BundleDeployment at once (For has no generation predicate): " +
				"attempt 2 meets the terminating namespace (\"unable to create new content in namespace ... because it is being terminated\"), writes that, " +
				"and attempt 3 fails the same way without a write. Every backoff firing becomes a burst of three reconciles, and between bursts the status shows the transient error, not the cause.\n\n" +
				"PR #596 waits (up to 30 s) for the uninstall to finish and runs NumCPU workers: each attempt starts from a clean slate and fails with the same message, so there is one reconcile per firing and the root cause stays visible. " +
				"The robust controller does not block: a GenerationChangedPredicate on For, no attempt while an earlier cleanup is still deleting something the bundle needs, and transient errors never replace the root cause.",
			Expect: expect(c, h, h),
		},
		{
			ID: "bd/slow-cleanup", Seed: seedName, SeedFile: seedFile, Upstream: upstream,
			Summary: "The same failing install, with a namespace that takes 45 s to terminate (finalizers, slow content): longer than PR #596's 30 s wait. " +
				"The uninstall times out, the message becomes \"uninstall failed: ... timed out waiting for the condition: original install error: ...\", " +
				"which differs from the last one, so the status write requeues at once and the next attempt meets the still-terminating namespace: " +
				"the cascade of SEEDS.md (f)1 returns, and the status alternates between the wrapped cause and the transient error.\n\n" +
				"The robust controller never waits inside a reconcile: it holds further attempts back until the namespace is gone and keeps the root cause in the status, however long the cleanup takes.",
			Expect: expect(c, c, h),
			Why: "Fixed is caught by root-cause-visible alone. Its attempts block for the whole wait, so the requeue cascade is not a burst within 100ms " +
				"and settled-backoff (which groups reconciles by time) sees one reconcile per burst; but every attempt still starts at once, the backoff never grows, " +
				"and the status shows the transient error most of the time. Plan `seed 0`:\n\n" +
				"    30.036921241s  r1 update/status BundleDeployment example -> ok\n" +
				"    30.0395885s    r1 result -> error: uninstall failed: uninstallation completed with 1 error(s): timed out waiting for the condition: original install error: Deployment.apps \"operator\" is invalid ...\n" +
				"    30.0395885s    r2 reconcile /example\n" +
				"    46.126377849s  r2 update/status BundleDeployment example -> ok\n" +
				"    46.129407075s  r2 result -> error: failed to create resource: configmaps \"config\" is forbidden: unable to create new content in namespace example because it is being terminated\n" +
				"    46.129407075s  r3 reconcile /example\n\n" +
				"root-cause-visible: root cause shown 35.8% of the time since 30.036921241s (times as API calls now take a few milliseconds; " +
				"the earlier model, with calls in zero time and two workers per worker asked for, showed 17.8% since 30s).",
		},
		{
			ID: "bd/rollback-leaves-terminating", Seed: seedName, SeedFile: seedFile, Upstream: upstream,
			Summary: "SEEDS.md (f)2 and (f)6: an installed BundleDeployment is upgraded to a bundle that adds a Namespace and an invalid Deployment. " +
				"The upgrade fails and the action client rolls back, which deletes the added Namespace. PR #596's rollback wait is for the readiness of the target release's objects, " +
				"not for the deletion of the objects only the failed upgrade had, so it returns at once and the next attempt meets the terminating namespace, exactly as without the fix. " +
				"Worse, the objects the rollback deletes are watched (dependent watches exist since the first install) and their deletion events enqueue the BundleDeployment immediately.\n\n" +
				"The robust controller waits for those deletions before the next attempt (without blocking a worker), ignores the events of its own cleanup (expectations), " +
				"and keeps the root cause in the status.",
			Expect: expect(c, c, h),
		},
		{
			ID: "bd/blocked-workers", Seed: seedName, SeedFile: seedFile, Upstream: upstream,
			Summary: "SEEDS.md (f)4 and I5: PR #596 blocks a worker for the whole cleanup of every failed attempt (up to 30 s) and runs NumCPU workers so that the queue is not starved. " +
				"With as many failing BundleDeployments as workers (here four failing, four workers), every worker is parked in an uninstall wait, and a healthy BundleDeployment created meanwhile " +
				"waits for one of them to come back: up to T_term (20 s here) instead of milliseconds.\n\n" +
				"The robust controller never parks a worker: it holds an attempt back with the rate limiter while the cleanup runs. (The buggy controller does not wait either; it is not run here.)",
			// Buggy is not run: its single worker never waits (bd/terminating-cleanup
			// covers it), and four of its failing BundleDeployments make the
			// costliest runs of the catalogue.
			Expect: map[variant.Variant]catalogue.Outcome{variant.Fixed: c, variant.Robust: h},
			Why: "The minimal plan is the workload alone (`at 0s create-bundledeployment name=healthy`, beside the failing ones): the four failing BundleDeployments park all " +
				"four workers in their uninstall waits, and the healthy one, created at 0 s, is reconciled only when the first wait ends:\n\n" +
				"    0s             admin create BundleDeployment healthy wrote rv=10 -> ok\n" +
				"    22.097865375s  rukpak/controller.bundledeployment.core-rukpak-io-plain#3 r5 reconcile /healthy\n\n" +
				"bounded-queue-wait: healthy was installed 22.12 s after its creation (want within 5 s). It was 20.12 s before kube-controller-manager's " +
				"client rate (20 calls a second, a burst of 30): the namespace controller, which lists and deletes the content of the four failing " +
				"BundleDeployments' namespaces, ends their termination, and the first uninstall wait, 2 s later at that rate. An earlier model needed a " +
				"`workers ... n=2` fault as well, because it ran every controller with twice its workers (eight here): a harness bug, fixed; " +
				"the controller now runs exactly the four workers PR #596 configures.",
		},
	}
}
