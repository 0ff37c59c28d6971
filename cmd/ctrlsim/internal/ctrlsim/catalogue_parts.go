package main

// The catalogue in parts: with --jobs N above 1, `ctrlsim catalogue` writes
// each entry's folder in a process of its own (the command run again, told
// its part by cataloguePartEnv), at most N at once, and then the index from
// all their results. An exploration runs on one core (its plans judged one
// after another in one world), so on N cores N entries take the time of
// one; each entry's files are its own and nothing written depends on which
// process wrote it: the pages are the same whatever N.

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// cataloguePartEnv holds a part's orders (cataloguePart, as JSON) in the
// environment of a process writing one entry.
const cataloguePartEnv = "CTRLSIM_CATALOGUE_PART"

// cataloguePart is one entry's part of a catalogue written in parts.
type cataloguePart struct {
	Entry   string `json:"entry"`
	Dir     string `json:"dir"`     // where its folder is written
	Results string `json:"results"` // the file its results are written to (partResult, JSON)
	Checks  int    `json:"checks"`
	Seed    uint64 `json:"seed"`
	Lines   int    `json:"lines"` // ReportOptions.TimelineLines
	After   int    `json:"after"` // the pairs of the entries before it (progress numbering)
	Total   int    `json:"total"` // the pairs of the whole catalogue
	Start   int64  `json:"start"` // when the catalogue started (Unix nanoseconds): the time so far
}

// partResult is a catalogue.Result as a part hands it over.
type partResult struct {
	Variant    string   `json:"variant"`
	Expect     string   `json:"expect"`
	Outcome    string   `json:"outcome"`
	Checks     int      `json:"checks"`
	First      int      `json:"first"`
	Violated   []string `json:"violated"`
	Minimal    string   `json:"minimal,omitempty"`
	Reproduced bool     `json:"reproduced"`
}

// partCommand is the command a part runs as, with its environment: this
// program (a test replaces it by its own binary run as the command).
var partCommand = func() (string, []string, error) {
	self, err := os.Executable()
	return self, os.Environ(), err
}

// writeInParts writes entries' folders into dir, each in a process of its
// own, jobs at once, then the index; it returns the results in the
// entries' order.
func writeInParts(dir string, entries []*catalogue.Entry, opts catalogue.ReportOptions, jobs int, stderr io.Writer) ([]catalogue.Result, error) {
	self, env, err := partCommand()
	if err != nil {
		return nil, err
	}
	if _, ok := stderr.(*os.File); !ok {
		// The parts' stderr is copied in by a goroutine of each (os/exec):
		// one write at a time.
		stderr = &lockedWriter{w: stderr}
	}
	total := pairs(entries)
	files, err := os.MkdirTemp("", "ctrlsim-catalogue-parts-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(files)
	start := time.Now()
	errs := make([]error, len(entries))
	slots := make(chan struct{}, jobs)
	var wg sync.WaitGroup
	after := 0
	for i, e := range entries {
		part := cataloguePart{Entry: e.ID, Dir: dir, Results: filepath.Join(files, fmt.Sprintf("%d.json", i)),
			Checks: opts.Checks, Seed: opts.Seed, Lines: opts.TimelineLines, After: after, Total: total, Start: start.UnixNano()}
		after += len(e.Variants())
		orders, err := json.Marshal(part)
		if err != nil {
			return nil, err
		}
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			cmd := exec.Command(self, "catalogue")
			cmd.Env = partEnv(env, orders)
			cmd.Stderr = stderr
			if out, err := cmd.Output(); err != nil {
				errs[i] = fmt.Errorf("the process writing %s: %v%s", part.Entry, err, out)
			}
		}()
	}
	wg.Wait()
	var all []catalogue.Result
	for i, e := range entries {
		if errs[i] != nil {
			return nil, errs[i]
		}
		rs, err := readPart(filepath.Join(files, fmt.Sprintf("%d.json", i)), e.ID)
		if err != nil {
			return nil, err
		}
		all = append(all, rs...)
	}
	return all, catalogue.WriteIndex(dir, entries, all, opts)
}

// partEnv is env with a part's orders: a slice of its own, whatever room
// env has (appended to env in place, the parts running at once could be
// handed one array, and so the orders of whichever wrote it last).
func partEnv(env []string, orders []byte) []string {
	return append(slices.Clip(env), cataloguePartEnv+"="+string(orders))
}

// writePart writes the entry orders names (cataloguePartEnv) and its results.
func writePart(orders string, stderr io.Writer) error {
	var part cataloguePart
	if err := json.Unmarshal([]byte(orders), &part); err != nil {
		return fmt.Errorf("%s: %v", cataloguePartEnv, err)
	}
	var entry *catalogue.Entry
	for _, e := range scenarios.All() {
		if e.ID == part.Entry {
			entry = e
		}
	}
	if entry == nil {
		return fmt.Errorf("%s: no entry %q", cataloguePartEnv, part.Entry)
	}
	progress := progressFrom(stderr, false, part.Total, part.After, time.Unix(0, part.Start), time.Now)
	rs, err := catalogue.WriteEntry(part.Dir, entry, catalogue.ReportOptions{Checks: part.Checks, Seed: part.Seed, TimelineLines: part.Lines}, progress)
	if err != nil {
		return err
	}
	var out []partResult
	for _, r := range rs {
		p := partResult{Variant: string(r.Variant), Expect: string(r.Expect), Outcome: string(r.Outcome), Checks: r.Checks,
			First: r.ChecksToFirstFailure, Violated: r.Violated, Reproduced: r.Reproduced}
		if r.Minimal != nil {
			p.Minimal = r.Minimal.String()
		}
		out = append(out, p)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	return os.WriteFile(part.Results, b, 0o644)
}

// readPart reads the results a part wrote for entry.
func readPart(file, entry string) ([]catalogue.Result, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("the results of %s: %v", entry, err)
	}
	var ps []partResult
	if err := json.Unmarshal(b, &ps); err != nil {
		return nil, fmt.Errorf("the results of %s: %v", entry, err)
	}
	var out []catalogue.Result
	for _, p := range ps {
		r := catalogue.Result{Entry: entry, Variant: variant.Variant(p.Variant), Expect: catalogue.Outcome(p.Expect), Outcome: catalogue.Outcome(p.Outcome),
			Checks: p.Checks, ChecksToFirstFailure: p.First, Violated: p.Violated, Reproduced: p.Reproduced}
		if p.Minimal != "" {
			m, err := plan.Parse(p.Minimal)
			if err != nil {
				return nil, fmt.Errorf("the results of %s: its minimal plan: %v", entry, err)
			}
			r.Minimal = m
		}
		out = append(out, r)
	}
	return out, nil
}

// lockedWriter is w written by one goroutine at a time.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
