package patterns_test

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// heldPastTheEdit keeps the invalid-clusterip operator down from the start
// until 30s, past the user's edit at 20s that sets an address
// kube-apiserver cannot parse: the operator creates the
// Service after the edit, and kube-apiserver's IP allocator answers the
// create with a 500 (`failed to parse service IP "ac"`), before
// validation; the fault-free run made the Service first, and validation
// answers its update with a 422 and field errors.
const heldPastTheEdit = `seed 1
at 20s mutate object=0 field=spec.clusterIP value="\"ac\""
stop process=clusterip from=0s until=30s
`

// A Service created with an invalid clusterIP after the edit and one
// updated with it end in one error, whatever the verb, the status code and
// the wording (and the operator's wrapping, which quotes its Service's
// name): the value the user wrote. The correct operator holds.
func TestAServiceCreatedOrUpdatedWithTheUsersInvalidAddressIsOneError(t *testing.T) {
	r := replayPattern(t, "invalid-clusterip", false, heldPastTheEdit)
	var results []string
	for _, s := range r.Final.Run().Steps {
		if s.Op == "result" && s.Controller == "brokerservice" && strings.HasPrefix(s.Result, "error:") {
			results = append(results, s.Result)
		}
	}
	if !slices.ContainsFunc(results, func(s string) bool { return strings.Contains(s, `failed to parse service IP "ac"`) }) {
		t.Fatalf("the held run's errors are %q, want the IP allocator's refusal of the create", results)
	}
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	if v := verdictOf(r, world.NoErrorAtRest); !slices.Contains(v.Excused, verdict.SharedError) && !slices.Contains(v.Excused, verdict.UserValue) {
		t.Fatalf("no-error-at-rest holds by %v (%s), want the user's value shared with the fault-free run", v.Excused, v.Detail)
	}
}

// downPastTheGuardedEdit keeps the override-guard operator down from the
// start until 30s, past the user's edit at 20s that scales the Pipeline
// to 0 and sets a podManagementPolicy the StatefulSet's validation
// refuses: the operator creates the StatefulSet after the edit, and every
// reconcile ends in kube-apiserver's 422. In the fault-free run the
// StatefulSet exists, the scale-down guard fires first and the invalid
// value is never sent.
const downPastTheGuardedEdit = `seed 1
at 20s mutate object=0 field=spec.replicas value=0
at 20s mutate object=0 field=spec.override.podManagementPolicy value="\"a30101\""
stop process=guard from=0s until=30s
`

// An error at rest on the user's invalid value, which kube-apiserver
// refused, is the user's (user-value) though the fault-free run never sent
// it: the correct operator holds, and the twin is still caught on its own.
func TestAnInvalidOverrideAGuardKeptFromTheFaultFreeRunIsTheUsers(t *testing.T) {
	r := replayPattern(t, "override-guard", false, downPastTheGuardedEdit)
	var failed bool
	for _, s := range r.Final.Run().Steps {
		failed = failed || s.Op == "result" && strings.Contains(s.Result, `Invalid value: "a30101"`)
	}
	if !failed {
		t.Fatalf("no reconcile of the held run ends in the StatefulSet's refusal of \"a30101\"")
	}
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	if v := verdictOf(r, world.NoErrorAtRest); !slices.Contains(v.Excused, verdict.UserValue) {
		t.Fatalf("no-error-at-rest holds by %v (%s), want %s", v.Excused, v.Detail, verdict.UserValue)
	}
}

// restartAfterTheEmptiedReference empties the secret-ref Registry's
// reference at 20s and crashes its operator at 25s: the new incarnation
// relists the ConfigMap, which wakes registry-status, and it fails on
// `Secret "" not found` as registry does; in the fault-free run nothing
// wakes registry-status after the edit.
const restartAfterTheEmptiedReference = `seed 1
at 20s mutate object=0 field=spec.secretRef value={}
crash process=secretref at=25s
`

// An error at rest on the user's emptied reference in a controller that
// only the faulted run reconciled again is the user's (user-value): the
// fault-free run failed on it too, in another controller.
func TestAnEmptiedReferenceMetInAnotherControllerIsTheUsers(t *testing.T) {
	r := replayPattern(t, "secret-ref", false, restartAfterTheEmptiedReference)
	var failed bool
	for _, s := range r.Final.Run().Steps {
		failed = failed || s.Op == "result" && s.Controller == "registry-status" && strings.Contains(s.Result, `Secret "" not found`)
	}
	if !failed {
		t.Fatalf("registry-status never fails on the emptied reference in the faulted run")
	}
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	if v := verdictOf(r, world.NoErrorAtRest); !slices.Contains(v.Excused, verdict.UserValue) {
		t.Fatalf("no-error-at-rest holds by %v (%s), want %s", v.Excused, v.Detail, verdict.UserValue)
	}
}

// A crash right after the key-pair operator created its temporary request
// Secret: the next incarnation issues again through a second request, and
// deletes both. How many temporary objects of generated name the operator
// made and deleted, and which of them its status names, are its own
// (update-summaries: temporary; canon names a reference to a deleted one
// as an object gone), while its key material is drawn from the plan.
func TestATemporaryObjectMadeAgainAfterACrashIsTheOperatorsOwn(t *testing.T) {
	const crashAfterTheRequest = "seed 1\ncrash process=keypair write=1\n"
	r := replayPattern(t, "key-pair", false, crashAfterTheRequest)
	var requests int
	for _, s := range r.Final.Run().Steps {
		if s.Process == "keypair" && s.Op == "create" && strings.HasPrefix(s.Object, "Secret certs/web-request-") {
			requests++
		}
	}
	if requests != 2 {
		t.Fatalf("the operator created %d requests, want 2 (one before the crash, one after)", requests)
	}
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	if v := verdictOf(r, world.UpdateSummaries); !slices.Contains(v.Excused, verdict.Temporary) {
		t.Fatalf("update-summaries holds by %v (%s), want %s", v.Excused, v.Detail, verdict.Temporary)
	}
	if vs := replayPattern(t, "key-pair", true, crashAfterTheRequest).Violated(); len(vs) == 0 {
		t.Fatalf("the twin holds on %q", crashAfterTheRequest)
	}
}

// restartOntoThePipelineBeforeTheEdit is the false-alarm suite's plan 604
// of override-guard, shrunk: the user sets an invalid podManagementPolicy
// at once and scales the Pipeline to 0 at 26ms; the operator, which read
// the edited Pipeline at 0s, crashes at 1ms and restarts at 10s onto an
// apiserver still at the Pipeline's first version (resourceVersion 16).
const restartOntoThePipelineBeforeTheEdit = `seed 1
at 0s mutate object=0 field=spec.override.podManagementPolicy value="\"p\"" expect=valid
at 26ms mutate object=0 field=spec.replicas value=0 expect=valid
lag process=guard kind=/v1/Secret min=34ms max=5.035s
lag process=guard kind=* min=411ms max=415ms
lag process=guard kind=/v1/ConfigMap min=59ms max=79ms
hold process=guard kind=/v1/ConfigMap from=1ms until=75ms
stale process=guard at=1ms age=27.76s rev=16
`

// A guard makes the child's history count, so the Pipeline it guards is
// read live: restarted onto a cache from before the user's edits, an
// operator reading its cache made a StatefulSet of the 2 replicas the
// user had already scaled to 0 (and the invalid policy never sent), then
// refused the scale-down for good (status.blocked; converges: the
// fault-free run ends in kube-apiserver's refusal of the policy, with no
// StatefulSet). A real stale-state bug of the pattern, not a false alarm:
// the correct operator ends as the fault-free run does.
func TestAGuardedPipelineIsReadLiveNotFromARestartedCache(t *testing.T) {
	r := replayPattern(t, "override-guard", false, restartOntoThePipelineBeforeTheEdit)
	var stale bool
	for _, s := range r.Steps {
		stale = stale || s.Process == "guard" && s.Stale() && strings.HasPrefix(s.Object, "Pipeline ")
	}
	if stale {
		t.Errorf("the operator read the Pipeline from its cache at a stale version")
	}
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	if v := verdictOf(r, world.NoErrorAtRest); !slices.Contains(v.Excused, verdict.SharedError) {
		t.Fatalf("no-error-at-rest holds by %v (%s), want the refusal of the policy shared with the fault-free run", v.Excused, v.Detail)
	}
}

// emptiedAsTheOperatorStarts is the false-alarm suite's first false alarm
// of secret-ref, shrunk: the user empties the reference 2ms after the
// Registry is made, as the operator's first pass runs. With registry-status
// reading its cache, under one schedule (seed 2151) it got through before
// the edit and set status.ready; under this one (103) it woke after the
// edit and failed; both schedules ended with both controllers failing on
// `Secret "" not found` (interleavings-agree, until frozen-status covered
// another controller's status:
// verdict.TestTheStatusAnotherControllerCompletedIsFrozenWhileTheObjectFailsByDesign).
const emptiedAsTheOperatorStarts = `seed 103
at 2ms mutate object=0 field=spec.secretRef value={} expect=valid
`

// The plan holds on the correct operator (whose registry-status now reads
// the Registry live, which moves its write: the two schedules now agree
// outright).
func TestAReferenceEmptiedAsTheOperatorStartsIsNoRace(t *testing.T) {
	r := replayPattern(t, "secret-ref", false, emptiedAsTheOperatorStarts)
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
}

// restartOntoACacheWithoutTheRegistry is secret-ref's plan 152 of the
// false-alarm suite, shrunk: the operator crashes at 4ms, as
// registry-status is about to set status.ready, and restarts at 10s onto a
// Registry cache from before the Registry was made, while its ConfigMap
// cache is current.
const restartOntoACacheWithoutTheRegistry = `seed 1227
stale process=secretref kind=patterns.ctrlsim.dev/v1/Registry at=4ms age=25.354s rev=15
`

// A controller no event of an object wakes reads that object live: the
// restarted registry-status, woken by its ConfigMap's relist, found no
// Registry in its lagging cache, returned, and was never woken again when
// the Registry showed (status.ready never set; converges). A real
// stale-state bug of the pattern, not a false alarm.
func TestARegistrysStatusReadsTheRegistryLive(t *testing.T) {
	r := replayPattern(t, "secret-ref", false, restartOntoACacheWithoutTheRegistry)
	for _, s := range r.Steps {
		if s.Controller == "registry-status" && s.Stale() && strings.HasPrefix(s.Object, "Registry ") {
			t.Errorf("registry-status read the Registry from a stale cache: %s", s.String())
		}
	}
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
}

// scaledDownAsTheSetIsMade scales the Pipeline from 2 to 1 1ms in, as the
// operator's first pass runs: under seed 2127 the StatefulSet of 2 was
// made before the edit, under seed 79 after it, with 1.
const scaledDownAsTheSetIsMade = `seed 79
at 1ms mutate object=0 field=spec.replicas value=1 expect=valid
`

// The guard refuses to remove running workers, judged by the
// StatefulSet's state (its ready workers), not by its history: the first
// version refused any scale-down below the set's replicas, so a set made
// a moment before the user's scale-down, whose workers had not started,
// was held at 2 (status.blocked) under one schedule and made with 1 under
// the other (interleavings-agree at seed 79). Once the workers run, a
// scale-down is refused (TestAGuardedPipelineKeepsItsStatefulSet).
func TestAGuardRefusesToRemoveRunningWorkersNotASetJustMade(t *testing.T) {
	r := replayPattern(t, "override-guard", false, scaledDownAsTheSetIsMade)
	if vs := r.Violated(); len(vs) != 0 {
		t.Fatalf("the correct operator violates %v", vs)
	}
	var sts appsv1.StatefulSet
	get(t, r, "flow", "etl", &sts)
	if *sts.Spec.Replicas != 1 {
		t.Errorf("the StatefulSet has %d replicas, want the user's 1", *sts.Spec.Replicas)
	}
}
