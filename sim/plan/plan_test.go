package plan_test

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

var space = plan.Space{
	Processes:   []string{"manager", "ns-reconciler"},
	Kinds:       []string{"/v1/Namespace", "test.ctrlsim.dev/v1/Widget"},
	Controllers: []string{"manager/widget"},
	MaxWrite:    5,                // crash-after-write faults round-trip too
	MaxStale:    30 * time.Second, // and stale restarts
	// and faults aimed at a reference run's instants (0s: a hold aimed there
	// starts at 1ms) and stale restarts at its writes (rev=, kind=)
	Targets: func(*plan.Plan) plan.Targets {
		return plan.Targets{Instants: []time.Duration{0, 5 * time.Second, 2 * time.Minute},
			Writes: []plan.Write{{At: 5 * time.Second, RV: 1, Kind: "/v1/Namespace"}, {At: 5 * time.Second, RV: 40, Kind: "test.ctrlsim.dev/v1/Widget"}, {At: 2 * time.Minute, RV: 41}}}
	},
	Pods:  4, // and workload faults
	Nodes: []string{"node-1", "node-2"},
	APIFaults: []apiserver.Fault{
		{Verb: "patch", Resource: "widgets", Code: 422, Field: "status.progress", Message: "field is \"immutable\" = yes"},
		{Verb: "create", Ambiguous: true, Count: 1},
	},
	Workload: rapid.SliceOfN(rapid.Custom(func(t *rapid.T) plan.Step {
		return plan.Step{
			At:     time.Duration(rapid.IntRange(0, 100).Draw(t, "at")) * time.Second,
			Action: rapid.SampledFrom([]string{"create", "delete", "odd action"}).Draw(t, "action"),
			Args: plan.Args{
				{Key: "name", Value: rapid.StringMatching(`[a-z]{0,3}( x)?`).Draw(t, "name")},
			},
			Script: rapid.Bool().Draw(t, "script"), // an author's step round-trips too
		}
	}), 0, 4),
}

func TestTextFormParsesBackToTheSamePlan(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		p := plan.Generator(space).Draw(t, "plan")
		text := p.String()
		q, err := plan.Parse(text)
		if err != nil {
			t.Fatalf("parse of\n%s\nfailed: %v", text, err)
		}
		if !reflect.DeepEqual(normalize(p), normalize(q)) {
			t.Fatalf("round trip changed the plan:\n%s\n---\n%s", text, q.String())
		}
		if q.String() != text {
			t.Fatalf("text form is not stable")
		}
	})
}

// normalize maps nil and empty slices alike.
func normalize(p *plan.Plan) *plan.Plan {
	q := *p
	if len(q.Steps) == 0 {
		q.Steps = nil
	}
	for i := range q.Steps {
		if len(q.Steps[i].Args) == 0 {
			q.Steps[i].Args = nil
		}
	}
	if len(q.Faults) == 0 {
		q.Faults = nil
	}
	return &q
}

// A scripted step (one the test's author wrote) is marked in the text form by
// a leading "script", and reads back as scripted; an old plan's steps read
// back as drawn ones.
func TestScriptedStepsAreMarkedInTheTextForm(t *testing.T) {
	p, err := plan.Parse("seed 3\nscript at 10s delete kind=/v1/ConfigMap namespace=default name=cfg\nat 12s mutate object=0\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []plan.Step{
		{At: 10 * time.Second, Action: "delete", Args: plan.Args{{Key: "kind", Value: "/v1/ConfigMap"}, {Key: "namespace", Value: "default"}, {Key: "name", Value: "cfg"}}, Script: true},
		{At: 12 * time.Second, Action: "mutate", Args: plan.Args{{Key: "object", Value: "0"}}},
	}
	if !reflect.DeepEqual(p.Steps, want) {
		t.Fatalf("parsed %+v, want %+v", p.Steps, want)
	}
	if got := p.Steps[0].String(); got != "script at 10s delete kind=/v1/ConfigMap namespace=default name=cfg" {
		t.Fatalf("text form %q", got)
	}
	for _, bad := range []string{"seed 1\nscript\n", "seed 1\nscript 10s delete\n", "seed 1\nscript seed 2\n"} {
		if _, err := plan.Parse(bad); err == nil || !strings.Contains(err.Error(), "script at") {
			t.Errorf("Parse(%q) = %v, want an error asking for script at", bad, err)
		}
	}
}

func TestParseExample(t *testing.T) {
	p, err := plan.Parse(`
# a comment
seed 42
at 1s create-pipeline name=p envs=3
lag process=manager kind=/v1/Namespace min=0s max=2s
crash process=manager call=17
api verb=patch resource=kopfexamples code=422 message="bad value" from=0s until=1m0s
workers process=manager controller=pipeline n=2
`)
	if err != nil {
		t.Fatal(err)
	}
	if p.Seed != 42 || len(p.Steps) != 1 || p.Steps[0].Args.Get("envs") != "3" || len(p.Faults) != 4 {
		t.Fatalf("parsed %+v", p)
	}
	if f := p.Faults[2]; f.API.Code != 422 || f.API.Message != "bad value" || f.Until != time.Minute {
		t.Errorf("api fault: %+v", f)
	}
}

// Workload faults name a pod by the order the kubelet model binds it, or a
// node and a time; they need no process.
func TestParseWorkloadFaults(t *testing.T) {
	text := "seed 7\nnotready pod=2\ncrashloop pod=1\npodfail pod=3\nnodelost node=node-2 at=30s\n"
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []plan.Fault{{Kind: plan.NotReady, Pod: 2}, {Kind: plan.CrashLoop, Pod: 1}, {Kind: plan.PodFail, Pod: 3},
		{Kind: plan.NodeLost, Node: "node-2", At: 30 * time.Second}}
	if !reflect.DeepEqual(p.Faults, want) {
		t.Fatalf("parsed %+v, want %+v", p.Faults, want)
	}
	if p.String() != text {
		t.Fatalf("printed\n%s\nwant\n%s", p.String(), text)
	}
	for _, bad := range []struct{ text, want string }{
		{"seed 1\nnotready", "pod must be from 1"},
		{"seed 1\ncrashloop pod=1 process=x", `crashloop takes pod, not "process=x"`},
		{"seed 1\nnodelost at=1s", "nodelost: node is required"},
	} {
		if _, err := plan.Parse(bad.text); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", bad.text, err, bad.want)
		}
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"at 1s x", "no seed line"},
		{"seed x", `plan line 1: bad seed`},
		{"seed 1\nwobble a=b", `plan line 2: unknown line kind "wobble"`},
		{"seed 1\ncrash process=p", "give exactly one of call=N, write=N or at=DURATION"},
		{"seed 1\nlag process=p kind=* min=2s max=1s", "max 1s is below min 2s"},
		{"seed 1\napi verb=get code=418", "code must be one of"},
		{"seed 1\nhold process=p kind=x from=1s until=1s", "until 1s must be after from 1s"},
		{"seed 1\nat -1s x", "bad time"},
		{"seed 1\nat 1s x y", `argument "y" is not key=value`},
		{"seed 1\nlag process=p colour=red", `lag takes process, kind, min, max, not "colour=red"`},
		{`seed 1` + "\n" + `at 1s "unterminated`, "unterminated quote"},
	} {
		_, err := plan.Parse(tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want an error containing %q", tc.text, err, tc.want)
		}
	}
}

func TestSwarmDrawsDifferentFaultMixes(t *testing.T) {
	mixes := map[string]bool{}
	for seed := uint64(0); seed < 50; seed++ {
		p := plan.Generator(space).Example(int(seed))
		var classes []string
		seen := map[plan.FaultKind]bool{}
		for _, f := range p.Faults {
			if !seen[f.Kind] {
				seen[f.Kind] = true
				classes = append(classes, string(f.Kind))
			}
		}
		mixes[strings.Join(classes, ",")] = true
	}
	if len(mixes) < 8 {
		t.Errorf("plans should differ in their fault mix, got %d mixes", len(mixes))
	}
}

// The generator never draws a fault that does nothing: a lag or latency with max
// 0, an empty hold or API window, a workers fault of the default single worker.
func TestGeneratedFaultsAlwaysHaveAnEffect(t *testing.T) {
	sp := plan.Space{
		Processes: []string{"a", "b"}, Kinds: []string{"/v1/ConfigMap"}, Controllers: []string{"a/c"},
		APIFaults: []apiserver.Fault{{Verb: "update", Code: 409}},
	}
	rapid.Check(t, func(t *rapid.T) {
		p := plan.Generator(sp).Draw(t, "plan")
		if err := p.Validate(); err != nil {
			t.Fatalf("a drawn plan is invalid: %v", err)
		}
		for _, f := range p.Faults {
			noop := false
			switch f.Kind {
			case plan.Lag, plan.Latency:
				noop = f.Max <= 0
			case plan.Hold:
				noop = f.Until <= f.From
			case plan.API:
				noop = f.Until != 0 && f.Until <= f.From
			case plan.Workers:
				noop = f.N <= 1
			case plan.Crash:
				noop = f.Call <= 0 && f.At <= 0
			}
			if noop {
				t.Fatalf("drew a fault with no effect: %s", f.String())
			}
		}
	})
}

// With Targets, timed faults are drawn either anywhere or aimed at a target: a
// stale restart or a crash just after it, a hold starting just before it.
func TestTimedFaultsAimAtTheTargets(t *testing.T) {
	sp := plan.Space{Processes: []string{"op"}, Kinds: []string{"/v1/ConfigMap"}, MaxStale: time.Minute,
		Classes: []plan.FaultKind{plan.Stale, plan.Hold, plan.Crash},
		Targets: func(*plan.Plan) plan.Targets { return plan.Targets{Instants: []time.Duration{7 * time.Second}} }}
	aimed := map[plan.FaultKind]int{}
	gen := plan.Generator(sp)
	for i := range 400 { // 400 plans of fixed seeds, whatever -rapid.checks (-short) says
		for _, f := range gen.Example(i).Faults {
			switch {
			case f.Kind == plan.Stale && f.At == 7*time.Second+time.Millisecond,
				f.Kind == plan.Crash && f.At == 7*time.Second+time.Millisecond,
				f.Kind == plan.Hold && f.From == 7*time.Second-time.Millisecond:
				aimed[f.Kind]++
			}
			if f.Kind == plan.Stale && (f.At <= 0 || f.Age <= 0 || f.Rev != 0) {
				t.Fatalf("a stale fault with no effect, or aimed at a write there is none of: %s", f)
			}
		}
	}
	for _, k := range []plan.FaultKind{plan.Stale, plan.Hold, plan.Crash} {
		if aimed[k] == 0 {
			t.Errorf("no %s fault was aimed at the target in 400 plans", k)
		}
	}
}

// With the reference run's writes, a stale restart's lagging watch cache is
// drawn at the state just before or just after one of them (by
// resourceVersion), the restart after it, and the lag scoped to the write's
// kind or to every kind; each of the four shows up.
func TestAStaleRestartAimsItsViewJustBeforeOrAfterAWrite(t *testing.T) {
	writes := []plan.Write{{At: 3 * time.Second, RV: 17, Kind: "test.ctrlsim.dev/v1/Widget"}, {At: 9 * time.Second, RV: 30, Kind: "/v1/Pod"}}
	sp := plan.Space{Processes: []string{"op"}, Kinds: []string{"/v1/ConfigMap"}, MaxStale: time.Minute, Horizon: 30 * time.Second,
		Classes: []plan.FaultKind{plan.Stale},
		Targets: func(*plan.Plan) plan.Targets {
			return plan.Targets{Instants: []time.Duration{3 * time.Second, 9 * time.Second}, Writes: writes}
		}}
	seen := map[string]bool{}
	gen := plan.Generator(sp)
	for i := range 400 { // 400 plans of fixed seeds, whatever -rapid.checks (-short) says
		for _, f := range gen.Example(i).Faults {
			if f.Kind != plan.Stale || f.Rev == 0 {
				continue
			}
			var w *plan.Write
			for i := range writes {
				if f.Rev == writes[i].RV || f.Rev == writes[i].RV-1 {
					w = &writes[i]
				}
			}
			if w == nil {
				t.Fatalf("a stale fault aimed at no write: %s", f)
			}
			if f.At <= w.At {
				t.Fatalf("a stale restart at or before the write it aims at (%v): %s", w.At, f)
			}
			if f.Resource != "" && f.Resource != w.Kind {
				t.Fatalf("a stale fault scoped to %q, not the kind of the write it aims at (%s): %s", f.Resource, w.Kind, f)
			}
			seen[fmt.Sprintf("after=%v scoped=%v", f.Rev == w.RV, f.Resource != "")] = true
		}
	}
	for _, want := range []string{"after=false scoped=false", "after=false scoped=true", "after=true scoped=false", "after=true scoped=true"} {
		if !seen[want] {
			t.Errorf("no stale restart drawn with %s in 400 plans (drew %v)", want, seen)
		}
	}
}

// A stale restart of a process whose cached kinds the reference run showed
// lags only what it caches: aimed at a write of a kind it caches, scoped to
// a kind it caches (a lag of another kind changes nothing it sees); a
// process nothing is known of draws among every kind and write.
func TestAStaleRestartLagsOnlyTheKindsItsProcessCaches(t *testing.T) {
	writes := []plan.Write{{At: 3 * time.Second, RV: 17, Kind: "test.ctrlsim.dev/v1/Widget"}, {At: 9 * time.Second, RV: 30, Kind: "/v1/Pod"}}
	sp := plan.Space{Processes: []string{"op", "other"}, Kinds: []string{"test.ctrlsim.dev/v1/Widget", "/v1/Pod", "/v1/ServiceAccount"},
		MaxStale: time.Minute, Horizon: 30 * time.Second, Classes: []plan.FaultKind{plan.Stale},
		Targets: func(*plan.Plan) plan.Targets {
			return plan.Targets{Instants: []time.Duration{3 * time.Second, 9 * time.Second}, Writes: writes,
				Watched: map[string][]string{"op": {"test.ctrlsim.dev/v1/Widget"}}}
		}}
	scoped := map[string]map[string]bool{"op": {}, "other": {}}
	gen := plan.Generator(sp)
	for i := range 400 { // fixed seeds, whatever -rapid.checks says
		for _, f := range gen.Example(i).Faults {
			if f.Kind != plan.Stale {
				continue
			}
			if f.Process == "op" && (f.Rev == 30 || f.Rev == 29) {
				t.Fatalf("a stale restart of op aimed at a Pod write, a kind op does not cache: %s", f)
			}
			if f.Resource != "" {
				scoped[f.Process][f.Resource] = true
			}
		}
	}
	if want := map[string]bool{"test.ctrlsim.dev/v1/Widget": true}; !reflect.DeepEqual(scoped["op"], want) {
		t.Errorf("op's stale restarts were scoped to %v, want only the kind it caches %v", scoped["op"], want)
	}
	if len(scoped["other"]) != 3 {
		t.Errorf("other (nothing known of its caches) was scoped to %v, want each of the 3 kinds in 400 plans", scoped["other"])
	}
}

// A stale fault's kind scope and resourceVersion round-trip through the text
// form; a plan written before them (no kind=, no rev=) reads back as a lag of
// every kind, Age behind, as it always meant; a malformed kind is refused.
func TestStaleKindAndRevParseAndOldPlansKeepTheirMeaning(t *testing.T) {
	p, err := plan.Parse("seed 3\nstale process=op at=40s age=30s\n")
	if err != nil {
		t.Fatal(err)
	}
	if f := p.Faults[0]; f.Resource != "" || f.Rev != 0 || f.At != 40*time.Second || f.Age != 30*time.Second {
		t.Errorf("an old stale line read as %+v", f)
	}
	if got := p.String(); got != "seed 3\nstale process=op at=40s age=30s\n" {
		t.Errorf("an old stale line prints back as %q", got)
	}
	text := "seed 3\nstale process=op kind=/v1/Pod at=40s age=30s rev=57\n"
	p, err = plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if f := p.Faults[0]; f.Resource != "/v1/Pod" || f.Rev != 57 {
		t.Errorf("a scoped stale line read as %+v", f)
	}
	if got := p.String(); got != text {
		t.Errorf("a scoped stale line prints back as %q, want %q", got, text)
	}
	for _, bad := range []string{"stale process=op kind=Pod at=1s age=1s", "stale process=op at=1s age=1s rev=0", "stale process=op at=1s age=1s rev=x"} {
		if _, err := plan.Parse("seed 1\n" + bad + "\n"); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}
