package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// runResult is one line of `run --json`; the field names are the contract.
type runResult struct {
	Entry                string   `json:"entry"`
	Variant              string   `json:"variant"`
	Expect               string   `json:"expect"`
	Outcome              string   `json:"outcome"`
	Checks               int      `json:"checks"`
	ChecksToFirstFailure int      `json:"checks_to_first_failure"`
	Violated             []string `json:"violated"`
	MinimalPlan          string   `json:"minimal_plan"`
	Replay               string   `json:"replay"`
	// TraceHash is the trace hash of a run of MinimalPlan (what `ctrlsim replay
	// --json` prints for it); "" when nothing was caught.
	TraceHash string `json:"trace_hash"`
	WallMS    int64  `json:"wall_ms"`
}

// runOutput is the output of `run --json` (and of `merge --json`).
type runOutput struct {
	Header  runHeader   `json:"header"`
	Results []runResult `json:"results"`
	Summary runSummary  `json:"summary"`
}

type runSummary struct {
	Results    int `json:"results"`
	AsExpected int `json:"as_expected"`
	Unexpected int `json:"unexpected"`
}

type job struct {
	e *catalogue.Entry
	v variant.Variant
}

// jobs lists the (entry, variant) pairs selected by the flags, in catalogue order,
// and keeps those of shard i of n (1-based): pair k (0-based) is shard k%n+1's. It
// also returns the number of pairs of all shards.
func jobs(entry, v string, i, n int) ([]job, int, error) {
	entries, err := scenarios.Match(entry)
	if err != nil {
		return nil, 0, usagef("%v", err)
	}
	var want variant.Variant
	if v != "" {
		if want, err = variant.Parse(v); err != nil {
			return nil, 0, usagef("%v", err)
		}
	}
	var all []job
	for _, e := range entries {
		for _, x := range e.Variants() {
			if want == "" || x == want {
				all = append(all, job{e, x})
			}
		}
	}
	if len(all) == 0 {
		return nil, 0, usagef("no entry matching %q has variant %q", entry, v)
	}
	var out []job
	for k, j := range all {
		if k%n == i-1 {
			out = append(out, j)
		}
	}
	return out, len(all), nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run")
	entry := fs.String("entry", "*", "entries to run: a glob over entry IDs ('*' matches across '/')")
	v := fs.String("variant", "", "run only this variant (buggy, fixed or robust)")
	checks := fs.Int("checks", catalogue.Checks, "plans to try per (entry, variant)")
	seed := fs.Uint64("seed", catalogue.Seed, "explorer seed (the same seed explores the same plans)")
	shard := fs.String("shard", "1/1", "run shard I of N of the (entry, variant) pairs")
	indexed := fs.Int("shards-of-indexed-job", 0, "run shard JOB_COMPLETION_INDEX+1 of `N` (in a pod of an Indexed Job with N completions)")
	jsonOut := fs.Bool("json", false, "print one JSON object")
	markers := fs.Bool("json-markers", false, "print the JSON between marker lines, for ctrlsim merge to find in a log (implies --json)")
	cpuprofile := fs.String("cpuprofile", "", "write a CPU profile (pprof) of the exploration to this file")
	memprofile := fs.String("memprofile", "", "write an allocation profile (pprof) of the exploration to this file")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err != nil {
			return usagef("cannot write profile: %v", err)
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *memprofile != "" {
		f, err := os.Create(*memprofile)
		if err != nil {
			return usagef("cannot write profile: %v", err)
		}
		defer func() {
			runtime.GC() // the profile shows allocations up to the last collection
			if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
				fmt.Fprintf(stderr, "ctrlsim: writing the allocation profile: %v\n", err)
			}
			f.Close()
		}()
	}
	if *checks < 1 {
		return usagef("bad --checks %d: want at least 1", *checks)
	}
	i, n, err := parseShard(*shard)
	if err != nil {
		return err
	}
	if isSet(fs, "shards-of-indexed-job") {
		if isSet(fs, "shard") {
			return usagef("give --shard or --shards-of-indexed-job, not both")
		}
		if i, err = indexedJobShard(*indexed); err != nil {
			return err
		}
		n = *indexed
	}
	*jsonOut = *jsonOut || *markers
	todo, all, err := jobs(*entry, *v, i, n)
	if err != nil {
		return err
	}
	// Progress goes to stderr: on a terminal one line rewritten in place (not
	// under --json); elsewhere (a CI log, a pod's log) a line as each pair
	// starts and ends, so a long exploration is never silent there.
	tty := isTerminal(stderr)
	progress := !*jsonOut && tty
	if !tty {
		fmt.Fprintf(stderr, "ctrlsim run: exploring %d (entry, variant) pairs, up to %d plans each (seed %d)\n", len(todo), *checks, *seed)
	}
	start := time.Now()
	var results []runResult
	sum := runSummary{}
	for k, j := range todo {
		if progress {
			fmt.Fprintf(stderr, "\r\033[K[%d/%d] %s %s ...", k+1, len(todo), j.e.ID, j.v)
		}
		if !tty {
			fmt.Fprintf(stderr, "ctrlsim run: [%d/%d] %s %s ...\n", k+1, len(todo), j.e.ID, j.v)
		}
		r := j.e.Explore(j.v, *checks, *seed, time.Now)
		if !tty {
			plans := "plans"
			if r.Checks == 1 {
				plans = "plan"
			}
			fmt.Fprintf(stderr, "ctrlsim run: [%d/%d] %s %s: %s (expected %s), %d %s, %.1fs; %s so far\n", k+1, len(todo),
				j.e.ID, j.v, r.Outcome, r.Expect, r.Checks, plans, r.Wall.Seconds(), time.Since(start).Round(time.Second))
		}
		res := toJSON(r)
		if r.Minimal != nil {
			if res.TraceHash, err = traceHash(j.e, j.v, r.Minimal); err != nil {
				return err
			}
		}
		results = append(results, res)
		sum.Results++
		if r.AsExpected() {
			sum.AsExpected++
		} else {
			sum.Unexpected++
		}
	}
	if progress {
		fmt.Fprint(stderr, "\r\033[K")
	}
	if *jsonOut {
		h := runHeader{Entries: *entry, Variant: *v, Checks: *checks, Seed: *seed, Shard: i, Shards: n, Pairs: len(todo), AllPairs: all}
		if err := writeJSON(stdout, runOutput{h, results, sum}, *markers); err != nil {
			return err
		}
	} else {
		printTable(stdout, results, sum)
	}
	if sum.Unexpected > 0 {
		return &exitError{1}
	}
	return nil
}

// writeJSON prints out indented, between the marker lines when markers is set.
func writeJSON(w io.Writer, out runOutput, markers bool) error {
	if out.Results == nil {
		out.Results = []runResult{}
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	if markers {
		b = []byte(jsonBegin + "\n" + string(b) + "\n" + jsonEnd)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// traceHash is the trace hash of a run of p: what `ctrlsim replay --json` prints.
func traceHash(e *catalogue.Entry, v variant.Variant, p *plan.Plan) (string, error) {
	r, err := e.Replay(v, p)
	if err != nil {
		return "", fmt.Errorf("replaying the minimal plan of %s %s: %w", e.ID, v, err)
	}
	defer r.Close()
	return r.Hash, nil
}

// isSet reports whether the flag name was given.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func toJSON(r catalogue.Result) runResult {
	out := runResult{
		Entry: r.Entry, Variant: string(r.Variant), Expect: string(r.Expect), Outcome: string(r.Outcome),
		Checks: r.Checks, ChecksToFirstFailure: r.ChecksToFirstFailure, Violated: r.Violated,
		WallMS: r.Wall.Milliseconds(),
	}
	if out.Violated == nil {
		out.Violated = []string{}
	}
	if r.Minimal != nil {
		out.MinimalPlan = r.Minimal.String()
		out.Replay = ReplayCommand(r.Entry, string(r.Variant), out.MinimalPlan)
	}
	return out
}

// ReplayCommand is the one line that replays a plan exactly.
func ReplayCommand(entry, v, planText string) string {
	quoted := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(planText)
	return fmt.Sprintf("ctrlsim replay --entry %s --variant %s --plan-text $'%s' --timeline", entry, v, quoted)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
