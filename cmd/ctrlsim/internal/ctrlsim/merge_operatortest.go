package main

// ctrlsim merge of an operator test's shards: the -ctrlsim.json files of
// `go test -ctrlsim.shard=i/n` runs (package operatortest) merge into the
// result of the unsharded exploration, with the same checks as run shards: one
// exploration, every shard once.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/ctrlsim/ctrlsim/operatortest/workers"
)

// isOperatorTest reports whether b is the JSON of an operator test's shard.
func isOperatorTest(b []byte) bool {
	var probe map[string]json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(b)).Decode(&probe); err != nil {
		return false
	}
	_, ok := probe["operatortest"]
	return ok
}

// mergeOperatorTests merges the shard documents of files (already read) and
// prints the unsharded result; exit 1 when it caught a violation.
func mergeOperatorTests(files []string, contents [][]byte, jsonOut bool, stdout io.Writer) error {
	var shards []workers.ShardResult
	for i, b := range contents {
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		for k := 1; ; k++ {
			var doc workers.Document
			if err := dec.Decode(&doc); err == io.EOF && k > 1 {
				break
			} else if err != nil || doc.OperatorTest == nil {
				return usagef("%s: not the -ctrlsim.json of an operator test's shard (%v)", files[i], err)
			}
			shards = append(shards, *doc.OperatorTest)
		}
	}
	merged, err := workers.Merge(shards)
	if err != nil {
		return usagef("%v", err)
	}
	if jsonOut {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(workers.Document{OperatorTest: &merged}); err != nil {
			return err
		}
	} else if merged.Caught {
		fmt.Fprintf(stdout, "%s: violated %v at plan %d of %d (seed %d); the minimal plan:\n%s", merged.Test, merged.Violated, merged.FirstFailure, merged.Checks, merged.Seed, merged.MinimalPlan)
	} else {
		fmt.Fprintf(stdout, "%s: %d plans explored (seed %d), no violation\n", merged.Test, merged.Checks, merged.Seed)
	}
	if merged.Caught {
		return &exitError{1}
	}
	return nil
}
