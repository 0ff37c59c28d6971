package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/cmd/ctrlsim/internal/bench"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

func ctrlsim(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return out.String(), errb.String(), code
}

func runJSON(t *testing.T, args ...string) runOutput {
	t.Helper()
	out, errs, code := ctrlsim(t, append([]string{"run", "--json", "--checks", "30", "--entry", "canary/*"}, args...)...)
	if code != 0 {
		t.Fatalf("run %v: exit %d: %s", args, code, errs)
	}
	var r runOutput
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("run --json is not JSON: %v\n%s", err, out)
	}
	return r
}

func TestRunJSONHasTheContractFields(t *testing.T) {
	out, _, code := ctrlsim(t, "run", "--json", "--checks", "30", "--entry", "canary/*")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var generic map[string]any
	if err := json.Unmarshal([]byte(out), &generic); err != nil {
		t.Fatal(err)
	}
	results := generic["results"].([]any)
	for _, field := range []string{"entry", "variant", "expect", "outcome", "checks", "checks_to_first_failure",
		"violated", "minimal_plan", "replay", "trace_hash", "wall_ms"} {
		if _, ok := results[0].(map[string]any)[field]; !ok {
			t.Errorf("run --json result lacks %q", field)
		}
	}
	header := generic["header"].(map[string]any)
	for _, field := range []string{"entries", "variant", "checks", "seed", "shard", "shards", "pairs", "all_pairs"} {
		if _, ok := header[field]; !ok {
			t.Errorf("run --json header lacks %q", field)
		}
	}
	summary := generic["summary"].(map[string]any)
	for _, field := range []string{"results", "as_expected", "unexpected"} {
		if _, ok := summary[field]; !ok {
			t.Errorf("run --json summary lacks %q", field)
		}
	}
}

// Shards are disjoint and together equal the unsharded run.
func TestShardsPartitionTheRun(t *testing.T) {
	key := func(r runResult) string { return r.Entry + "/" + r.Variant + "/" + r.Outcome + "/" + r.MinimalPlan }
	all := map[string]bool{}
	for _, r := range runJSON(t).Results {
		all[key(r)] = true
	}
	union := map[string]bool{}
	for _, shard := range []string{"1/2", "2/2"} {
		for _, r := range runJSON(t, "--shard", shard).Results {
			if union[key(r)] {
				t.Errorf("shards overlap on %s", key(r))
			}
			union[key(r)] = true
		}
	}
	if len(union) != len(all) {
		t.Errorf("shards cover %d results, the unsharded run %d", len(union), len(all))
	}
	for k := range all {
		if !union[k] {
			t.Errorf("shards miss %s", k)
		}
	}
}

// A caught result's replay command reproduces the violation, with the same hash
// every time.
func TestReplayReproducesACaughtPlan(t *testing.T) {
	r := runJSON(t, "--variant", "buggy")
	if r.Results[0].Outcome != "caught" || !strings.Contains(r.Results[0].Replay, "ctrlsim replay --entry canary/stale-cache --variant buggy --plan-text $'") {
		t.Fatalf("a caught result carries a replay command: %+v", r.Results[0])
	}
	file := filepath.Join(t.TempDir(), "plan.txt")
	if err := os.WriteFile(file, []byte(r.Results[0].MinimalPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	var hashes []string
	for range 2 {
		out, errs, code := ctrlsim(t, "replay", "--entry", "canary/stale-cache", "--variant", "buggy", "--plan", file, "--json")
		if code != 0 {
			t.Fatalf("replay exit %d: %s", code, errs)
		}
		var rep struct {
			TraceHash string            `json:"trace_hash"`
			Verdicts  map[string]string `json:"verdicts"`
			Steps     int               `json:"steps"`
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatal(err)
		}
		if rep.Verdicts["at-most-once"] != "violated" || rep.Steps == 0 {
			t.Errorf("replay of the minimal plan: %+v", rep)
		}
		hashes = append(hashes, rep.TraceHash)
	}
	if hashes[0] != hashes[1] {
		t.Errorf("replays differ: %v", hashes)
	}
	out, _, _ := ctrlsim(t, "replay", "--entry", "canary/stale-cache", "--variant", "buggy", "--plan", file, "--timeline")
	for _, want := range []string{"timeline:", "cached-list Secret", "at-most-once: violated", "trace hash"} {
		if !strings.Contains(out, want) {
			t.Errorf("replay --timeline lacks %q:\n%s", want, out)
		}
	}
}

// Bad input exits 2 with one line naming the problem, never a panic.
func TestBadInputExitsTwoWithOneLine(t *testing.T) {
	planFile := filepath.Join(t.TempDir(), "bad.txt")
	os.WriteFile(planFile, []byte("seed 1\nwobble\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"frobnicate"}, `unknown command "frobnicate"`},
		{[]string{"run", "--entry", "nope/*"}, `--entry "nope/*" matches no entry`},
		{[]string{"run", "--variant", "sideways"}, `unknown variant "sideways"`},
		{[]string{"run", "--checks", "-3"}, "bad --checks -3"},
		{[]string{"run", "--shard", "3/2"}, `bad --shard "3/2"`},
		{[]string{"run", "--shard", "x"}, `bad --shard "x"`},
		{[]string{"run", "--bogus"}, "flag provided but not defined: -bogus"},
		{[]string{"replay", "--entry", "nope", "--variant", "buggy", "--plan-text", "seed 1"}, `unknown entry "nope"`},
		{[]string{"replay", "--entry", "canary/stale-cache", "--variant", "buggy"}, "a plan is required"},
		{[]string{"replay", "--entry", "canary/stale-cache", "--variant", "buggy", "--plan", "/does/not/exist"}, "cannot read plan"},
		{[]string{"replay", "--entry", "canary/stale-cache", "--variant", "buggy", "--plan", planFile}, `plan line 2: unknown line kind "wobble"`},
		{[]string{"replay", "--entry", "canary/stale-cache", "--variant", "buggy", "--plan-text", "seed 1\ncrash process=ghost call=1"}, `unknown process "ghost"`},
		// Input that used to hang or run silently wrong: bounded, or refused.
		{replayCE("seed 1\nworkers process=operator-controller controller=clusterextension n=100000"), "workers: n must be from 1 to 64, got 100000"},
		{[]string{"replay", "--entry", "helm/interrupted-upgrade", "--variant", "fixed", "--plan", "/dev/zero"}, "the plan is larger than 1048576 bytes"},
		{replayCE("seed 1\nat 1s publish nme=v2"), "action publish takes version=, not nme="},
		{replayCE("seed 1\nat 25h publish version=v2"), `bad time "25h" (want a duration from 0 to 24h0m0s)`},
		{replayCE("seed 1\nlag process=operator-controller kind=* min=0s max=1000h"), "bad max \"1000h\": want a duration from 0 to 24h0m0s"},
		{replayCE("seed 1\ncrash process=operator-controller call=99999999999"), "bad call \"99999999999\""},
		{replayCE("seed 1\n" + strings.Repeat("at 1s publish version=v2\n", plan.MaxEntries+1)), "1001 steps and faults: at most 1000"},
		{replayCE("seed 1\nat 1s publish version=" + strings.Repeat("x", plan.MaxLineBytes)), "a line is longer than 65536 bytes"},
	} {
		start := time.Now()
		out, errs, code := ctrlsim(t, tc.args...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("ctrlsim %v: exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", short(tc.args), code, errs, out, tc.want)
		}
		// Refused before anything runs: a plan that ran (or hung) takes
		// minutes; the bound is far above a refusal on a loaded machine
		// (one second failed at a load of 40 on 2 cores).
		if d := time.Since(start); d > 30*time.Second {
			t.Errorf("ctrlsim %v took %v to refuse bad input: want it refused before any plan runs", short(tc.args), d)
		}
	}
}

// replayCE replays plan text on helm/interrupted-upgrade-new-version (the
// clusterextension world with a publish step, which takes version=).
func replayCE(text string) []string {
	return []string{"replay", "--entry", "helm/interrupted-upgrade-new-version", "--variant", "fixed", "--plan-text", text}
}

// short keeps long generated arguments out of failure messages.
func short(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if len(a) > 120 {
			a = a[:120] + "..."
		}
		out[i] = a
	}
	return out
}

func TestList(t *testing.T) {
	out, _, code := ctrlsim(t, "list")
	if code != 0 || !strings.Contains(out, "canary/stale-cache") {
		t.Errorf("list: exit %d\n%s", code, out)
	}
	out, _, _ = ctrlsim(t, "list", "--json")
	var entries []listedEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil || entries[0].Expect["buggy"] != "caught" {
		t.Errorf("list --json: %v %+v", err, entries)
	}
}

// reports/bench.md shows each envtest comparison with its timing, and says when
// envtest was not measured.
func TestBenchReportShowsTheEnvtestComparisons(t *testing.T) {
	catalogue, noWait := 141198.0, 62.8
	f := &bench.Figures{SpeedupVsEnvtest: &catalogue, SpeedupVsEnvtestNoWait: &noWait, Envtest: []bench.EnvtestComparison{
		{Name: "catalogue", Timing: "Promote call 2s, promotion lag 2m0s", EnvtestSeconds: 240.4, EnvtestRounds: 1, SimulatorSeconds: 0.0017, SimulatorRounds: 21, Speedup: catalogue},
	}}
	md := string(markdown(f))
	for _, want := range []string{"| speedup_vs_envtest ", " 141198x", "| speedup_vs_envtest_no_wait ", " 63x", "| catalogue | Promote call 2s, promotion lag 2m0s | 240.400 (1) | 0.00170 (21) | 141198x |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	md = string(markdown(&bench.Figures{}))
	if !strings.Contains(md, "not measured (--no-envtest)") {
		t.Errorf("a run without envtest does not say so:\n%s", md)
	}
	md = string(markdown(&bench.Figures{EnvtestNote: "not measured: envtest assets missing"}))
	if !strings.Contains(md, "not measured: envtest assets missing") {
		t.Errorf("a run without assets does not say so:\n%s", md)
	}
}

// reports/bench.md shows operatortest's figures (plans per second with one
// worker and with every core, each bug's times) on the machine it names,
// and says why when they were not measured.
func TestBenchReportShowsOperatortestOnANamedMachine(t *testing.T) {
	f := &bench.Figures{Machine: "host h: AMD EPYC, linux/amd64, 2 CPUs", Operatortest: &bench.Operatortest{Workers: 2,
		Throughput: []bench.Throughput{{Operator: "twowrites (correct)", Plans: 300, OneCore: 80, AllCores: 150}},
		Bugs: []bench.BugCatch{{Bug: "twowrites", Seeds: 5, MaxPlans: 300, CaughtFromAll: true, MedianPlans: 12,
			OneWorker: bench.Times{ToFirstFailure: 0.5, ToMinimalPlan: 1.25}, AllWorkers: bench.Times{ToFirstFailure: 0.75, ToMinimalPlan: 1.5},
			ShrinkOverFind: 1.5, ShrinkCandidates: 61, ShrinkRuns: 18}}}}
	md := string(markdown(f))
	for _, want := range []string{"on host h: AMD EPYC, linux/amd64, 2 CPUs;", "## operatortest", "| twowrites (correct) | 300 | 80.0 | 150.0 | 1.88x |",
		"| twowrites | 300 | 12 | 0.50 s | 1.25 s | 0.75 s | 1.50 s | 1.5 | 61 | 18 | true |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	md = string(markdown(&bench.Figures{OperatortestNote: "not measured (--no-operatortest)"}))
	if !strings.Contains(md, "## operatortest\n\nnot measured (--no-operatortest).") {
		t.Errorf("a run without operatortest figures does not say so:\n%s", md)
	}
}

// reports/bench.md shows a same-run ratio against envtest on the same
// operator and workload, or why there is none.
func TestBenchReportShowsOperatortestAgainstEnvtestOnTheSameOperator(t *testing.T) {
	f := &bench.Figures{Operatortest: &bench.Operatortest{Workers: 2,
		Envtest: &bench.EnvtestRatio{Operator: "twowrites (fixed)", Rounds: 5, Envtest: 0.24, Operatortest: 0.02, Ratio: 12}}}
	md := string(markdown(f))
	for _, want := range []string{"### Against envtest, the same operator and workload", "5 rounds on each side",
		"| twowrites (fixed) | 0.240 | 0.0200 | 12x |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
	md = string(markdown(&bench.Figures{Operatortest: &bench.Operatortest{Workers: 2, EnvtestNote: "not measured: envtest assets missing"}}))
	if !strings.Contains(md, "### Against envtest, the same operator and workload\n\nnot measured: envtest assets missing.") {
		t.Errorf("a run without the envtest ratio does not say so:\n%s", md)
	}
}

// reports/bench.md sets operatortest's figures beside the speed targets,
// met or not, and shows where the profiled explorations' CPU time went, by
// phase and part.
func TestBenchReportShowsTheTargetsAndWhereTheTimeGoes(t *testing.T) {
	f := &bench.Figures{Operatortest: &bench.Operatortest{Workers: 2,
		Throughput: []bench.Throughput{{Operator: "twowrites (correct)", Plans: 300, OneCore: 80, AllCores: 150, Goal: 500},
			{Operator: "cronjob (correct)", Plans: 30, OneCore: 10, AllCores: 21, Goal: 20}},
		Bugs: []bench.BugCatch{{Bug: "cronjob", Seeds: 5, MaxPlans: 300, CaughtFromAll: true, MedianPlans: 58,
			OneWorker: bench.Times{ToFirstFailure: 13, ToMinimalPlan: 47}, AllWorkers: bench.Times{ToFirstFailure: 8, ToMinimalPlan: 44},
			ShrinkOverFind: 1.8}},
		Profiles: []bench.Profile{{Exploration: "cronjob bug, explorer seed 1, 1 worker", Seconds: 10, Phases: []bench.Phase{
			{Name: "shrink", Seconds: 6, Parts: []bench.Share{{Part: bench.PartScheduler, Seconds: 4}, {Part: bench.PartOther, Seconds: 2}}},
			{Name: "find", Seconds: 4, Parts: []bench.Share{{Part: bench.PartScheduler, Seconds: 1}, {Part: bench.PartGC, Seconds: 3}}}}}}}}
	md := string(markdown(f))
	for _, want := range []string{"### Against the targets",
		"| twowrites (correct) explored, plans/s on 2 workers | >= 500 | 150.0 | no |",
		"| cronjob (correct) explored, plans/s on 2 workers | >= 20 | 21.0 | yes |",
		"| cronjob bug caught and shrunk | < 10 s | 44.00 s | no |",
		"| cronjob bug's shrink / find | <= 2 | 1.8 | yes |",
		"### Where the CPU time goes", "cronjob bug, explorer seed 1, 1 worker: 10.0 CPU seconds.",
		"| part | shrink | find | all |",
		"| " + bench.PartScheduler + " | 4.00 s (40%) | 1.00 s (10%) | 5.00 s (50%) |",
		"| " + bench.PartGC + " | - | 3.00 s (30%) | 3.00 s (30%) |",
		"| all | 6.00 s (60%) | 4.00 s (40%) | 10.00 s (100%) |",
		"Largest parts: " + bench.PartScheduler + " (50%); " + bench.PartGC + " (30%); " + bench.PartOther + " (20%)."} {
		if !strings.Contains(md, want) {
			t.Errorf("the report lacks %q:\n%s", want, md)
		}
	}
}
