// Package helm is a model of helm v3.17.3's release storage and actions
// (helm.sh/helm/v3 pkg/action, pkg/storage, pkg/storage/driver/secrets.go,
// pkg/kube) and of helm-operator-plugins' action client (pkg/client/actionclient.go),
// written from scratch against client.Client so that it runs in the simulator and
// on a real API server, and so that every one of its API calls is a place where a
// process can die.
//
// # Storage
//
// Each revision of a release is a Secret sh.helm.release.v1.<name>.v<rev> of type
// helm.sh/release.v1 in the release namespace, labelled owner=helm, name, status,
// version (plus createdAt on create, modifiedAt on update, and the caller's custom
// labels). Its data key "release" holds the Release as plain JSON (helm stores
// base64 of gzip of JSON). The manifest is the rendered objects, one JSON document
// each, separated by "\n---\n", in helm's install order. Records are read through
// Config.Reader (helm reads the API server, not a cache) and written with
// unconditional updates, as the Secret driver does.
//
// A chart is a name, a version and a list of objects; render copies them,
// defaults the namespace of namespaced kinds to the release namespace and sorts
// them by helm's install order. Objects are applied one at a time with helm's
// ownership metadata (label app.kubernetes.io/managed-by=Helm, annotations
// meta.helm.sh/release-name and meta.helm.sh/release-namespace); an existing
// object about to be created is adopted when that metadata matches and is
// otherwise an error "<Kind> "<name>" in namespace "<ns>" exists and cannot be
// imported into the current release: invalid ownership metadata; ...".
//
// # Call sequences (one client call per line; these are where crashes land)
//
// n objects in the chart; "get+write" is a get, then a create when the object is
// missing, a patch when it differs, or nothing.
//
//	Install (dry run: step 2 only)
//	  1        list records (availableName)
//	  2..n+1   get each object (ownership conflicts)
//	  n+2      create record v1 pending-install
//	  n+3..    no object existed: create each object (n calls)
//	           some existed (adoption): get+write each object
//	  last     update record v1 deployed (failed on an error above)
//	Upgrade (dry run: steps 1-3)
//	  1        list records (Last); pending last -> ErrPending, nothing more
//	  [2]      list deployed records, when the last one is not deployed
//	  3        get each object that is in the target and not in the current manifest
//	  4        create record v(last+1) pending-upgrade
//	  5        get+write each target object
//	  6        get and delete each current object not in the target
//	  7        update record of the current revision superseded
//	  8        update record v(last+1) deployed
//	           on an error in 5-6: update the current record unchanged, then the new one failed
//	Rollback
//	  list records (Last), list records (History), get record of the target revision,
//	  create record v(last+1) pending-rollback, get+write each object, get and delete
//	  removed ones, [Wait: get each object every 2s], list deployed records and update
//	  each to superseded, update record v(last+1) deployed
//	Uninstall
//	  list records, update last record uninstalling, delete each object (uninstall
//	  order), [Wait: get each deleted object every 2s], then get and delete each
//	  record oldest first (or, KeepHistory, update the last record uninstalled)
//
// So with a fresh install of n objects, a crash at call n+3 is CP-I1 (record
// pending-install, no object) and at call n+3+k is CP-I2 (k objects created). In
// an upgrade from a deployed revision with c new objects, a crash at call c+3 is
// CP-U1 (record pending, cluster untouched), any later call of steps 5-6 is CP-U2,
// and the call of step 8 is CP-U3 (current superseded, new pending, cluster fully
// upgraded). crash_test.go pins each one.
//
// # Action client
//
// ActionClient adds helm-operator-plugins' behaviour: History newest first;
// Install uninstalls after a failure that happened once the release was recorded
// ("uninstall failed: %v: original install error: %w"), Upgrade rolls back
// ("rollback failed: %v: original upgrade error: %w"), both only with
// FailureRollbacks (operator-controller turns it off); the uninstall and the
// rollback take Wait and Timeout (rukpak #596); Reconcile re-applies a release's
// manifest.
//
// Waits poll every 2s on Config.Clock (Sleep) and give ErrWaitTimeout, "timed
// out waiting for the condition", when the timeout passes (helm v3.10.1's text;
// v3.17.3 says "context deadline exceeded"). Uninstall waits until every deleted
// object is NotFound; Rollback waits until every target object is ready, which
// here means it exists and has no deletionTimestamp.
//
// # Known gaps
//
//   - No templates, values, hooks, tests, notes, subcharts, CRD handling or
//     post-renderers: a chart is already-rendered objects (callers label them as a
//     post-renderer would) (TestAChartIsItsRenderedObjectsAndAHookIsOneOfThem).
//   - Updates are merge patches of the fields the chart sets (labels, annotations,
//     everything but metadata and status); helm computes a three-way strategic
//     merge against the previous manifest, so a field or map key the new chart
//     drops is removed by helm and left alone here. No Force replace, Recreate,
//     CleanupOnFail, Atomic, MaxHistory, Replace, TakeOwnership, server-side apply,
//     or helm.sh/resource-policy: keep. When helm finds nothing to patch it reads
//     the object once more; this model does not
//     (TestAMapKeyTheNewChartDropsIsLeftInPlace).
//   - Helm applies objects of one kind in parallel batches; here they are applied
//     one at a time in manifest order, which is what makes crash points exact
//     (TestObjectsOfOneKindAreAppliedOneAtATimeInManifestOrder).
//   - Context cancellation is not modelled (helm >= 3.7 marks the release failed
//     when its context is cancelled; helm-operator-plugins passes a background
//     context): only a process death leaves a record pending
//     (TestACancelledContextStillDeploys).
//   - Readiness (Rollback Wait) is existence without deletionTimestamp; helm's
//     per-kind ReadyChecker (Deployments available, Pods ready, Jobs complete,
//     ...) is not modelled. Install and Upgrade have no Wait
//     (TestRollbackWaitsForExistenceOnly).
//   - The chunked Secret driver of operator-controller (index plus chunk Secrets,
//     in the system namespace) is not modelled: records are single Secrets in the
//     release namespace, so a record cannot be half-written
//     (TestInstallCallSequence).
//   - Release names are not validated; custom labels are not checked against the
//     reserved system labels (TestReleaseNamesAndCustomLabelsAreNotValidated).
package helm
