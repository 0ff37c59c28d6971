package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
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
	WallMS               int64    `json:"wall_ms"`
	APIOps               int      `json:"api_ops"`
	Reconciles           int      `json:"reconciles"`
	VirtualSeconds       float64  `json:"virtual_seconds"`
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
// and keeps those of shard i of n (1-based).
func jobs(entry, v string, i, n int) ([]job, error) {
	entries, err := scenarios.Match(entry)
	if err != nil {
		return nil, usagef("%v", err)
	}
	var want variant.Variant
	if v != "" {
		if want, err = variant.Parse(v); err != nil {
			return nil, usagef("%v", err)
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
		return nil, usagef("no entry matching %q has variant %q", entry, v)
	}
	var out []job
	for k, j := range all {
		if k%n == i-1 {
			out = append(out, j)
		}
	}
	return out, nil
}

func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usagef("bad --shard %q: want I/N with 1 <= I <= N", s)
	}
	return i, n, nil
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("run")
	entry := fs.String("entry", "*", "entries to run: a glob over entry IDs ('*' matches across '/')")
	v := fs.String("variant", "", "run only this variant (buggy, fixed or robust)")
	checks := fs.Int("checks", 200, "plans to try per (entry, variant)")
	seed := fs.Uint64("seed", 1, "explorer seed (the same seed explores the same plans)")
	shard := fs.String("shard", "1/1", "run shard I of N of the (entry, variant) pairs")
	jsonOut := fs.Bool("json", false, "print one JSON object")
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
	todo, err := jobs(*entry, *v, i, n)
	if err != nil {
		return err
	}
	progress := !*jsonOut && isTerminal(stderr)
	var results []runResult
	sum := runSummary{}
	for k, j := range todo {
		if progress {
			fmt.Fprintf(stderr, "\r\033[K[%d/%d] %s %s ...", k+1, len(todo), j.e.ID, j.v)
		}
		r := j.e.Explore(j.v, *checks, *seed, time.Now)
		results = append(results, toJSON(r))
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
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Results []runResult `json:"results"`
			Summary runSummary  `json:"summary"`
		}{results, sum}); err != nil {
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

func toJSON(r catalogue.Result) runResult {
	out := runResult{
		Entry: r.Entry, Variant: string(r.Variant), Expect: string(r.Expect), Outcome: string(r.Outcome),
		Checks: r.Checks, ChecksToFirstFailure: r.ChecksToFirstFailure, Violated: r.Violated,
		WallMS: r.Wall.Milliseconds(), APIOps: r.APIOps, Reconciles: r.Reconciles, VirtualSeconds: r.Virtual.Seconds(),
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
