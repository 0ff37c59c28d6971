package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/scenarios"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

func cmdCatalogue(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("catalogue")
	check := fs.Bool("check", false, "do not write: exit 1 and show the differences when reports/ is stale")
	dir := fs.String("dir", "reports", "the catalogue directory")
	checks := fs.Int("checks", catalogue.Checks, "plans per (entry, variant)")
	seed := fs.Uint64("seed", catalogue.Seed, "explorer seed")
	jobs := fs.Int("jobs", runtime.GOMAXPROCS(0), "entries explored at once, each in a process of its own (1: in this process)")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *checks < 1 {
		return usagef("bad --checks %d: want at least 1", *checks)
	}
	if *jobs < 1 {
		return usagef("bad --jobs %d: want at least 1", *jobs)
	}
	if part := os.Getenv(cataloguePartEnv); part != "" {
		return writePart(part, stderr) // a process of another's --jobs
	}
	// The catalogue is always generated afresh into a temporary directory, then
	// either compared with dir (--check) or copied over it, files it no longer
	// generates removed: a regenerated catalogue passes its own check.
	tmp, err := os.MkdirTemp("", "ctrlsim-catalogue-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	target := tmp
	entries := scenarios.All()
	opts := catalogue.ReportOptions{Checks: *checks, Seed: *seed}
	var results []catalogue.Result
	if *jobs == 1 {
		progress := catalogueProgress(stderr, isTerminal(stderr), entries, time.Now)
		results, err = catalogue.WriteReports(target, entries, opts, progress)
		if isTerminal(stderr) {
			fmt.Fprint(stderr, "\r\033[K")
		}
	} else {
		results, err = writeInParts(target, entries, opts, *jobs, stderr)
	}
	if err != nil {
		return err
	}
	unexpected := 0
	var problems []string
	for _, r := range results {
		if !r.AsExpected() {
			unexpected++
		}
		for _, p := range r.Problems() {
			problems = append(problems, fmt.Sprintf("%s/%s: %s\n", r.Entry, r.Variant, p))
		}
	}
	if !*check {
		removed, err := syncDir(*dir, tmp)
		if err != nil {
			return err
		}
		for _, n := range removed {
			fmt.Fprintf(stdout, "removed %s: not generated any more\n", filepath.Join(*dir, n))
		}
		fmt.Fprintf(stdout, "wrote %s: %d results, %d unexpected\n", *dir, len(results), unexpected)
		return nil
	}
	diffs, err := compareDirs(*dir, target)
	if err != nil {
		return err
	}
	if len(diffs) > 0 {
		fmt.Fprintf(stdout, "%s is stale (regenerate with `make reports` and commit):\n%s", *dir, strings.Join(diffs, ""))
	}
	// The catalogue's expectations (catalogue.Result.Problems, what each
	// scenario's TestEntries checks): make test runs them here, once.
	if len(problems) > 0 {
		fmt.Fprintf(stdout, "%d results break the catalogue's expectations:\n%s", len(problems), strings.Join(problems, ""))
	}
	if len(diffs) > 0 || len(problems) > 0 {
		return &exitError{1}
	}
	fmt.Fprintf(stdout, "%s is current: %d results, %d unexpected\n", *dir, len(results), unexpected)
	return nil
}

// syncDir makes have hold what want holds: every file of want copied over,
// every catalogue file of have that want lacks removed (returned, sorted).
func syncDir(have, want string) ([]string, error) {
	h, err := catalogueFiles(have)
	if err != nil {
		return nil, err
	}
	w, err := catalogueFiles(want)
	if err != nil {
		return nil, err
	}
	var removed []string
	for n := range h { // lint:order-independent sorted below
		if _, ok := w[n]; !ok {
			removed = append(removed, n)
		}
	}
	sort.Strings(removed)
	for _, n := range removed {
		if err := os.Remove(filepath.Join(have, n)); err != nil {
			return nil, err
		}
		os.Remove(filepath.Dir(filepath.Join(have, n))) // only when empty
	}
	var names []string
	for n := range w { // lint:order-independent sorted below
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if b, ok := h[n]; ok && bytes.Equal(b, w[n]) {
			continue
		}
		p := filepath.Join(have, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(p, w[n], 0o644); err != nil {
			return nil, err
		}
	}
	return removed, nil
}

// catalogueFiles reads every file under root but those other commands write
// there (bench.md, falsealarms.md), by path relative to root; a root that does
// not exist holds none.
func catalogueFiles(root string) (map[string][]byte, error) {
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		if rel == "bench.md" || rel == "falsealarms.md" { // written by ctrlsim bench and make falsealarms, not by the catalogue
			return err
		}
		out[rel] = b
		return err
	})
	if os.IsNotExist(err) {
		return out, nil
	}
	return out, err
}

// compareDirs lists the differences between the checked-in catalogue and a fresh
// one: files missing, extra, or changed (with the first differing line).
func compareDirs(have, want string) ([]string, error) {
	h, err := catalogueFiles(have)
	if err != nil {
		return nil, err
	}
	w, err := catalogueFiles(want)
	if err != nil {
		return nil, err
	}
	var names []string
	for n := range h { // lint:order-independent sorted below
		names = append(names, n)
	}
	for n := range w { // lint:order-independent sorted below
		if _, ok := h[n]; !ok {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var diffs []string
	for _, n := range names {
		a, inH := h[n]
		b, inW := w[n]
		switch {
		case !inW:
			diffs = append(diffs, fmt.Sprintf("  %s: not generated any more (delete it)\n", n))
		case !inH:
			diffs = append(diffs, fmt.Sprintf("  %s: missing\n", n))
		case !bytes.Equal(a, b):
			al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
			i := 0
			for i < len(al) && i < len(bl) && al[i] == bl[i] {
				i++
			}
			line := func(ls []string) string {
				if i < len(ls) {
					return ls[i]
				}
				return "(end of file)"
			}
			diffs = append(diffs, fmt.Sprintf("  %s: differs at line %d\n    - %s\n    + %s\n", n, i+1, line(al), line(bl)))
		}
	}
	return diffs, nil
}

// catalogueProgress says, as each (entry, variant) pair starts, which the
// catalogue explores: on a terminal on one line rewritten in place, else (a
// CI log, where the catalogue's half hour would otherwise be silent) one
// line a pair, numbered among all of them, with the time so far.
func catalogueProgress(w io.Writer, terminal bool, entries []*catalogue.Entry, now func() time.Time) func(e *catalogue.Entry, v string) {
	return progressFrom(w, terminal, pairs(entries), 0, now(), now)
}

// pairs counts the (entry, variant) pairs of entries.
func pairs(entries []*catalogue.Entry) int {
	n := 0
	for _, e := range entries {
		n += len(e.Variants())
	}
	return n
}

// progressFrom is catalogueProgress for pairs numbered from after+1 of
// total, the time so far counted from start.
func progressFrom(w io.Writer, terminal bool, total, after int, start time.Time, now func() time.Time) func(e *catalogue.Entry, v string) {
	n := after
	return func(e *catalogue.Entry, v string) {
		n++
		if terminal {
			fmt.Fprintf(w, "\r\033[Kexploring %s %s ...", e.ID, v)
			return
		}
		fmt.Fprintf(w, "ctrlsim catalogue: [%d/%d] %s %s ... (%s so far)\n", n, total, e.ID, v, now().Sub(start).Round(time.Second))
	}
}
