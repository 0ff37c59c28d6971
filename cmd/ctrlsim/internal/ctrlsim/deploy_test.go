package main

// The files that run the command elsewhere: the Dockerfile (no docker engine runs
// here, so it is read, not built) and deploy/explore-job.yaml (read here; accepted by
// a real kube-apiserver in internal/differential).

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

func readRepoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// The image builds the command (./cmd/ctrlsim/internal/ctrlsim; not its
// launcher, which needs a go command) with the Go of go.mod, and runs it as
// a non-root user.
func TestDockerfileBuildsTheCommandWithTheModulesGoAsNonRoot(t *testing.T) {
	df := readRepoFile(t, "Dockerfile")
	goDirective := regexp.MustCompile(`(?m)^go (\d+\.\d+)`).FindStringSubmatch(readRepoFile(t, "go.mod"))
	if goDirective == nil {
		t.Fatal("go.mod has no go directive")
	}
	froms := regexp.MustCompile(`(?m)^FROM\s+(\S+)`).FindAllStringSubmatch(df, -1)
	if len(froms) < 2 {
		t.Fatalf("want a multi-stage build, got FROM %v", froms)
	}
	if want := "golang:" + goDirective[1]; froms[0][1] != want && !strings.HasPrefix(froms[0][1], want+".") && !strings.HasPrefix(froms[0][1], want+"-") {
		t.Errorf("the build stage is FROM %s; go.mod says go %s: want %s", froms[0][1], goDirective[1], want)
	}
	if !regexp.MustCompile(`(?m)^RUN .*\bgo build\b.* \./cmd/ctrlsim/internal/ctrlsim\s*$`).MatchString(df) {
		t.Errorf("no RUN go build ... ./cmd/ctrlsim/internal/ctrlsim in the Dockerfile")
	}
	if regexp.MustCompile(`GOPROXY=off`).MatchString(df) {
		t.Errorf("the build must fetch modules from the module proxy")
	}
	final := df[strings.LastIndex(df, "\nFROM "):]
	users := regexp.MustCompile(`(?m)^USER\s+(\S+)`).FindAllStringSubmatch(final, -1)
	if len(users) == 0 {
		t.Fatalf("the runtime stage sets no USER (it would run as root)")
	}
	user, _, _ := strings.Cut(users[len(users)-1][1], ":")
	if uid, err := strconv.Atoi(user); err != nil || uid == 0 {
		t.Errorf("the runtime stage runs as USER %s: want a numeric non-root uid (Kubernetes' runAsNonRoot can check only numbers)", user)
	}
}

// exploreJob is deploy/explore-job.yaml, decoded strictly (an unknown field fails).
func exploreJob(t *testing.T) *batchv1.Job {
	t.Helper()
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(readRepoFile(t, "deploy/explore-job.yaml")), &job); err != nil {
		t.Fatalf("deploy/explore-job.yaml: %v", err)
	}
	return &job
}

// The Job runs each shard once, in a pod per index, and a shard that found an
// unexpected outcome (exit 1) fails its index without a retry.
func TestTheExploreJobRunsEachShardOnce(t *testing.T) {
	job := exploreJob(t)
	spec := job.Spec
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Fatalf("completionMode %v: want Indexed", spec.CompletionMode)
	}
	pod := spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("want one container, got %d", len(pod.Containers))
	}
	c := pod.Containers[0]
	var shards int
	for _, a := range c.Args {
		if v, ok := strings.CutPrefix(a, "--shards-of-indexed-job="); ok {
			shards, _ = strconv.Atoi(v)
		}
	}
	if spec.Completions == nil || spec.Parallelism == nil || int(*spec.Completions) != shards || int(*spec.Parallelism) != shards {
		t.Errorf("completions %v, parallelism %v, --shards-of-indexed-job=%d: want all equal", spec.Completions, spec.Parallelism, shards)
	}
	for _, want := range []string{"run", "--json", "--json-markers"} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("the pod's args %v lack %s", c.Args, want)
		}
	}
	if spec.BackoffLimit == nil || spec.BackoffLimitPerIndex == nil || spec.PodFailurePolicy == nil || pod.RestartPolicy != "Never" {
		t.Fatalf("want backoffLimit, backoffLimitPerIndex, a podFailurePolicy and restartPolicy Never")
	}
	failsIndexOnOne := false
	for _, r := range spec.PodFailurePolicy.Rules {
		e := r.OnExitCodes
		if e != nil && r.Action == batchv1.PodFailurePolicyActionFailIndex && e.Operator == batchv1.PodFailurePolicyOnExitCodesOpIn && slices.Contains(e.Values, 1) {
			failsIndexOnOne = e.ContainerName == nil || *e.ContainerName == c.Name
		}
	}
	if !failsIndexOnOne {
		t.Errorf("no podFailurePolicy rule fails the index of a pod whose container exits 1")
	}
	sc := pod.SecurityContext
	if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		t.Errorf("the pod's securityContext %+v: want runAsNonRoot and a non-zero runAsUser", sc)
	}
}

// The pod's arguments are a run the command accepts: pod 0's, with a budget of one
// plan on one (entry, variant).
func TestTheExploreJobsArgumentsRun(t *testing.T) {
	c := exploreJob(t).Spec.Template.Spec.Containers[0]
	t.Setenv("JOB_COMPLETION_INDEX", "0")
	args := append(slices.Clone(c.Args), "--checks=1", "--entry=canary/stale-cache", "--variant=fixed") // later flags win
	out, errs, code := ctrlsim(t, args...)
	if code != 0 || !strings.HasPrefix(out, jsonBegin+"\n") {
		t.Errorf("ctrlsim %v: exit %d, stderr %q, stdout:\n%s", args, code, errs, out)
	}
}
