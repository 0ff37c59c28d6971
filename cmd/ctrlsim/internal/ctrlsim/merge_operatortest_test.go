package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/workers"
)

// ctrlsim merge takes the -ctrlsim.json files of an operator test's shards
// too: it prints the unsharded result (exit 1 when it caught something), and
// refuses shards that are not every shard of one exploration (exit 2, one line).
func TestMergeOfAnOperatorTestsShards(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, r workers.ShardResult) string {
		b, err := json.Marshal(workers.Document{OperatorTest: &r})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	base := workers.ShardResult{Test: "TestOp", Seed: 3, Checks: 60}
	one, two := base, base
	one.Shard, one.PlansRun = "1/2", 30
	two.Shard, two.PlansRun, two.Caught, two.FirstFailure = "2/2", 4, true, 8
	two.MinimalPlan, two.Violated = "seed 1\ncrash process=op write=1\n", []string{"converges"}
	a, b := write("1.json", one), write("2.json", two)

	var out, errOut bytes.Buffer
	if code := run([]string{"merge", a, b}, &out, &errOut); code != 1 {
		t.Errorf("exit %d (stderr %q), want 1: a shard caught a violation", code, errOut.String())
	}
	if !strings.Contains(out.String(), "TestOp: violated [converges] at plan 8 of 60 (seed 3)") || !strings.Contains(out.String(), "crash process=op write=1") {
		t.Errorf("merge printed %q", out.String())
	}
	out.Reset()
	if code := run([]string{"merge", "--json", a, b}, &out, &errOut); code != 1 {
		t.Errorf("--json: exit %d", code)
	}
	var doc workers.Document
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.OperatorTest == nil || doc.OperatorTest.FirstFailure != 8 || doc.OperatorTest.Shard != "" {
		t.Errorf("--json printed %q (%v)", out.String(), err)
	}

	errOut.Reset()
	if code := run([]string{"merge", a}, &out, &errOut); code != 2 || strings.Count(errOut.String(), "\n") != 1 || !strings.Contains(errOut.String(), "missing shard 2/2") {
		t.Errorf("one shard of two: exit %d, stderr %q; want 2 and one line naming the missing shard", code, errOut.String())
	}
}
