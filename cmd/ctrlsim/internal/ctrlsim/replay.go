package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

func cmdReplay(args []string, stdout io.Writer) error {
	fs := newFlags("replay")
	entry := fs.String("entry", "", "the entry ID (required)")
	v := fs.String("variant", "", "the variant: buggy, fixed or robust (required)")
	file := fs.String("plan", "", "read the plan from this file")
	text := fs.String("plan-text", "", "the plan's text")
	timeline := fs.Bool("timeline", false, "print the timeline")
	jsonOut := fs.Bool("json", false, "print one JSON object")
	htmlOut := fs.String("html", "", "also write the run inspector, one self-contained HTML page, to this file")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if *entry == "" || *v == "" {
		return usagef("--entry and --variant are required")
	}
	e, err := scenarios.Lookup(*entry)
	if err != nil {
		return usagef("%v", err)
	}
	vr, err := variant.Parse(*v)
	if err != nil {
		return usagef("%v", err)
	}
	if _, ok := e.Expect[vr]; !ok {
		return usagef("entry %s has no variant %s", e.ID, vr)
	}
	var p *plan.Plan
	switch {
	case *file != "" && *text != "":
		return usagef("give --plan or --plan-text, not both")
	case *file != "":
		f, err := os.Open(*file)
		if err != nil {
			return usagef("cannot read plan: %v", err)
		}
		defer f.Close()
		if p, err = plan.Read(f); err != nil {
			return usagef("malformed plan %s: %v", *file, err)
		}
	case *text == "":
		return usagef("a plan is required: --plan FILE or --plan-text TEXT")
	default:
		if p, err = plan.Parse(*text); err != nil {
			return usagef("malformed plan: %v", err)
		}
	}
	r, err := e.Replay(vr, p)
	if err != nil {
		return usagef("%v", err)
	}
	defer r.Close()
	if *htmlOut != "" {
		if err := writeInspector(*htmlOut, fmt.Sprintf("%s, %s", e.ID, vr), r); err != nil {
			return err
		}
	}
	verdicts := map[string]string{}
	for _, x := range r.Verdicts {
		if x.Holds {
			if _, seen := verdicts[x.Property]; !seen {
				verdicts[x.Property] = "holds"
			}
		} else {
			verdicts[x.Property] = "violated"
		}
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Entry     string            `json:"entry"`
			Variant   string            `json:"variant"`
			TraceHash string            `json:"trace_hash"`
			Verdicts  map[string]string `json:"verdicts"`
			Steps     int               `json:"steps"`
		}{e.ID, string(vr), r.Hash, verdicts, r.Steps})
	}
	writeReplayIntro(stdout, e, vr, p)
	if *timeline {
		fmt.Fprintln(stdout, "\ntimeline:")
		fmt.Fprintln(stdout, r.Timeline)
	}
	names := make([]string, 0, len(verdicts))
	for n := range verdicts { // lint:order-independent sorted below
		names = append(names, n)
	}
	sort.Strings(names)
	for _, x := range r.Verdicts {
		fmt.Fprintln(stdout, x.String())
	}
	fmt.Fprintf(stdout, "trace hash %s (%d steps)\n", r.Hash, r.Steps)
	return nil
}
