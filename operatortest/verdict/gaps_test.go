package verdict_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/canon"
	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A converges verdict on a field names the two values, not which run wrote
// the field (as it names the run with the extra create of an object).
func TestAFieldVerdictNamesTheValuesNotTheWriter(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	refs := []*verdict.Reference{{Seed: 1, Snap: optest.Snap(t, w, optest.App(map[string]string{"mode": "x"}))}}
	v := verdict.Converges(w, refs, optest.Snap(t, w, optest.App(map[string]string{"mode": "y"})), time.Minute)
	if v.Holds || !strings.Contains(v.Detail, `at data.mode: "x" there, "y" here`) {
		t.Fatalf("converges: %+v, want the two values of data.mode", v)
	}
	for _, writer := range []string{"wrote", "written", "the extra"} {
		if strings.Contains(v.Detail, writer) {
			t.Errorf("the verdict says %q: %s", writer, v.Detail)
		}
	}
}

// The fault-free run with no generated workload keeps the author's scripted
// steps only: a domain step goes with the drawn ones.
func TestTheRunWithNoGeneratedWorkloadDropsTheDomainSteps(t *testing.T) {
	p, err := plan.Parse("seed 1\nat 1s publish name=x\n" +
		`script at 2s patch kind=/v1/ConfigMap namespace=team name=app patch="{\"data\":{\"host\":\"b\"}}"` + "\nat 3s delete object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Steps) != 3 {
		t.Fatalf("the plan has %d steps, want 3", len(p.Steps))
	}
	got := world.ScriptSteps(p.Steps)
	if len(got) != 1 || !got[0].Script {
		t.Errorf("with no generated workload: %v, want the scripted patch alone (no domain step)", got)
	}
}

// A field the fault-free runs of two schedules differ in is not held
// against a faulted run by converges, but interleavings-agree, comparing
// those two runs with no third, reports it: a draw of the environment that
// is not the shared seed's differs there.
func TestInterleavingsAgreeComparesTheTwoFaultFreeRunsStrictly(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	refs := []*verdict.Reference{{Seed: 1, Snap: optest.Snap(t, w, optest.App(map[string]string{"drawn": "a"}))},
		{Seed: 2049, Snap: optest.Snap(t, w, optest.App(map[string]string{"drawn": "b"}))}}
	got := optest.Snap(t, w, optest.App(map[string]string{"drawn": "a"}))
	if v := verdict.Converges(w, refs, got, time.Minute); !v.Holds {
		t.Errorf("converges: %s, want the learned field free", v.Detail)
	}
	if v := reference.InterleavingsAgree(w, refs, got); v.Holds || !strings.Contains(v.Detail, `"drawn":"b"`) {
		t.Errorf("interleavings-agree: %+v, want the two schedules' data.drawn reported", v)
	}
}

// A checksum in base64 (or of content the run never stored) is opaque: it
// is compared as it is, where the same digest in hex is named by its
// content.
func TestAChecksumInBase64IsOpaque(t *testing.T) {
	data := map[string]string{"relay.conf": "port = 4222"}
	b, err := json.Marshal(data)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "queue", Name: "relay-config", UID: "uid-1"}, Data: data}
	c := canon.NewTokens([]apiserver.Event{{Type: watch.Added, GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Object: cm}})
	hexSum := hex.EncodeToString(sum[:])
	if got := c.Text(hexSum); got == hexSum {
		t.Fatalf("the hex digest of stored content reads as itself: %q", got)
	}
	b64 := base64.StdEncoding.EncodeToString(sum[:])
	if got := c.Text(b64); got != b64 {
		t.Errorf("the base64 digest reads %q, want it as it is", got)
	}
}

// statusRun is a run in which a Pod's status message is written by step
// (of a reconcile, or of a Runnable: no controller) and then every reconcile
// fails on the user's value.
func statusRun(w *world.World, t *testing.T, bound trace.Step) *verdict.Snapshot {
	pod := func(rv uint64, message, reason string) apiserver.Event { return webPod(t, rv, message, reason) }
	const boom = "error: Pod \"web\" is invalid: spec.x: Invalid value: \"s\": must be y"
	r := &check.Run{Log: []apiserver.Event{pod(1, "", ""), pod(2, "bound", ""), pod(3, "bound", "Failed")}}
	r.Steps = append([]trace.Step{podStep("reconcile", "shop/web", 0, "")}, bound)
	r.Steps = append(r.Steps, podStep("result", "shop/web", 0, "ok"),
		podStep("reconcile", "shop/web", 0, ""), podStep("update/status", "Pod shop/web", 3, "ok"), podStep("result", "shop/web", 0, boom))
	s := &verdict.Snapshot{World: w, Canon: canon.NewTokens(r.Log)}
	s.AtRest = verdict.ErrorsAtRest(r, s.Canon)
	s.StatusWrites = verdict.StatusWritesOf(r, s)
	return s
}

// The status fields frozen while a reconcile fails by design are read from
// the status writes made inside the controller's reconciles: the same
// write made by a Runnable (no controller, no worker) is not read, and the
// field it wrote is compared.
func TestAStatusWriteMadeOutsideAReconcileIsNotRead(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	slowed := statusRun(w, t, trace.Step{Process: "op", Op: "log", Result: "nothing written"})
	inside := statusRun(w, t, trace.Step{Process: "op", Controller: "pod", Worker: 1, Op: "update/status", Object: "Pod shop/web", RVWritten: 2, Result: "ok"})
	if fs := verdict.FrozenStatus([]*verdict.Reference{{Snap: inside}}, slowed)["Pod shop/web"]; !fs["status.message"] {
		t.Fatalf("the message a reconcile wrote is not frozen: %v", fs)
	}
	outside := statusRun(w, t, trace.Step{Process: "op", Op: "update/status", Object: "Pod shop/web", RVWritten: 2, Result: "ok"})
	if fs := verdict.FrozenStatus([]*verdict.Reference{{Snap: outside}}, slowed)["Pod shop/web"]; fs["status.message"] {
		t.Errorf("the message a Runnable wrote is frozen: %v; want it compared", fs)
	}
}

// A reconciled object is told from its outputs by its controller's name
// being its kind (or by a status write): a controller Named otherwise has
// its own object's metadata write (a finalizer) among its outputs.
func TestAControllerNamedOtherThanItsKindHasItsObjectAmongItsOutputs(t *testing.T) {
	for _, c := range []struct {
		controller string
		want       []string
	}{
		{"configmap", []string{"ConfigMap team/app-out"}},
		{"publisher", []string{"ConfigMap team/app", "ConfigMap team/app-out"}},
	} {
		step := func(op, object string) trace.Step {
			return trace.Step{Process: "op", Controller: c.controller, Worker: 1, Op: op, Object: object}
		}
		steps := []trace.Step{
			step("reconcile", "team/app"),
			step("update", "ConfigMap team/app"),
			step("create", "ConfigMap team/app-out"),
			step("result", "team/app"),
		}
		if got := verdict.OutputsOf(steps, canon.NewTokens(nil))[c.controller+" team/app"]; !slices.Equal(got, c.want) {
			t.Errorf("controller %s: outputs %q, want %q", c.controller, got, c.want)
		}
	}
}

// churnRunWith is optest.ChurnRun's run with the given steps.
func churnRunWith(t *testing.T, w *world.World, steps []trace.Step, changes ...optest.LogChange) *verdict.Snapshot {
	t.Helper()
	start := time.Unix(0, 0)
	r := &check.Run{Start: start, End: time.Minute, HealAt: 30 * time.Second, Steps: steps, Objects: func(schema.GroupVersionKind) []client.Object { return nil }}
	for i, c := range changes {
		o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: c.Name, UID: types.UID(c.Name)}}
		r.Log = append(r.Log, apiserver.Event{Type: c.Type, GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Object: o, ResourceVersion: uint64(i + 1), At: start.Add(c.At)})
	}
	return verdict.SnapshotOf(w, r)
}

// Churn both ways is opened by the workload's deletions (its landed
// "action" steps, the admin's deletes): one lifetime more after a deletion
// the operator's own code made is still churn.
func TestADeletionTheOperatorMakesIsNoRaceWithTheUser(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	const deleted = 5 * time.Millisecond
	app := []optest.LogChange{{At: 0, Type: watch.Added, Name: "app"}, {At: deleted, Type: watch.Deleted, Name: "app"}}
	life := []optest.LogChange{{At: time.Millisecond, Type: watch.Added, Name: "record-app"}, {At: 6 * time.Millisecond, Type: watch.Deleted, Name: "record-app"}}
	for _, c := range []struct {
		name  string
		by    trace.Step
		holds bool
	}{
		{"the user's", trace.Step{At: deleted, Op: "action", Object: world.ActionDelete, Result: "ok"}, true},
		{"the operator's", trace.Step{At: deleted, Process: "op", Controller: "cleanup", Worker: 1, Op: "delete", Object: "ConfigMap team/app", Result: "ok"}, false},
	} {
		refs := []*verdict.Reference{{Seed: 1, Snap: churnRunWith(t, w, []trace.Step{c.by}, app...)}}
		v := verdict.UpdateSummaries(w, refs, churnRunWith(t, w, []trace.Step{c.by}, append(slices.Clone(app), life...)...), time.Minute)
		if v.Holds != c.holds {
			t.Errorf("a lifetime more after %s deletion: update-summaries holds %v (%s), want %v", c.name, v.Holds, v.Detail, c.holds)
		}
	}
}

// The blame rule needs an owner reference: an object with none, not being
// deleted at either end, is not told apart; and an owner is found at the
// end by its name, so a generated owner named apart in the two runs is not
// matched (the run that never made the child for its owner is not blamed).
func TestTheBlameRuleNeedsAnOwnerMatchedByName(t *testing.T) {
	ms := time.Millisecond
	bare := []apiserver.Event{obj(watch.Added, configMapGVK, "x", 5, ms, "c1", "")}
	if got, why := verdict.ShowsTheBug("ConfigMap default/x", [2]verdict.RunEnd{{Name: "a", Log: bare}, {Name: "b"}}); got != -1 {
		t.Errorf("an object with no owner, made in one run only: run %d (%s), want -1", got, why)
	}
	owner := func(name, uid string) apiserver.Event {
		return apiserver.Event{Type: watch.Added, GVK: secretKind, ResourceVersion: 1,
			Object: &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, GenerateName: "w-", UID: types.UID(uid)}}}
	}
	child := obj(watch.Added, configMapGVK, "w-cm", 6, ms, "c1", "u1")
	child.Object.GetOwnerReferences()[0].Name = "w-abcde"
	made := []apiserver.Event{owner("w-abcde", "u1"), child}
	missing := []apiserver.Event{owner("w-fghij", "u2")}
	// Named alike, the run without the child is blamed.
	if got, _ := verdict.ShowsTheBug("ConfigMap default/w-cm", [2]verdict.RunEnd{{Name: "a", Log: made}, {Name: "b", Log: []apiserver.Event{owner("w-abcde", "u2")}}}); got != 1 {
		t.Fatalf("an owner of one name in both runs: run %d, want 1", got)
	}
	if got, why := verdict.ShowsTheBug("ConfigMap default/w-cm", [2]verdict.RunEnd{{Name: "a", Log: made}, {Name: "b", Log: missing}}); got != -1 {
		t.Errorf("an owner named apart: run %d (%s), want -1 (not matched)", got, why)
	}
}

// A dependent whose owner is of a kind the watch log never shows (made
// before the run) is taken as created for a gone owner: its lifetime is
// the collector's rule at work, noted, not churn.
func TestADependentOfAnOwnerTheLogNeverShowsIsTakenAsMadeForAGoneOwner(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	start := time.Unix(0, 0)
	yes := true
	dep := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "dep", UID: "d1",
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "example.com/v1", Kind: "Widget", Name: "w", UID: "made-before", Controller: &yes}}}}
	gvk := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	r := &check.Run{Start: start, End: time.Minute, HealAt: 30 * time.Second, Objects: func(schema.GroupVersionKind) []client.Object { return nil },
		Log: []apiserver.Event{{Type: watch.Added, GVK: gvk, Object: dep, ResourceVersion: 1, At: start.Add(time.Millisecond)},
			{Type: watch.Deleted, GVK: gvk, Object: dep, ResourceVersion: 2, At: start.Add(2 * time.Millisecond)}}}
	refs := []*verdict.Reference{{Seed: 1, Snap: optest.ChurnRun(t, w, 0)}}
	v := verdict.UpdateSummaries(w, refs, verdict.SnapshotOf(w, r), time.Minute)
	if !v.Holds || !strings.Contains(v.Detail, "ConfigMap team/dep") {
		t.Fatalf("update-summaries: %+v, want it to hold and note the dependent as collected", v)
	}
	optest.Excused(t, v, verdict.CollectorChurn)
}

// no-orphans judges the kinds the collector collects: a ConfigMap whose
// owner is gone is an orphan, a Role whose owner is gone is not judged.
func TestNoOrphansJudgesTheCollectedKindsOnly(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	var noOrphans check.Property
	for _, p := range verdict.Oracles(w, nil) {
		if p.Name() == world.NoOrphans {
			noOrphans = p
		}
	}
	if noOrphans == nil {
		t.Fatal("no no-orphans oracle")
	}
	gone := []metav1.OwnerReference{{APIVersion: "v1", Kind: "Secret", Name: "gone", UID: "gone"}}
	cmGVK := corev1.SchemeGroupVersion.WithKind("ConfigMap")
	roleGVK := rbacv1.SchemeGroupVersion.WithKind("Role")
	run := func(gvk schema.GroupVersionKind, o client.Object) *check.Run {
		o.SetOwnerReferences(gone)
		return &check.Run{Start: time.Unix(0, 0), End: time.Minute, HealAt: 30 * time.Second, Kinds: []schema.GroupVersionKind{gvk},
			Log: []apiserver.Event{{Type: watch.Added, GVK: gvk, Object: o, ResourceVersion: 1}},
			Objects: func(k schema.GroupVersionKind) []client.Object {
				if k == gvk {
					return []client.Object{o}
				}
				return nil
			}}
	}
	if v := noOrphans.Check(run(cmGVK, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "cm", UID: "c"}})); v.Holds {
		t.Errorf("a ConfigMap whose owner is gone: no-orphans holds, want violated")
	}
	if v := noOrphans.Check(run(roleGVK, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "r", UID: "r"}})); !v.Holds {
		t.Errorf("a Role whose owner is gone: %s, want it not judged", v.Detail)
	}
}

// A heartbeat slower than one write in HealBudget/6 is not seen at rest:
// one write every 30 s over the 2-minute heal budget's rest holds.
func TestAHeartbeatSlowerThanRestsBoundIsNotSeen(t *testing.T) {
	w := optest.TestWorld(t, optest.AppOptions(optest.Child()))
	fast := newRestRun(0)
	fast.every(70*time.Second, 3*time.Minute-time.Second, 10*time.Second, heartbeat(fast))
	if v := verdict.JudgeWritesAtRest(w, nil, fast.snap(w)); v.Holds {
		t.Fatalf("a heartbeat every 10 s holds, want it caught")
	}
	slow := newRestRun(0)
	slow.every(70*time.Second, 3*time.Minute-time.Second, 30*time.Second, heartbeat(slow))
	if v := verdict.JudgeWritesAtRest(w, nil, slow.snap(w)); !v.Holds {
		t.Errorf("a heartbeat every 30 s: %s, want it not seen", v.Detail)
	}
}
