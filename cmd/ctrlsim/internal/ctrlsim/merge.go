package main

// ctrlsim merge: the shards of one run (`run --json --shard I/N`, N processes, pods
// or CI jobs) back into the one result an unsharded run prints, after checking that
// the inputs are every shard of one run, each once.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// A shardDoc is one shard's JSON and where it was read from.
type shardDoc struct {
	from string // the file, and the log prefix when it came from a pod's log
	out  runOutput
}

func cmdMerge(args []string, stdout io.Writer) error {
	fs := newFlags("merge")
	jsonOut := fs.Bool("json", false, "print the merged JSON (as run --json prints it)")
	if err := parseFlags(fs, args, stdout); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		return usagef("give the JSON (or the pod logs) of every shard: ctrlsim merge [--json] FILE...")
	}
	for _, f := range files {
		if strings.HasPrefix(f, "-") && f != "-" {
			return usagef("flag %s after a file: give the flags first", f)
		}
	}
	if contents, ok, err := operatorTestFiles(files); err != nil {
		return err
	} else if ok {
		return mergeOperatorTests(files, contents, *jsonOut, stdout)
	}
	var docs []shardDoc
	for _, f := range files {
		ds, err := readShards(f)
		if err != nil {
			return err
		}
		docs = append(docs, ds...)
	}
	merged, err := mergeShards(docs)
	if err != nil {
		return err
	}
	if *jsonOut {
		if err := writeJSON(stdout, merged, false); err != nil {
			return err
		}
	} else {
		printTable(stdout, merged.Results, merged.Summary)
	}
	if merged.Summary.Unexpected > 0 {
		return &exitError{1}
	}
	return nil
}

// readShards reads the shards in a file ("-": standard input): JSON documents one
// after the other, or a log holding them between the --json-markers lines.
// operatorTestFiles reads files when the first is an operator test's shard
// (then every one must be); ok is false for run shards, read by readShards.
func operatorTestFiles(files []string) (contents [][]byte, ok bool, err error) {
	if files[0] == "-" {
		return nil, false, nil
	}
	for i, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, false, usagef("cannot read %s: %v", f, oneLine(err))
		}
		if i == 0 && !isOperatorTest(b) {
			return nil, false, nil
		}
		contents = append(contents, b)
	}
	return contents, true, nil
}

func readShards(file string) ([]shardDoc, error) {
	var b []byte
	var err error
	if file == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(file)
	}
	if err != nil {
		return nil, usagef("cannot read %s: %v", file, oneLine(err))
	}
	if !bytes.Contains(b, []byte(jsonBegin)) {
		return decodeShards(file, b)
	}
	blocks, err := markedBlocks(file, string(b))
	if err != nil {
		return nil, err
	}
	var out []shardDoc
	for _, bl := range blocks {
		ds, err := decodeShards(bl.from, []byte(bl.text))
		if err != nil {
			return nil, err
		}
		out = append(out, ds...)
	}
	return out, nil
}

// decodeShards decodes the JSON documents of b, one shard each.
func decodeShards(from string, b []byte) ([]shardDoc, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var docs []shardDoc
	for k := 1; ; k++ {
		where := from
		if k > 1 {
			where = fmt.Sprintf("%s (document %d)", from, k)
		}
		var out runOutput
		if err := dec.Decode(&out); err == io.EOF && k > 1 {
			return docs, nil
		} else if err != nil {
			return nil, usagef("%s: not the JSON of `ctrlsim run --json` (%v)", where, oneLine(err))
		}
		if out.Header.Shards == 0 {
			return nil, usagef("%s: no header (the JSON of a ctrlsim run older than merge?)", where)
		}
		docs = append(docs, shardDoc{from: where, out: out})
	}
}

// mergeShards checks that docs are the shards of one run, each exactly once, and
// returns the run's JSON as an unsharded run prints it: the results in catalogue
// order (shards hold the pairs round-robin), the summary counted from them.
func mergeShards(docs []shardDoc) (runOutput, error) {
	first := docs[0].out.Header
	byShard := map[int]shardDoc{}
	pairs := map[string]string{} // "entry variant" -> where it was read
	for _, d := range docs {
		h := d.out.Header
		if diff := first.sameRun(h); diff != "" {
			return runOutput{}, usagef("%s: not a shard of the run of %s: %s", d.from, docs[0].from, diff)
		}
		if h.Shard < 1 || h.Shard > h.Shards {
			return runOutput{}, usagef("%s: bad shard %d/%d", d.from, h.Shard, h.Shards)
		}
		if prev, dup := byShard[h.Shard]; dup {
			return runOutput{}, usagef("duplicate shard %d/%d: %s and %s", h.Shard, h.Shards, prev.from, d.from)
		}
		byShard[h.Shard] = d
		if want := shardSize(h.AllPairs, h.Shard, h.Shards); h.Pairs != want {
			return runOutput{}, usagef("%s: shard %d/%d says it has %d pairs, but %d pairs in %d shards give it %d", d.from, h.Shard, h.Shards, h.Pairs, h.AllPairs, h.Shards, want)
		}
		if len(d.out.Results) != h.Pairs {
			return runOutput{}, usagef("%s: shard %d/%d has %d results, its header says %d (a truncated output?)", d.from, h.Shard, h.Shards, len(d.out.Results), h.Pairs)
		}
		for _, r := range d.out.Results {
			key := r.Entry + " " + r.Variant
			if prev, dup := pairs[key]; dup {
				return runOutput{}, usagef("%s %s is in two shards: %s and %s", r.Entry, r.Variant, prev, d.from)
			}
			pairs[key] = d.from
		}
	}
	var missing []string
	for i := 1; i <= first.Shards; i++ {
		if _, ok := byShard[i]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", i, first.Shards))
		}
	}
	if len(missing) > 0 {
		return runOutput{}, usagef("missing shard %s", strings.Join(missing, ", "))
	}
	out := runOutput{Header: first, Results: make([]runResult, 0, first.AllPairs)}
	out.Header.Shard, out.Header.Shards, out.Header.Pairs = 1, 1, first.AllPairs
	for k := range first.AllPairs {
		r := byShard[k%first.Shards+1].out.Results[k/first.Shards]
		out.Results = append(out.Results, r)
		out.Summary.Results++
		if r.Outcome == r.Expect {
			out.Summary.AsExpected++
		} else {
			out.Summary.Unexpected++
		}
	}
	return out, nil
}

// oneLine keeps an error's message on one line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
