package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/failure"
	"github.com/ctrlsim/ctrlsim/operatortest/reference"
	"github.com/ctrlsim/ctrlsim/operatortest/workers"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// Distinct findings shrink in parallel. With KeepGoing and worker processes,
// the workers judge every place of the random pass first (package workers): the
// distinct signatures, and the first place that shows each, are then known.
// Shrinking one is what a sequential pass does once it reaches that place:
// with the signatures found at earlier places seen, the place's plan is
// judged, its first signature not seen is the target, and rapid shrinks
// within it. So each is shrunk in a process of its own (the test binary run
// again up to its exploration, as a worker is), as many at once as there are
// workers, and this process takes each minimal plan and judges it again for
// its report. The findings are the sequential ones (the same places, minimal
// plans and trace hashes: TestParallelKeepGoingGivesTheSequentialFindings);
// where anything stops a job (a place the world could not run, a process that
// died) the sequential passes do the work instead, and say so.

// shrinkEnv marks a shrinking process: its job as JSON.
const shrinkEnv = "CTRLSIM_SHRINK_JOB"

// ShrunkInParallel counts the findings shrunk in processes of their own (a
// test's witness).
var ShrunkInParallel int

// shrinkJob is one distinct signature to shrink: the first place that shows
// it, and the signatures found before it (at earlier places, or earlier in
// that place's list).
type shrinkJob struct {
	Test   string   `json:"test"`
	Place  int      `json:"place"`
	Target string   `json:"target"`
	Seen   []string `json:"seen"`
	Swept  int      `json:"swept"` // the places the sweep's plans take (sweep.go)
}

// shrunk is what a shrinking process sends back.
type shrunk struct {
	Minimal    string        `json:"minimal"`
	Signature  string        `json:"signature"`
	Place      int           `json:"place"`
	TimeToFind time.Duration `json:"timeToFind"`
	ShrinkTime time.Duration `json:"shrinkTime"`
	Candidates int           `json:"candidates"`
	Runs       int           `json:"runs"`
	Bounded    bool          `json:"bounded,omitempty"`
	Cut        bool          `json:"cut,omitempty"`
	Err        string        `json:"err,omitempty"`
}

// shrinkJobs are the distinct signatures the workers' verdicts show that
// seen lacks, in the order the sequential passes would find them, at most
// limit; nil when a place could not be judged (the sequential pass meets it
// and says so).
func shrinkJobs(w *world.World, t *testing.T, pre *workers.Verdicts, seen map[string]bool, limit int) []shrinkJob {
	found := map[string]bool{}
	for sig := range seen { // lint:order-independent a set
		found[sig] = true
	}
	var jobs []shrinkJob
	for k := 1; k <= randomBudget(w) && len(jobs) < limit; k++ {
		if !pre.Judged[k] {
			return nil
		}
		sigs, ok := pre.Sigs[k]
		if !ok {
			return nil // the world could not run it
		}
		for _, sig := range sigs {
			if found[sig] || len(jobs) == limit {
				continue
			}
			before := make([]string, 0, len(found))
			for s := range found { // lint:order-independent sorted below
				before = append(before, s)
			}
			slices.Sort(before)
			jobs = append(jobs, shrinkJob{Test: t.Name(), Place: k, Target: sig, Seen: before, Swept: explorationOf(w).swept})
			found[sig] = true
		}
	}
	return jobs
}

// shrinkInParallel runs jobs in up to n processes at once and returns their
// findings in the jobs' order (places of the random pass); the error names
// the jobs that gave none, whose signatures the passes look for again.
func shrinkInParallel(w *world.World, t *testing.T, jobs []shrinkJob, n int) ([]Finding, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	results := make([]shrunk, len(jobs))
	errs := make([]error, len(jobs))
	slots := make(chan struct{}, n)
	var wg sync.WaitGroup
	start := time.Now()
	for i, job := range jobs {
		wg.Add(1)
		slots <- struct{}{}
		go func() {
			defer func() { <-slots; wg.Done() }()
			results[i], errs[i] = runShrinkJob(self, job)
		}()
	}
	wg.Wait()
	var out []Finding
	for i, s := range results { // a job that failed leaves its signature unseen: the passes look for it again
		if errs[i] != nil {
			continue
		}
		p, err := plan.Parse(s.Minimal)
		if err != nil {
			errs[i] = fmt.Errorf("the minimal plan of %s from its shrinking process: %v", jobs[i].Target, err)
			continue
		}
		// Its whole verdicts and trace, for the report: the same run.
		r, err := reference.Run(w, t, p)
		if err != nil {
			return nil, err
		}
		vs := r.Violated()
		if pick(signatures(w, vs), nil, s.Signature) == "" {
			errs[i] = fmt.Errorf("the minimal plan of %s, judged again here, does not show it: a run that is not a function of its plan\n%s", s.Signature, p)
			continue
		}
		var also []string // the exploration keeps those it has not seen (run.go)
		for _, sig := range signatures(w, vs) {
			if sig != s.Signature {
				also = append(also, sig)
			}
		}
		out = append(out, Finding{By: byRandom, Signature: s.Signature, Also: also, Minimal: p, Violations: vs, Hash: r.Hash, steps: r.Steps, explored: r,
			FirstFailure: s.Place, TimeToFind: s.TimeToFind, ShrinkTime: s.ShrinkTime, ShrinkCandidates: s.Candidates, ShrinkRuns: s.Runs, ShrinkBounded: s.Bounded, ShrinkCut: s.Cut})
	}
	t.Logf("operatortest: %d signatures the workers saw shrunk in %d processes at once in %s (one finding for each root cause follows)", len(jobs), min(n, len(jobs)), time.Since(start).Round(time.Millisecond))
	ShrunkInParallel += len(jobs)
	return out, errors.Join(errs...)
}

// runShrinkJob runs one job in a process of its own and reads its result.
func runShrinkJob(self string, job shrinkJob) (shrunk, error) {
	b, err := json.Marshal(job)
	if err != nil {
		return shrunk{}, err
	}
	var s shrunk
	if err := workers.RunJob(self, workers.Args(failure.RunPattern(job.Test)), shrinkEnv+"="+string(b), "the process shrinking "+job.Target, &s); err != nil {
		return shrunk{}, err
	}
	if s.Err != "" {
		return shrunk{}, fmt.Errorf("the process shrinking %s: %s", job.Target, s.Err)
	}
	return s, nil
}

// shrinkRole is this process's shrinking job, if it is one and t runs its
// exploration.
func shrinkRole(t *testing.T, call int) *shrinkJob {
	v, ok := workers.JobOf(call, shrinkEnv)
	if !ok {
		return nil
	}
	var job shrinkJob
	if json.Unmarshal([]byte(v), &job) != nil || job.Test != t.Name() {
		return nil
	}
	return &job
}

// shrinkAlone does job in this process (a shrinking process), sends its
// result and exits.
func shrinkAlone(w *world.World, t *testing.T, job shrinkJob) {
	workers.SendResult("the process shrinking "+job.Target, shrinkOne(w, t, job))
}

// shrinkOne is the sequential pass that reaches job's place, with the
// places before it taken as judged and holding.
func shrinkOne(w *world.World, t *testing.T, job shrinkJob) shrunk {
	if err := Preflight(w, t); err != nil {
		return shrunk{Err: "preflight: " + err.Error()}
	}
	seen := map[string]bool{}
	for _, s := range job.Seen {
		seen[s] = true
	}
	pre := &workers.Verdicts{Sigs: map[int][]string{}, Judged: map[int]bool{}}
	for k := 1; k < job.Place; k++ {
		pre.Judged[k], pre.Sigs[k] = true, nil
	}
	explorationOf(w).swept = job.Swept // the places the parent's sweep took
	f, _, err := pass(w, t, generator(w, t), seen, map[string][]string{}, pre, nil)
	switch {
	case err != nil:
		return shrunk{Err: err.Error()}
	case f == nil || f.Signature != job.Target || f.FirstFailure != job.Place:
		return shrunk{Err: fmt.Sprintf("place %d did not show %s first (found %v)", job.Place, job.Target, f)}
	}
	return shrunk{Minimal: f.Minimal.String(), Signature: f.Signature, Place: f.FirstFailure, TimeToFind: f.TimeToFind,
		ShrinkTime: f.ShrinkTime, Candidates: f.ShrinkCandidates, Runs: f.ShrinkRuns, Bounded: f.ShrinkBounded, Cut: f.ShrinkCut}
}
