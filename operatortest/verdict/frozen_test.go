package verdict_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// While an operator fails by design on a dependency the user deleted (the
// fault-free run ends in the same error), what it derived keeps the input it
// last got through with, which raced with the user's edit: converges does
// not compare that output, and says so. An operator that gives up on the
// same missing dependency with no error claims its output converged, and is
// still held to it.
func TestTheOutputOfAReconcileFailingByDesignIsNotCompared(t *testing.T) {
	all := optest.JudgeAll(t, optest.PublishOptions(false), optest.EditThenDeleteTheDependency)
	for name, v := range all {
		if !v.Holds {
			t.Errorf("correct operator: %s violated: %s", name, v.Detail)
		}
	}
	if d := all[world.Converges].Detail; !strings.Contains(d, "not compared") || !strings.Contains(d, "ConfigMap team/app-out") {
		t.Errorf("converges does not say what it left uncompared and why: %q", d)
	}
	optest.Excused(t, all[world.Converges], verdict.FrozenOutputs)
	optest.Excused(t, all[world.NoErrorAtRest], verdict.SharedError)
	all = optest.JudgeAll(t, optest.PublishOptions(true), optest.EditThenDeleteTheDependency)
	if v := all[world.Converges]; v.Holds || !strings.Contains(v.Detail, "ConfigMap team/app-out") {
		t.Errorf("the operator that gives up with no error: converges %+v, want the stale ConfigMap team/app-out reported", v)
	}
}

// editRacingTheDeletion: the user edits the app's host at 3 ms and deletes
// its backend 1 ms later; with no fault, whether the operator published the
// edit before it failed on the deletion is the schedule's (seeds 3 and 2051
// differ on it).
const editRacingTheDeletion = "seed 3\n" +
	`script at 3ms patch kind=/v1/ConfigMap namespace=team name=app patch="{\"data\":{\"host\":\"b\"}}"` + "\n" +
	"at 4ms delete object=1\n"

// The same rule holds between the two fault-free schedules: when both end
// failing by design on the deleted dependency, which input the output last
// got through with is the race with the user, not a disagreement of
// interleavings. The operator that gives up with no error is still judged.
func TestTheOutputOfAReconcileFailingByDesignIsNotAnInterleavingsDisagreement(t *testing.T) {
	if v := optest.JudgeAll(t, optest.PublishOptions(false), editRacingTheDeletion)[world.InterleavingsAgree]; !v.Holds {
		t.Errorf("correct operator: interleavings-agree violated: %s", v.Detail)
	} else {
		optest.Excused(t, v, verdict.FrozenOutputs)
	}
	if v := optest.JudgeAll(t, optest.PublishOptions(true), editRacingTheDeletion)[world.InterleavingsAgree]; v.Holds || !strings.Contains(v.Detail, "ConfigMap team/app-out") {
		t.Errorf("the operator that gives up with no error: interleavings-agree %+v, want ConfigMap team/app-out reported", v)
	}
}

// A failing reconcile's outputs are named as the snapshot names the objects
// converges compares, a cluster-scoped one without a slash: a Namespace the
// reconcile of a cluster-scoped object wrote is left out of the comparison
// as a namespaced ConfigMap is (bd's controller creates its bundle's
// Namespace; a key with a slash would match no object and judge it).
func TestTheOutputsOfAFailingReconcileAreNamedAsTheSnapshotNamesThem(t *testing.T) {
	step := func(op, object string) trace.Step {
		return trace.Step{Process: "op", Controller: "bundle", Worker: 1, Op: op, Object: object}
	}
	steps := []trace.Step{
		step("reconcile", "/example"),
		step("create", "Namespace example"),
		step("create", "ConfigMap example/config"),
		step("update/status", "Bundle example"),
		step("result", "/example"),
	}
	got := verdict.OutputsOf(steps, canon.NewTokens(nil))
	want := []string{"Namespace example", "ConfigMap example/config"}
	if out := got["bundle /example"]; !slices.Equal(out, want) {
		t.Errorf("outputs %q, want %q (all: %v)", out, want, got)
	}
	s := &verdict.Snapshot{Canon: canon.NewTokens(nil)}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "example"}}
	if k := s.Key(corev1.SchemeGroupVersion.WithKind("Namespace"), ns); k != want[0] {
		t.Errorf("the snapshot names the Namespace %q, the outputs %q", k, want[0])
	}
}

// The object's own status is frozen in part while its reconcile fails by
// design: what only a reconcile that returned nil wrote (a binding, here
// the Pod's message) is not compared in a run whose last reconcile ends in
// the error a fault-free run's also ends in, since how far the operator
// got before the user's value landed raced the user; what the failing
// reconciles write (the reason) is compared, and nothing is frozen when the
// errors differ or the faulted run does not fail.
func TestTheStatusOnlyACompleteReconcileWritesIsFrozenWhileItFailsByDesign(t *testing.T) {
	w, err := search.NewWorld(optest.AppOptions(optest.Child()).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	pod := func(rv uint64, message, reason string) apiserver.Event { return webPod(t, rv, message, reason) }
	const boom = "error: Pod \"web\" is invalid: spec.x: Invalid value: \"s\": must be y"
	// completed: a reconcile got through and recorded the message, then
	// the user's value made the next one fail and record its reason.
	completed := &check.Run{
		Log: []apiserver.Event{pod(1, "", ""), pod(2, "bound", ""), pod(3, "bound", "Failed")},
		Steps: []trace.Step{
			podStep("reconcile", "shop/web", 0, ""), podStep("update/status", "Pod shop/web", 2, "ok"), podStep("result", "shop/web", 0, "ok"),
			podStep("reconcile", "shop/web", 0, ""), podStep("update/status", "Pod shop/web", 3, "ok"), podStep("result", "shop/web", 0, boom),
		},
	}
	// slowed: the operator never got through one before the value landed.
	slowed := &check.Run{
		Log: []apiserver.Event{pod(1, "", ""), pod(2, "", "Failed")},
		Steps: []trace.Step{
			podStep("reconcile", "shop/web", 0, ""), podStep("update/status", "Pod shop/web", 2, "ok"), podStep("result", "shop/web", 0, boom),
		},
	}
	snap := func(r *check.Run) *verdict.Snapshot {
		s := &verdict.Snapshot{World: w, Canon: canon.NewTokens(r.Log)}
		s.AtRest = verdict.ErrorsAtRest(r, s.Canon)
		s.StatusWrites = verdict.StatusWritesOf(r, s)
		return s
	}
	ref, got := snap(completed), snap(slowed)
	fs := verdict.FrozenStatus([]*verdict.Reference{{Snap: ref}}, got)["Pod shop/web"]
	if !fs["status.message"] || !fs["status"] {
		t.Errorf("the message only a complete reconcile wrote is compared: %v", fs)
	}
	if fs["status.reason"] {
		t.Errorf("the reason the failing reconciles write is not compared: %v", fs)
	}
	other := snap(&check.Run{Log: slowed.Log, Steps: []trace.Step{
		podStep("reconcile", "shop/web", 0, ""), podStep("update/status", "Pod shop/web", 2, "ok"),
		podStep("result", "shop/web", 0, `error: Pod "web" is invalid: spec.z: Invalid value: "s": must be y`),
	}})
	if fs := verdict.FrozenStatus([]*verdict.Reference{{Snap: ref}}, other); len(fs) != 0 {
		t.Errorf("a run failing on another cause has its status frozen: %v", fs)
	}
	if fs := verdict.FrozenStatus([]*verdict.Reference{{Snap: got}}, ref); len(fs["Pod shop/web"]) == 0 {
		t.Errorf("the rule does not hold both ways: %v", fs)
	}
}

// webPod is Pod shop/web's watch event at resourceVersion rv (its creation
// at 1, a change after) with the status message and reason given.
func webPod(t *testing.T, rv uint64, message, reason string) apiserver.Event {
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", UID: "uid-web"},
		Status: corev1.PodStatus{Message: message, Reason: reason}}
	ev := optest.Added(t, p)
	if rv > 1 {
		ev.Type = watch.Modified
	}
	ev.ResourceVersion = rv
	return ev
}

// podStep is a step of op's pod controller, worker 1.
func podStep(op, object string, rv uint64, result string) trace.Step {
	return trace.Step{Process: "op", Controller: "pod", Worker: 1, Op: op, Object: object, RVWritten: rv, Result: result}
}

// The status an operator's other controller of the object wrote in a
// reconcile that returned nil is frozen the same way: while the object's
// reconciles end failing in one error in both runs (the user emptied a
// reference both controllers check), whether the second controller, woken
// by what the first made, got through before the user's value landed is
// the same race with the user's edit (secret-ref: registry fails from the
// start in one schedule and registry-status never runs; in the other it
// got through first and set status.ready). What a failing reconcile of
// either wrote is compared, and nothing is frozen where the first does not
// fail in both runs.
func TestTheStatusAnotherControllerCompletedIsFrozenWhileTheObjectFailsByDesign(t *testing.T) {
	w, err := search.NewWorld(optest.AppOptions(optest.Child()).WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	pod := func(rv uint64, message, reason string) apiserver.Event { return webPod(t, rv, message, reason) }
	const boom = `error: Secret "" not found`
	status := func(op, object string, rv uint64, result string) trace.Step {
		s := podStep(op, object, rv, result)
		s.Controller = "pod-status"
		return s
	}
	snap := func(r *check.Run) *verdict.Snapshot {
		s := &verdict.Snapshot{World: w, Canon: canon.NewTokens(r.Log)}
		s.AtRest = verdict.ErrorsAtRest(r, s.Canon)
		s.StatusWrites = verdict.StatusWritesOf(r, s)
		return s
	}
	// through: pod got through, pod-status recorded the message, then the
	// user's value made pod's next reconcile fail and record its reason.
	through := snap(&check.Run{
		Log: []apiserver.Event{pod(1, "", ""), pod(2, "ready", ""), pod(3, "ready", "Failed")},
		Steps: []trace.Step{
			podStep("reconcile", "shop/web", 0, ""), podStep("result", "shop/web", 0, "ok"),
			status("reconcile", "shop/web", 0, ""), status("update/status", "Pod shop/web", 2, "ok"), status("result", "shop/web", 0, "ok"),
			podStep("reconcile", "shop/web", 0, ""), podStep("update/status", "Pod shop/web", 3, "ok"), podStep("result", "shop/web", 0, boom),
		},
	})
	// slowed: pod failed from the start; pod-status never ran.
	slowed := snap(&check.Run{
		Log: []apiserver.Event{pod(1, "", ""), pod(2, "", "Failed")},
		Steps: []trace.Step{
			podStep("reconcile", "shop/web", 0, ""), podStep("update/status", "Pod shop/web", 2, "ok"), podStep("result", "shop/web", 0, boom),
		},
	})
	fs := verdict.FrozenStatus([]*verdict.Reference{{Snap: through}}, slowed)["Pod shop/web"]
	if !fs["status.message"] || !fs["status"] {
		t.Errorf("the message only pod-status's complete reconcile wrote is compared: %v", fs)
	}
	if fs["status.reason"] {
		t.Errorf("the reason pod's failing reconciles write is not compared: %v", fs)
	}
	if fs := verdict.FrozenStatus([]*verdict.Reference{{Snap: slowed}}, through)["Pod shop/web"]; !fs["status.message"] {
		t.Errorf("the rule does not hold both ways: %v", fs)
	}
	// pod ends failing in one run only: nothing is frozen.
	passed := snap(&check.Run{
		Log: []apiserver.Event{pod(1, "", ""), pod(2, "ready", "")},
		Steps: []trace.Step{
			podStep("reconcile", "shop/web", 0, ""), podStep("result", "shop/web", 0, "ok"),
			status("reconcile", "shop/web", 0, ""), status("update/status", "Pod shop/web", 2, "ok"), status("result", "shop/web", 0, "ok"),
		},
	})
	if fs := verdict.FrozenStatus([]*verdict.Reference{{Snap: passed}}, slowed); len(fs) != 0 {
		t.Errorf("a run whose reconciles got through has its status frozen: %v", fs)
	}
}

// An operator failing on the user's value, which kube-apiserver refused,
// keeps what it last got through with, in whichever run met the refusal:
// a run whose update of its StatefulSet met the immutable field the user
// changed, and a run that created the StatefulSet after the edit and never
// met it, raced the user's edit (override-guard: the user set
// serviceName 1ms in). Their outputs are not compared, either way. A
// refusal of a value the user did not write, and an error on the user's
// value the API did not refuse, met in one run only, freeze nothing.
func TestTheOutputOfAReconcileTheAPIRefusesTheUsersValueIsNotComparedEitherWay(t *testing.T) {
	const key = "pipeline flow/etl"
	outputs := map[string][]string{key: {"StatefulSet flow/etl"}}
	run := func(rest ...verdict.AtRest) *verdict.Snapshot {
		return &verdict.Snapshot{AtRest: rest, Outputs: outputs}
	}
	immutable := verdict.AtRest{Key: key, Err: `<the user's value: Pipeline flow/etl spec.override.serviceName "d3n5c">`, User: true, Refused: true,
		Step: trace.Step{Result: `error: writing StatefulSet "etl": StatefulSet.apps "etl" is invalid: spec.serviceName: Invalid value: "d3n5c": field is immutable`}}
	created := run()
	for name, fr := range map[string]map[string]string{
		"the faulted run met it": verdict.Frozen([]*verdict.Reference{{Snap: created}}, run(immutable)),
		"the fault-free run did": verdict.Frozen([]*verdict.Reference{{Snap: run(immutable)}}, created),
	} {
		if why, ok := fr["StatefulSet flow/etl"]; !ok || !strings.Contains(why, "the user's value") {
			t.Errorf("%s: the StatefulSet is compared (frozen: %v)", name, fr)
		}
	}
	notTheUsers, notRefused := immutable, immutable
	notTheUsers.User = false
	notRefused.Refused = false
	for name, e := range map[string]verdict.AtRest{"a value the user did not write": notTheUsers, "no refusal": notRefused} {
		if fr := verdict.Frozen([]*verdict.Reference{{Snap: created}}, run(e)); len(fr) != 0 {
			t.Errorf("%s, met in one run: frozen %v", name, fr)
		}
	}
}
