package story_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/story"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// crashBetweenCreates is a run in which op crashes right after creating
// Secret team/app-config, restarts, finds it and stops, and the fault-free
// run of the same workload, which created team/app-credentials too.
func crashBetweenCreates() story.Input {
	r := func(at time.Duration, n int, op, obj, res string) trace.Step {
		return trace.Step{At: at, Process: "op", Controller: "configmap", Worker: 1, Reconcile: n, Op: op, Object: obj, Result: res}
	}
	faultFree := []trace.Step{
		{Process: "op", Op: "start", Result: "incarnation 1"},
		r(0, 1, "reconcile", "team/app", ""),
		r(0, 1, "cached-get", "Secret team/app-config", "NotFound: not found"),
		r(time.Millisecond, 1, "create", "Secret team/app-config", "ok"),
		r(2*time.Millisecond, 1, "create", "Secret team/app-credentials", "ok"),
		r(2*time.Millisecond, 1, "result", "team/app", "ok"),
		{At: time.Minute, Op: "heal"},
	}
	steps := []trace.Step{
		{Process: "op", Op: "start", Result: "incarnation 1"},
		r(0, 1, "reconcile", "team/app", ""),
		r(0, 1, "cached-get", "Secret team/app-config", "NotFound: not found"),
		r(time.Millisecond, 1, "create", "Secret team/app-config", "ok"),
		{At: time.Millisecond, Process: "op", Op: "crash", Result: "crash after write 1 (create)"},
		{At: 10 * time.Second, Process: "op", Op: "restart", Result: "incarnation 2"},
		r(10*time.Second, 1, "reconcile", "team/app", ""),
		r(10*time.Second, 1, "cached-get", "ConfigMap team/app", "ok"),
		r(10*time.Second, 1, "cached-get", "Secret team/app-config", "ok"),
		r(10*time.Second, 1, "result", "team/app", "ok"),
		{At: time.Minute, Op: "heal"},
	}
	return story.Input{Title: "crash between creates", Steps: steps, Start: clock.Epoch,
		Verdicts: []check.Verdict{{Property: "converges", At: 3 * time.Minute,
			Detail: "Secret team/app-credentials exists after the fault-free run of the same workload, not after this run"}},
		Compared: &story.Compared{Name: "the fault-free run of the same workload", Steps: faultFree}}
}

// A run that ends without an object the fault-free run made is told by the
// write that never happened: which run made it, when, in which reconcile of
// what; and this run's last reconcile of the same object, what it read and
// wrote instead. That reconcile is a numbered step, the verdict is drawn
// there, and the object gets a lane of its own with a mark where the
// fault-free run made it. The same input tells the same story.
func TestAMissingObjectIsToldByTheWriteThatNeverHappened(t *testing.T) {
	s := story.Build(crashBetweenCreates())
	if len(s.Absences) != 1 {
		t.Fatalf("absences: %+v, want the second Secret's creation", s.Absences)
	}
	want := "Secret team/app-credentials: the fault-free run of the same workload created it at 2ms (op/configmap r1, reconciling team/app); " +
		"this run never did: its last reconcile of team/app (op/configmap r1 at 10s, after the restart at 10s) " +
		"read ConfigMap team/app and Secret team/app-config, wrote nothing, and returned ok"
	if got := s.Absences[0].Text; got != want {
		t.Errorf("the absence says\n %s\nwant\n %s", got, want)
	}
	lines := strings.Join(s.StepLines(), "\n")
	if !strings.Contains(lines, "r1 of team/app, the last: never creates Secret team/app-credentials") {
		t.Errorf("the last reconcile that could have made it is not a step:\n%s", lines)
	}
	if v := s.Verdicts[0]; v.Event < 0 || s.Events[v.Event].At != 10*time.Second {
		t.Errorf("the verdict is drawn at event %d, want the last reconcile's (at 10s)", v.Event)
	}
	var lane *story.Lane
	for i := range s.Lanes {
		if s.Lanes[i].ID == "object:Secret team/app-credentials" {
			lane = &s.Lanes[i]
		}
	}
	if lane == nil || len(lane.Spans) != 1 || lane.Spans[0].Label != "never created in this run" || len(lane.Marks) != 1 || lane.Marks[0].At != 2*time.Millisecond {
		t.Fatalf("the missing Secret's lane: %+v", lane)
	}
	var a, b bytes.Buffer
	if err := s.WriteSVG(&a); err != nil {
		t.Fatal(err)
	}
	if err := story.Build(crashBetweenCreates()).WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	if a.String() != b.String() {
		t.Error("one input drew two pictures")
	}
	for _, want := range []string{">Secret team/app-credentials<", ">object: this run never made it<", "the fault-free run created it here", "what this run never did: Secret team/app-credentials"} {
		if !strings.Contains(a.String(), want) {
			t.Errorf("the picture lacks %q", want)
		}
	}
}

// With no compared run, or when this run made the object too, nothing is
// told as missing.
func TestNoAbsenceWithoutAComparedRunOrWhenTheRunMadeIt(t *testing.T) {
	in := crashBetweenCreates()
	in.Compared = nil
	if s := story.Build(in); len(s.Absences) != 0 {
		t.Errorf("no compared run, absences %+v", s.Absences)
	}
	in = crashBetweenCreates()
	in.Compared.Steps = in.Steps
	if s := story.Build(in); len(s.Absences) != 0 {
		t.Errorf("compared with itself, absences %+v", s.Absences)
	}
}

// Events are numbered ① to ⑩ and then (11), (12): the circled numbers past
// ⑩ are missing from common fonts, which draw them as empty boxes. The
// picture, its list and the inspector keep one rule.
func TestEventsPastTenAreNumberedInParentheses(t *testing.T) {
	steps := []trace.Step{{Process: "promotion", Op: "start", Result: "incarnation 1"}}
	for i := range 12 {
		steps = append(steps, trace.Step{At: time.Duration(i+1) * time.Second, Process: "promotion", Op: "promote", Object: "default/p/staging@v2", Result: "ok"})
	}
	s := story.Build(story.Input{Title: "twelve promotions", Steps: steps, Start: clock.Epoch,
		Verdicts: []check.Verdict{{Property: "at-most-once", At: 13 * time.Second, Detail: "promote default/p/staging@v2 happened 12 times"}}})
	if len(s.Events) != 12 {
		t.Fatalf("%d events, want 12", len(s.Events))
	}
	var svg, html bytes.Buffer
	if err := s.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	if err := s.WriteHTML(&html, nil); err != nil {
		t.Fatal(err)
	}
	lines := strings.Join(s.StepLines(), "\n")
	for _, out := range []string{svg.String(), lines} {
		if strings.ContainsFunc(out, func(r rune) bool { return r >= '⑪' && r <= '⑳' }) {
			t.Errorf("a circled number past ⑩ is drawn:\n%s", lines)
		}
		for _, want := range []string{"⑩ ", "(11) ", "(12) "} {
			if !strings.Contains(out, want) {
				t.Errorf("no %q in:\n%s", want, lines)
			}
		}
	}
	if !strings.Contains(html.String(), "n <= 10 ?") {
		t.Error("the inspector numbers events past ⑩ by another rule")
	}
}

// An object left behind is told by its deletion that never happened: the
// fault-free run's controller removed the last finalizer of the deleting
// object, and this run's last reconcile of it failed to.
func TestALeftoverObjectIsToldByTheFinalizerNeverRemoved(t *testing.T) {
	r := func(at time.Duration, n int, op, obj, res string) trace.Step {
		return trace.Step{At: at, Process: "op", Controller: "repo", Worker: 1, Reconcile: n, Op: op, Object: obj, Result: res}
	}
	deleteCall := trace.Step{At: time.Second, Process: "kube-controller-manager", Controller: "namespace", Worker: 1, Reconcile: 1, Op: "delete", Object: "RepoSync shop/repo", Result: "ok"}
	faultFree := []trace.Step{
		{Process: "op", Op: "start", Result: "incarnation 1"},
		deleteCall,
		r(2*time.Second, 3, "reconcile", "shop/repo", ""),
		r(2*time.Second, 3, "update", "RepoSync shop/repo", "ok"),
		r(2*time.Second, 3, "result", "shop/repo", "ok"),
	}
	faultFree[3].Digest = trace.DigestDeleted
	steps := []trace.Step{
		{Process: "op", Op: "start", Result: "incarnation 1"},
		deleteCall,
		r(5*time.Second, 5, "reconcile", "shop/repo", ""),
		r(5*time.Second, 5, "cached-get", "RepoSync shop/repo", "ok"),
		r(5*time.Second, 5, "update", "RepoSync shop/repo", "Forbidden: cannot update"),
		r(5*time.Second, 5, "result", "shop/repo", "error: cannot update"),
	}
	s := story.Build(story.Input{Title: "left behind", Steps: steps, Start: clock.Epoch,
		Verdicts: []check.Verdict{{Property: "converges", At: time.Minute, Detail: "RepoSync shop/repo exists after this run, not after the fault-free run of the same workload"}},
		Compared: &story.Compared{Name: "the fault-free run of the same workload", Steps: faultFree}})
	want := "RepoSync shop/repo: the fault-free run of the same workload removed its last finalizer at 2s (op/repo r3, reconciling shop/repo); " +
		"this run never did: its last reconcile of shop/repo (op/repo r5 at 5s) read RepoSync shop/repo, tried to update RepoSync shop/repo (Forbidden: cannot update), and returned error: cannot update"
	if len(s.Absences) != 1 || s.Absences[0].Text != want {
		t.Fatalf("absences %+v, want one saying\n %s", s.Absences, want)
	}
	if lines := strings.Join(s.StepLines(), "\n"); !strings.Contains(lines, "r5 of shop/repo, the last: never removes the last finalizer of RepoSync shop/repo") {
		t.Errorf("the last reconcile that could have removed it is not a step:\n%s", lines)
	}
}

// Writes are counted, so an extra write of the fault-free run is told too.
// Here the fault-free run is the one with the bug: its operator deleted its
// Secret and, its cache still showing the old one gone and not the new,
// created it again a second time, which this run (one create, one delete)
// never did. The verdict says the extra create is the fault-free run's;
// the story tells that second create, the fault-free run's reconcile that
// made it, and this run's last reconcile of the same object, rather than
// nothing (this run created the Secret once: a first create is no absence).
func TestAnExtraCreateOfTheFaultFreeRunIsToldByItsReconcile(t *testing.T) {
	r := func(at time.Duration, n int, op, obj, res string) trace.Step {
		return trace.Step{At: at, Process: "op", Controller: "configmap", Worker: 1, Reconcile: n, Op: op, Object: obj, Result: res}
	}
	faultFree := []trace.Step{
		{Process: "op", Op: "start", Result: "incarnation 1"},
		r(0, 1, "reconcile", "team/app", ""),
		r(time.Millisecond, 1, "create", "Secret team/app-config", "ok"),
		r(2*time.Millisecond, 1, "delete", "Secret team/app-config", "ok"),
		r(2*time.Millisecond, 1, "result", "team/app", "ok"),
		r(3*time.Millisecond, 2, "reconcile", "team/app", ""),
		r(3*time.Millisecond, 2, "cached-get", "Secret team/app-config", "NotFound: not found"),
		r(4*time.Millisecond, 2, "create", "Secret team/app-config", "ok"),
		r(4*time.Millisecond, 2, "result", "team/app", "ok"),
	}
	steps := []trace.Step{
		{Process: "op", Op: "start", Result: "incarnation 1"},
		r(0, 1, "reconcile", "team/app", ""),
		r(time.Millisecond, 1, "create", "Secret team/app-config", "ok"),
		r(2*time.Millisecond, 1, "delete", "Secret team/app-config", "ok"),
		r(2*time.Millisecond, 1, "result", "team/app", "ok"),
		r(3*time.Millisecond, 2, "reconcile", "team/app", ""),
		r(3*time.Millisecond, 2, "get", "Secret team/app-config", "NotFound: not found"),
		r(3*time.Millisecond, 2, "result", "team/app", "ok"),
	}
	s := story.Build(story.Input{Title: "created again", Steps: steps, Start: clock.Epoch,
		Verdicts: []check.Verdict{{Property: "converges", At: time.Minute, Detail: "Secret team/app-config exists after the fault-free run of the same workload, not after this run " +
			"(created 2 times, deleted 1 time there, created 1 time, deleted 1 time here: the extra create is in the fault-free run of the same workload)"}},
		Compared: &story.Compared{Name: "the fault-free run of the same workload", Steps: faultFree}})
	want := "Secret team/app-config: the fault-free run of the same workload created it a 2nd time at 4ms (op/configmap r2, reconciling team/app); " +
		"this run did so 1 time: its last reconcile of team/app (op/configmap r2 at 3ms) read Secret team/app-config (not found), wrote nothing, and returned ok"
	if len(s.Absences) != 1 || s.Absences[0].Text != want {
		t.Fatalf("absences %+v, want one saying\n %s", s.Absences, want)
	}
	if lines := strings.Join(s.StepLines(), "\n"); !strings.Contains(lines, "r2 of team/app, the last: never creates Secret team/app-config a 2nd time") {
		t.Errorf("this run's last reconcile that could have made it is not a step:\n%s", lines)
	}
	var svg bytes.Buffer
	if err := s.WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg.String(), "the fault-free run created it a 2nd time here") {
		t.Errorf("the picture has no grey tick at the fault-free run's second create")
	}
}
