package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// indexedJobPod runs what a pod of deploy/explore-job.yaml runs, as the pod with
// JOB_COMPLETION_INDEX index of a Job of n completions, and returns its output.
func indexedJobPod(t *testing.T, index, n int) string {
	t.Helper()
	t.Setenv("JOB_COMPLETION_INDEX", fmt.Sprint(index))
	out, errs, code := ctrlsim(t, "run", "--json", "--json-markers", fmt.Sprintf("--shards-of-indexed-job=%d", n), "--checks", "30", "--entry", "canary/*")
	if code != 0 {
		t.Fatalf("pod %d: exit %d: %s", index, code, errs)
	}
	return out
}

// prefixed is a log as `kubectl logs --prefix` prints it: each line led by the pod
// and container.
func prefixed(pod, log string) string {
	var b strings.Builder
	for _, line := range strings.SplitAfter(strings.TrimSuffix(log, "\n"), "\n") {
		fmt.Fprintf(&b, "[pod/%s/ctrlsim] %s", pod, line)
	}
	return b.String() + "\n"
}

// The logs of an Indexed Job's pods, with other lines around the marked JSON,
// merge to the unsharded run: one file per index, or one file of every pod's log
// with kubectl's prefixes.
func TestIndexedJobPodLogsMerge(t *testing.T) {
	unsharded := runJSON(t)
	pod0, pod1 := indexedJobPod(t, 0, 2), indexedJobPod(t, 1, 2)
	if !strings.HasPrefix(pod0, jsonBegin+"\n{") || !strings.HasSuffix(pod0, "}\n"+jsonEnd+"\n") {
		t.Fatalf("--json-markers output:\n%s", pod0)
	}
	dir := t.TempDir()
	noise := func(s string) string {
		return "pulling image\nI1122 18:00:00 log line {\"not\": \"a shard\"}\n" + s + "done\n"
	}
	perIndex := []string{writeFile(t, dir, "index-1.log", noise(pod1)), writeFile(t, dir, "index-0.log", noise(pod0))}
	allPods := writeFile(t, dir, "job.log", prefixed("explore-1-x7k2p", noise(pod1))+"a line of no pod\n"+prefixed("explore-0-q9zt4", noise(pod0)))
	for _, files := range [][]string{perIndex, {allPods}} {
		out, errs, code := ctrlsim(t, append([]string{"merge", "--json"}, files...)...)
		if code != 0 {
			t.Fatalf("merge %v: exit %d: %s", files, code, errs)
		}
		var merged runOutput
		if err := json.Unmarshal([]byte(out), &merged); err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(withoutWallTimes(unsharded), withoutWallTimes(merged)); d != "" {
			t.Errorf("merge %v differs from the unsharded run (-unsharded +merged):\n%s", files, d)
		}
	}
}

// --shards-of-indexed-job needs the pod's index: missing or out of range, the run
// exits 2 with one line.
func TestShardsOfIndexedJobNeedsTheIndex(t *testing.T) {
	for _, tc := range []struct {
		env  string // "" leaves JOB_COMPLETION_INDEX unset
		args []string
		want string
	}{
		{"", []string{"--shards-of-indexed-job=4"}, "JOB_COMPLETION_INDEX is not set"},
		{"4", []string{"--shards-of-indexed-job=4"}, `bad JOB_COMPLETION_INDEX "4": want 0 to 3`},
		{"-1", []string{"--shards-of-indexed-job=4"}, `bad JOB_COMPLETION_INDEX "-1"`},
		{"one", []string{"--shards-of-indexed-job=4"}, `bad JOB_COMPLETION_INDEX "one"`},
		{"0", []string{"--shards-of-indexed-job=0"}, "bad --shards-of-indexed-job 0"},
		{"0", []string{"--shards-of-indexed-job=4", "--shard", "1/4"}, "give --shard or --shards-of-indexed-job, not both"},
	} {
		t.Setenv("JOB_COMPLETION_INDEX", tc.env)
		if tc.env == "" {
			os.Unsetenv("JOB_COMPLETION_INDEX") // t.Setenv restores it
		}
		out, errs, code := ctrlsim(t, append([]string{"run", "--json", "--entry", "canary/*"}, tc.args...)...)
		if code != 2 || strings.Count(strings.TrimSpace(errs), "\n") != 0 || !strings.Contains(errs, tc.want) || out != "" {
			t.Errorf("JOB_COMPLETION_INDEX=%q run %v: exit %d, stderr %q, stdout %q; want exit 2 and one line containing %q", tc.env, tc.args, code, errs, out, tc.want)
		}
	}
}
