package story_test

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/operatortest/story"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

var secretKind = schema.GroupVersionKind{Version: "v1", Kind: "Secret"}

// obj is a committed version of a ConfigMap (or, with kind Secret, a Secret
// standing for an owner kind) at rv, owned by owner (a uid) when not "".
func obj(typ watch.EventType, kind schema.GroupVersionKind, name string, rv uint64, at time.Duration, uid, owner string) apiserver.Event {
	meta := metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID(uid), ResourceVersion: strconv.FormatUint(rv, 10)}
	if owner != "" {
		yes := true
		meta.OwnerReferences = []metav1.OwnerReference{{Kind: "Secret", Name: "w", UID: types.UID(owner), Controller: &yes}}
	}
	var o client.Object = &corev1.ConfigMap{ObjectMeta: meta}
	if kind == secretKind {
		o = &corev1.Secret{ObjectMeta: meta}
	}
	return apiserver.Event{Type: typ, GVK: kind, Object: o, ResourceVersion: rv, At: clock.Epoch.Add(at)}
}

// leftBehind is a generic oracle's failure: the user deletes the owner
// (Secret default/w) at 2ms; the operator's reconcile lists ConfigMaps from a
// cache 7ms behind (0 items, where w-cm was), and creates ConfigMap
// default/w-cm again, which nothing deletes.
func leftBehind(planText string) story.Input {
	op := func(at time.Duration, n int, opName, object string) trace.Step {
		return trace.Step{At: at, Process: "shop", Controller: "widget", Worker: 1, Reconcile: n, Op: opName, Object: object, Result: "ok"}
	}
	ms := time.Millisecond
	steps := []trace.Step{
		{At: 0, Process: "admin", Op: "create", Object: "Secret default/w", RVWritten: 5, Result: "ok"},
		{At: 0, Process: "kube-controller-manager", Op: "start", Result: "incarnation 1"},
		{At: 0, Process: "kube-controller-manager", Op: "log", Result: "Starting garbage collector"},
		{At: 0, Process: "shop", Op: "start", Result: "incarnation 1"},
		op(ms, 1, "reconcile", "default/w"),
		op(ms, 1, "cached-list", "ConfigMap default/*"),
		op(ms+100*time.Microsecond, 1, "create", "ConfigMap default/w-cm"),
		op(ms+200*time.Microsecond, 1, "result", "default/w"),
		{At: 2 * ms, Process: "admin", Op: "delete", Object: "Secret default/w", RVSeen: 5, RVCurrent: 5, Result: "ok"},
		{At: 2 * ms, Op: "action", Object: "delete", Result: "ok"},
		{At: 3 * ms, Process: "kube-controller-manager", Controller: "garbagecollector", Op: "delete", Object: "ConfigMap default/w-cm", Result: "ok"},
		op(4*ms, 2, "reconcile", "default/w"),
		op(4*ms, 2, "cached-list", "ConfigMap default/*"),
		op(4*ms+100*time.Microsecond, 2, "create", "ConfigMap default/w-cm"),
		op(4*ms+200*time.Microsecond, 2, "result", "default/w"),
		{At: 10 * ms, Op: "heal"},
	}
	steps[5].Items, steps[5].RVSeen, steps[5].RVCurrent = 0, 5, 5
	steps[6].RVWritten = 6
	steps[12].RVSeen, steps[12].RVCurrent = 6, 8 // the cache is at the create; the GC's deletion (8) has not reached it
	steps[13].RVWritten = 9
	p, err := plan.Parse(planText)
	if err != nil {
		panic(err)
	}
	return story.Input{
		Title: "left behind", Steps: steps, Start: clock.Epoch, Plan: p, Lead: []string{"shop"},
		Log: []apiserver.Event{
			obj(watch.Added, secretKind, "w", 5, 0, "u1", ""),
			obj(watch.Added, cmKind, "w-cm", 6, ms+100*time.Microsecond, "c1", "u1"),
			obj(watch.Deleted, secretKind, "w", 7, 2*ms, "u1", ""),
			obj(watch.Deleted, cmKind, "w-cm", 8, 3*ms, "c1", "u1"),
			obj(watch.Added, cmKind, "w-cm", 9, 4*ms+100*time.Microsecond, "c2", "u1"),
		},
		Verdicts: []check.Verdict{{Property: "converges", At: time.Minute, Detail: "ConfigMap default/w-cm exists after this run, not after the fault-free run with seed 1"}},
	}
}

// A generic oracle's verdict names an object, not a side effect: its story is
// still told from the trace, numbered in time order: the user's step on the
// owner, the stale list, the write that made the object again, with lanes for
// the object and its owner.
func TestAGenericVerdictTellsItsStory(t *testing.T) {
	s := story.Build(leftBehind("seed 1\nat 2ms delete object=Secret/default/w\nlag process=shop kind=/v1/ConfigMap min=0s max=7ms\n"))
	var labels []string
	for _, e := range s.Events {
		labels = append(labels, e.Label)
	}
	for _, want := range []string{
		"widget creates ConfigMap default/w-cm (r1)",
		"user: delete object=Secret/default/w",
		"garbagecollector deletes ConfigMap default/w-cm",
		"stale list of ConfigMap default/*: 0 items, cache at rv=6, current 8",
		"widget creates ConfigMap default/w-cm (r2)",
	} {
		if !slices.Contains(labels, want) {
			t.Errorf("no event %q in %q", want, labels)
		}
	}
	// Numbered in time order.
	for i := 1; i < len(s.Events); i++ {
		if s.Events[i].At < s.Events[i-1].At {
			t.Errorf("event %d (%s at %v) comes before event %d (%s at %v)", i+1, s.Events[i].Label, s.Events[i].At, i, s.Events[i-1].Label, s.Events[i-1].At)
		}
	}
	// The stale list led to the create of r2.
	led := false
	for _, l := range s.Links {
		led = led || (strings.HasPrefix(s.Events[l.From].Label, "stale list") && strings.HasSuffix(s.Events[l.To].Label, "(r2)"))
	}
	if !led {
		t.Errorf("the stale list is not linked to the write it led to: %+v", s.Links)
	}
	var lanes []string
	for _, l := range s.Lanes {
		lanes = append(lanes, l.ID)
	}
	for _, want := range []string{"object:ConfigMap default/w-cm", "object:Secret default/w"} {
		if !slices.Contains(lanes, want) {
			t.Errorf("no lane %s (the object the verdict names and its owner): %q", want, lanes)
		}
	}
	var b bytes.Buffer
	if err := s.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	if !strings.Contains(svg, "The violation, step by step") || !strings.Contains(svg, escape("② ")) || !strings.Contains(svg, "heal: faults end") {
		t.Errorf("the picture does not number the steps of the violation")
	}
	if strings.Contains(svg, "No fault in this plan") {
		t.Error("a plan with a fault says it has none")
	}
	checkLabels(t, svg, s)
}

// A plan with no fault: no "faults end", and the picture says the default
// watch delay alone caused the violation.
func TestAFaultlessPlanSaysTheDefaultDelayCausedIt(t *testing.T) {
	s := story.Build(leftBehind("seed 1\nat 2ms delete object=Secret/default/w\n"))
	var b bytes.Buffer
	if err := s.WriteSVG(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	if strings.Contains(svg, "heal: faults end") || !strings.Contains(svg, "fault phase ends (this plan has no fault)") {
		t.Error("a plan without a fault is drawn with its faults ending")
	}
	if len(s.Notes) != 1 || !strings.HasPrefix(s.Notes[0], "No fault in this plan: the default watch delay alone caused it. The stale read ") ||
		!strings.Contains(s.Notes[0], "came 1ms after the change it missed (rv=8) was committed") {
		t.Errorf("notes %q", s.Notes)
	}
	if !strings.Contains(svg, "No fault in this plan: the default watch delay alone caused it.") {
		t.Error("the picture does not say the default watch delay caused it")
	}
	checkLabels(t, svg, s)
}

// checkLabels asserts, from the SVG, that the numbered labels are in time
// order (a higher number never left of a lower one on one lane's anchor
// positions) and that no two labels' boxes overlap.
func checkLabels(t *testing.T, svg string, s *story.Story) {
	t.Helper()
	// Each label is drawn as a white box then its text.
	re := regexp.MustCompile(`<rect x="([0-9.]+)" y="([0-9.]+)" width="([0-9.]+)" height="13" fill="white" opacity="0.85"/>\n<text [^>]*>([^<]*)</text>`)
	type box struct {
		x, y, w float64
		text    string
	}
	var boxes []box
	for _, m := range re.FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		y, _ := strconv.ParseFloat(m[2], 64)
		w, _ := strconv.ParseFloat(m[3], 64)
		boxes = append(boxes, box{x, y, w, m[4]})
	}
	if len(boxes) < len(s.Events) {
		t.Fatalf("%d label boxes for %d events", len(boxes), len(s.Events))
	}
	for i := range boxes {
		for j := i + 1; j < len(boxes); j++ {
			a, b := boxes[i], boxes[j]
			if a.y == b.y && a.x < b.x+b.w && b.x < a.x+a.w {
				t.Errorf("labels overlap: %q and %q", a.text, b.text)
			}
		}
	}
	// The numbers follow time: the event listed n-th happened no earlier
	// than the (n-1)-th, and the circled numbers appear in the list in order.
	list := regexp.MustCompile(`xml:space="preserve">([①-⑩]|\(\d+\)) +([^ ]+) `).FindAllStringSubmatch(svg, -1)
	var prev time.Duration
	for n, m := range list {
		if want := stepNumber(n + 1); m[1] != want {
			t.Errorf("list line %d is numbered %s", n+1, m[1])
		}
		at, err := time.ParseDuration(m[2])
		if err != nil {
			t.Fatal(err)
		}
		if at < prev {
			t.Errorf("%s at %v is listed after a later step (%v)", m[1], at, prev)
		}
		prev = at
	}
	if len(list) != len(s.Events) {
		t.Errorf("%d listed steps for %d events", len(list), len(s.Events))
	}
}

func TestRealScaleSentences(t *testing.T) {
	p, err := plan.Parse("seed 1\nat 0s create object=0\nat 2ms delete object=0\nlag process=op kind=/v1/ConfigMap min=0s max=7ms\ncrash process=op write=1\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range p.Faults {
		if s := story.RealScale(f); !strings.HasPrefix(s, "At real scale: ") {
			t.Errorf("%s: %q", f.String(), s)
		}
	}
	if s := story.WorkloadScale(p); !strings.Contains(s, "came 2ms apart") {
		t.Errorf("workload: %q", s)
	}
	// A restart onto a view at a past resourceVersion is as far behind as
	// that revision, not Age: Age is how long the view stays behind.
	p, err = plan.Parse("seed 1\nstale process=op kind=/v1/ConfigMap at=1s age=2ms rev=8\nstale process=op kind=/v1/ConfigMap at=1s age=2ms\n")
	if err != nil {
		t.Fatal(err)
	}
	if s := story.RealScale(p.Faults[0]); !strings.Contains(s, "listed the past, resourceVersion 8") || strings.Contains(s, "2ms behind") {
		t.Errorf("stale with rev: %q", s)
	}
	if s := story.RealScale(p.Faults[1]); !strings.Contains(s, "2ms behind") {
		t.Errorf("stale by age: %q", s)
	}
}

// A verdict that names an object of generated name by its canonical form
// ("ConfigMap default/nightly-*2", the second live one of its prefix) names
// the objects of that prefix: their writes are steps and they get lanes.
func TestAGeneratedNameInAVerdictNamesItsObjects(t *testing.T) {
	in := leftBehind("seed 1\n")
	gen := func(name string, rv uint64, at time.Duration) apiserver.Event {
		ev := obj(watch.Added, cmKind, name, rv, at, "g"+name, "u1")
		ev.Object.SetGenerateName("nightly-")
		return ev
	}
	in.Log = append(in.Log, gen("nightly-abcde", 10, 5*time.Millisecond), gen("nightly-fghij", 11, 6*time.Millisecond))
	in.Steps = append(in.Steps[:len(in.Steps)-1],
		trace.Step{At: 6 * time.Millisecond, Process: "shop", Controller: "widget", Worker: 1, Reconcile: 3, Op: "create", Object: "ConfigMap default/nightly-fghij", RVWritten: 11, Result: "ok"},
		in.Steps[len(in.Steps)-1])
	in.Verdicts = []check.Verdict{{Property: "converges", At: time.Minute, Detail: "ConfigMap default/nightly-*2 exists after this run, not after the fault-free run of the same workload"}}
	s := story.Build(in)
	var lanes, labels []string
	for _, l := range s.Lanes {
		lanes = append(lanes, l.ID)
	}
	for _, e := range s.Events {
		labels = append(labels, e.Label)
	}
	if !slices.Contains(lanes, "object:ConfigMap default/nightly-fghij") || !slices.Contains(labels, "widget creates ConfigMap default/nightly-fghij (r3)") {
		t.Errorf("the generated name's objects: lanes %q, events %q", lanes, labels)
	}
}

// A verdict that names no object and no side effect ("failing reconcile 2
// of default/w ...") is told by the reconciles it names and the workload's
// steps, and drawn at the reconcile.
func TestAVerdictNamingAReconcileIsToldByIt(t *testing.T) {
	in := leftBehind("seed 1\nat 2ms delete object=Secret/default/w\n")
	in.Verdicts = []check.Verdict{{Property: "settled-backoff", At: time.Minute, Detail: "failing reconcile 2 of default/w started with 3 backoff firings due"}}
	s := story.Build(in)
	var labels []string
	for _, e := range s.Events {
		labels = append(labels, e.Label)
	}
	if !slices.Equal(labels, []string{"user: delete object=Secret/default/w", "reconcile 2 of default/w (the verdict's)"}) {
		t.Errorf("events %q", labels)
	}
	if v := s.Verdicts[0]; v.Event != 1 || v.At != 4*time.Millisecond {
		t.Errorf("the verdict is not drawn at the reconcile it names: %+v", v)
	}
	if len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "the workload and the default timing alone") {
		t.Errorf("notes %q", s.Notes)
	}
}

// stepNumber is how the picture numbers its n-th step: ① to ⑩, then (11).
func stepNumber(n int) string {
	if n <= 10 {
		return string(rune('①' + n - 1))
	}
	return fmt.Sprintf("(%d)", n)
}
