package bench

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Operatortest is what operatortest itself costs: plans per
// second exploring a correct operator with one worker and with every core,
// and for each example bug the time to its first failing plan and to its
// minimal plan (median over explorer seeds), with one worker and with
// every core. It is measured by TestOperatortestFigures in a test binary
// (operatortest needs a *testing.T, and its workers re-run that binary).
type Operatortest struct {
	// Workers is the number of worker processes "all cores" means:
	// GOMAXPROCS of the test binary (the number of CPUs).
	Workers    int          `json:"workers"`
	Throughput []Throughput `json:"throughput"`
	Bugs       []BugCatch   `json:"bugs"`
	// Envtest is the same-run ratio against envtest on one operator and
	// workload; EnvtestNote says why it is nil.
	Envtest     *EnvtestRatio `json:"envtest,omitempty"`
	EnvtestNote string        `json:"envtest_note,omitempty"`
	// Profiles are where the CPU time of two of the explorations above
	// went (profile.go): the small correct operator's throughput with one
	// worker and the CronJob bug's first seed with one worker.
	Profiles []Profile `json:"profiles,omitempty"`
}

// Throughput is one correct operator explored over Plans plans.
type Throughput struct {
	Operator string  `json:"operator"`
	Plans    int     `json:"plans"`
	OneCore  float64 `json:"plans_per_sec_one_worker"`
	AllCores float64 `json:"plans_per_sec_all_workers"`
	// Goal is the speed target for AllCores: 500 plans a second for a
	// small operator, 20 for a CronJob-sized one.
	Goal float64 `json:"goal_plans_per_sec_all_workers"`
	// Targeted is what the sweep covered in the 1-worker run ("crashes
	// after a write 4 of 4, stale pairs 32 of 32"; operatortest.Result's
	// Targeted).
	Targeted string `json:"targeted"`
}

// The speed targets for each example bug, medians over the seeds:
// caught and shrunk within GoalSecondsToMinimal on the machine (its every
// core), the shrink taking at most GoalShrinkOverFind times the search.
const (
	GoalSecondsToMinimal = 10
	GoalShrinkOverFind   = 2
)

// BugCatch is one example bug caught from seeds 1..Seeds, at most MaxPlans
// plans each, with one worker and with every core: the medians of the plans
// to the first failure, of the wall seconds to it, and of the wall seconds
// to the minimal plan (the whole exploration: workers, shrinking); and,
// with one worker, what the shrink cost: the medians of its time over the
// time to find, of the candidates the shrinker tried and of the runs they
// cost (operatortest.Result's ShrinkCandidates and ShrinkRuns).
type BugCatch struct {
	Bug              string  `json:"bug"`
	Seeds            int     `json:"seeds"`
	MaxPlans         int     `json:"max_plans"`
	CaughtFromAll    bool    `json:"caught_from_all_seeds"`
	MedianPlans      float64 `json:"median_plans"`
	OneWorker        Times   `json:"one_worker"`
	AllWorkers       Times   `json:"all_workers"`
	ShrinkOverFind   float64 `json:"shrink_over_find"`
	ShrinkCandidates float64 `json:"shrink_candidates"`
	ShrinkRuns       float64 `json:"shrink_runs"`
	// Targeted is what the sweep covered on seed 1 with one worker until
	// the bug was found (operatortest.Result's Targeted).
	Targeted string `json:"targeted"`
	// Found says, for each seed with one worker, the plan that found the
	// bug and which kind of plan it was ("seed 1: plan 27, a targeted plan
	// (ranked stale pairs)"; operatortest's Finding.By): whether the
	// sweep or the random plans find each bug.
	Found []string `json:"found,omitempty"`
}

// Times are medians over seeds, in wall seconds.
type Times struct {
	ToFirstFailure float64 `json:"to_first_failure"`
	ToMinimalPlan  float64 `json:"to_minimal_plan"`
}

// OperatortestEnv names the file TestOperatortestFigures writes its figures
// to; without it the test skips.
const OperatortestEnv = "CTRLSIM_BENCH_OPERATORTEST"

// MeasureOperatortest runs TestOperatortestFigures of this package with the go
// command (from the module's root, the current directory) and returns its
// figures, or a note saying why they were not measured.
func MeasureOperatortest(progress func(string)) (*Operatortest, string) {
	dir, err := os.MkdirTemp("", "ctrlsim-bench-")
	if err != nil {
		return nil, "not measured: " + err.Error()
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "operatortest.json")
	progress("operatortest (go test ./cmd/ctrlsim/internal/bench -run TestOperatortestFigures)")
	cmd := exec.Command("go", "test", "-count=1", "-timeout=60m", "-run=^TestOperatortestFigures$", "./cmd/ctrlsim/internal/bench/")
	cmd.Env = append(os.Environ(), OperatortestEnv+"="+out)
	log, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Sprintf("not measured: go test ./cmd/ctrlsim/internal/bench -run TestOperatortestFigures: %v: %s", err, lastLines(string(log), 3))
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, "not measured: the test wrote no figures: " + err.Error()
	}
	var f Operatortest
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, "not measured: " + err.Error()
	}
	return &f, ""
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// EnvtestRatio is the same operator and workload timed on envtest and on
// operatortest in one run (the no-wait ratio: neither side waits for
// anything but the operator and the API server): medians of Rounds rounds
// each, interleaved, in wall seconds.
type EnvtestRatio struct {
	Operator     string  `json:"operator"`
	Rounds       int     `json:"rounds"`
	Envtest      float64 `json:"envtest_seconds"`
	Operatortest float64 `json:"operatortest_seconds"`
	Ratio        float64 `json:"ratio"`
}
