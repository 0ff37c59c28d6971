package catalogue

import (
	"bytes"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"
)

// ReportOptions configure WriteReports.
type ReportOptions struct {
	Checks int    // plans per (entry, variant)
	Seed   uint64 // explorer seed
	// TimelineLines bounds the timeline printed on each page.
	TimelineLines int
}

// Replay is the one-line command that replays a plan file of an entry.
func Replay(entry, v, planFile string) string {
	return fmt.Sprintf("go run ./cmd/ctrlsim replay --entry %s --variant %s --plan %s --timeline", entry, v, planFile)
}

// SeedsDir is where the repository keeps the seed documents (Entry.SeedFile), next
// to docs/SEEDS.md, which specifies each seed.
const SeedsDir = "docs/seeds"

// pageToRoot is the way from an entry's page up to the repository root: the
// catalogue directory is a child of the root (reports/) and each entry has a
// folder in it; pages link into docs/ through it, never out of the clone.
const pageToRoot = "../../"

// slug turns an entry ID into a file name.
func slug(id string) string { return strings.ReplaceAll(id, "/", "-") }

// EntryDir is the folder of an entry in the catalogue directory: its page and
// the files of its caught variants.
func EntryDir(id string) string { return slug(id) }

// PageFile is the path of an entry's page in the catalogue directory.
func PageFile(id string) string { return path.Join(EntryDir(id), "README.md") }

// PlanFile is the path of the minimal plan of a caught variant of an entry in
// the catalogue directory; its picture and inspector page are beside it, with
// the extensions .svg and .html.
func PlanFile(id string, v string) string { return path.Join(EntryDir(id), v+".plan") }

// WriteReports explores every (entry, variant) and writes the catalogue into dir:
// index.md (the matrix) and one folder per entry (EntryDir) holding its page
// (README.md, which a repository browser shows with the folder) and, for each
// caught variant, its minimal plan (<variant>.plan), its labelled picture
// (<variant>.svg) and its run inspector (<variant>.html). Nothing written
// depends on the wall clock, so the same code and seed give the same files.
// progress, if not nil, is told about each (entry, variant) as it starts.
// It is WriteEntry for each entry, then WriteIndex: a caller may write the
// entries in several processes (each entry's folder is its own) and the
// index from all their results.
func WriteReports(dir string, entries []*Entry, opts ReportOptions, progress func(e *Entry, v string)) ([]Result, error) {
	var all []Result
	for _, e := range entries {
		rs, err := WriteEntry(dir, e, opts, progress)
		if err != nil {
			return nil, err
		}
		all = append(all, rs...)
	}
	return all, WriteIndex(dir, entries, all, opts)
}

// WriteEntry explores every variant of e and writes its folder into dir
// (WriteReports), returning its results in its variants' order.
func WriteEntry(dir string, e *Entry, opts ReportOptions, progress func(e *Entry, v string)) ([]Result, error) {
	if opts.TimelineLines == 0 {
		opts.TimelineLines = 60
	}
	if err := os.MkdirAll(filepath.Join(dir, EntryDir(e.ID)), 0o755); err != nil {
		return nil, err
	}
	var all []Result
	var page bytes.Buffer
	writeEntryHeader(&page, e)
	fmt.Fprintf(&page, "## Outcomes\n\n| variant | expected | actual | checks to find | violated | minimal plan |\n|---|---|---|---|---|---|\n")
	var details bytes.Buffer
	for _, v := range e.Variants() {
		if progress != nil {
			progress(e, string(v))
		}
		r := e.Explore(v, opts.Checks, opts.Seed, func() time.Time { return time.Time{} })
		first, violated, planLink := "-", "-", "-"
		if r.Outcome == Caught {
			first = fmt.Sprint(r.ChecksToFirstFailure)
			violated = strings.Join(r.Violated, ", ")
			name := PlanFile(e.ID, string(v))
			if err := os.WriteFile(filepath.Join(dir, name), []byte(r.Minimal.String()), 0o644); err != nil {
				return nil, err
			}
			planLink = fmt.Sprintf("[%d line%s](%s)", r.Minimal.Size(), world.Plural(r.Minimal.Size()), path.Base(name))
			reproduced, err := writeCaught(&details, dir, e, string(v), name, r, opts)
			if err != nil {
				return nil, err
			}
			r.Reproduced = reproduced
		}
		all = append(all, r)
		mark := ""
		if !r.AsExpected() {
			mark = " **(unexpected)**"
		}
		fmt.Fprintf(&page, "| %s | %s | %s%s | %s | %s | %s |\n", v, r.Expect, r.Outcome, mark, first, violated, planLink)
	}
	page.WriteString("\n")
	page.Write(details.Bytes())
	if e.Why != "" {
		fmt.Fprintf(&page, "## Why these outcomes\n\n%s\n", e.Why)
	}
	return all, os.WriteFile(filepath.Join(dir, PageFile(e.ID)), page.Bytes(), 0o644)
}

// WriteIndex writes dir's index.md (WriteReports) from the results of every
// entry's variants (WriteEntry's, in any order).
func WriteIndex(dir string, entries []*Entry, results []Result, opts ReportOptions) error {
	var index bytes.Buffer
	fmt.Fprintf(&index, "# ctrlsim regression catalogue\n\n")
	fmt.Fprintf(&index, "Generated by `ctrlsim catalogue` (`make reports`); `ctrlsim catalogue --check` fails when this is stale.\n")
	fmt.Fprintf(&index, "Each (entry, variant) was explored with %d plans from explorer seed %d. ", opts.Checks, opts.Seed)
	fmt.Fprintf(&index, "*caught*: a plan violating a property was found and shrunk; *holds*: none in the budget.\n\n")
	fmt.Fprintf(&index, "Each entry has a folder: its page (`README.md`: the bug, the outcomes, and for each caught variant the minimal plan, "+
		"its replay command, verdicts and timeline) and, per caught variant, the minimal plan (`<variant>.plan`), its picture (`<variant>.svg`) "+
		"and its run inspector (`<variant>.html`, self-contained: download and open in a browser). "+
		"`bench.md` holds the figures of `ctrlsim bench`. The design is in [docs/design.md](../docs/design.md), the seeds in [docs/SEEDS.md](../docs/SEEDS.md).\n\n")
	fmt.Fprintf(&index, "| entry | seed | properties | buggy | fixed | robust |\n|---|---|---|---|---|---|\n")
	for _, e := range entries {
		byVariant := map[string]Result{}
		for _, r := range results {
			if r.Entry == e.ID {
				byVariant[string(r.Variant)] = r
			}
		}
		cell := func(v string) string {
			r, ok := byVariant[v]
			if !ok {
				return "-"
			}
			s := fmt.Sprintf("%s / %s", r.Expect, r.Outcome)
			if r.Outcome == Caught {
				s += fmt.Sprintf(" (%d)", r.ChecksToFirstFailure)
			}
			if !r.AsExpected() {
				s = "**" + s + "**"
			}
			return s
		}
		fmt.Fprintf(&index, "| [%s](%s) | %s | %s | %s | %s | %s |\n", e.ID, PageFile(e.ID), e.Seed,
			strings.Join(e.PropertyNames(), ", "), cell("buggy"), cell("fixed"), cell("robust"))
	}
	fmt.Fprintf(&index, "\nCells read *expected / actual (checks to the first failure)*; bold marks an outcome that differs from its expectation.\n")
	return os.WriteFile(filepath.Join(dir, "index.md"), index.Bytes(), 0o644)
}

func writeEntryHeader(w *bytes.Buffer, e *Entry) {
	fmt.Fprintf(w, "# %s\n\n[The catalogue](../index.md)\n\n", e.ID)
	var refs []string
	if e.SeedFile != "" {
		refs = append(refs, fmt.Sprintf("seed %s ([%s](%s), [SEEDS.md](%s))", e.Seed, e.SeedFile,
			path.Join(pageToRoot, SeedsDir, e.SeedFile), path.Join(pageToRoot, "docs/SEEDS.md")))
	} else {
		refs = append(refs, "seed "+e.Seed)
	}
	if e.Upstream != "" {
		refs = append(refs, fmt.Sprintf("upstream: %s", e.Upstream))
	}
	fmt.Fprintf(w, "%s\n\n%s\n\n", strings.Join(refs, " · "), e.Summary)
}

// writeCaught writes a caught variant's section of its entry's page, its
// picture and inspector, and reports whether the minimal plan's replay
// violated a property again.
func writeCaught(w *bytes.Buffer, dir string, e *Entry, v, planFile string, r Result, opts ReportOptions) (bool, error) {
	run, err := e.Replay(r.Variant, r.Minimal)
	if err != nil {
		return false, err
	}
	defer run.Close()
	fmt.Fprintf(w, "## %s: the minimal plan\n\n```\n%s```\n\nReplay: `%s`\n\n", v, r.Minimal.String(), Replay(e.ID, v, path.Join("reports", planFile)))
	for _, x := range run.Verdicts {
		if !x.Holds {
			fmt.Fprintf(w, "- **%s** violated at %s: %s\n", x.Property, x.At, x.Detail)
		}
	}
	// The picture and the inspector beside the plan.
	if err := run.WriteStory(planBase(dir, planFile), fmt.Sprintf("%s, %s: minimal plan", e.ID, v)); err != nil {
		return false, err
	}
	fmt.Fprintf(w, "\n![timeline of the minimal plan](%s.svg)\n\n", v)
	fmt.Fprintf(w, "Inspect every step (download and open in a browser; self-contained): [%s.html](%s.html)\n\n", v, v)
	lines := strings.SplitAfter(run.Timeline, "\n")
	more := ""
	if len(lines) > opts.TimelineLines {
		more = fmt.Sprintf("... %d more steps: run the replay command for all of them\n", len(lines)-opts.TimelineLines)
		lines = lines[:opts.TimelineLines]
	}
	fmt.Fprintf(w, "Timeline (trace hash `%s`):\n\n```\n%s%s```\n\n", run.Hash, strings.Join(lines, ""), more)
	return len(run.Violated()) > 0, nil
}
