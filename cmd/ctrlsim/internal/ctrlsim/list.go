package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/ctrlsim/ctrlsim/scenarios"
)

type listedEntry struct {
	ID         string            `json:"id"`
	Seed       string            `json:"seed"`
	Properties []string          `json:"properties"`
	Expect     map[string]string `json:"expect"`
}

func cmdList(args []string, stdout io.Writer) error {
	fs := newFlags("list")
	jsonOut := fs.Bool("json", false, "print JSON")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	var out []listedEntry
	for _, e := range scenarios.All() {
		l := listedEntry{ID: e.ID, Seed: e.Seed, Properties: e.PropertyNames(), Expect: map[string]string{}}
		for _, v := range e.Variants() {
			l.Expect[string(v)] = string(e.Expect[v])
		}
		out = append(out, l)
	}
	if *jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ENTRY\tSEED\tPROPERTIES\tBUGGY\tFIXED\tROBUST")
	for _, l := range out {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", l.ID, l.Seed, strings.Join(l.Properties, ","),
			or(l.Expect["buggy"], "-"), or(l.Expect["fixed"], "-"), or(l.Expect["robust"], "-"))
	}
	return tw.Flush()
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
