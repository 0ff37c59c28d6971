package mapports_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/mapports"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// options are the operator's test: its manager and an app ConfigMap with
// eight named ports (a range over a map of eight starts at one of eight
// places, each as likely), explored in the test's process.
func options(fixed, sorted bool) operatortest.Options {
	return operatortest.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []operatortest.Manager{{Name: "mapports", Setup: func(mgr manager.Manager) error {
			return (&mapports.Reconciler{Client: mgr.GetClient(), Fixed: fixed, Sorted: sorted}).SetupWithManager(mgr)
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web",
			Labels: map[string]string{mapports.AppLabel: "yes"}},
			Data: map[string]string{"http": "80", "https": "443", "metrics": "9090", "admin": "8081",
				"grpc": "9000", "health": "8086", "debug": "6060", "profile": "6061"}}},
		Workers: 1,
	}
}

// childEnv makes this test binary a child that replays one plan
// (-ctrlsim.plan) in a fresh process and prints its trace hash.
const childEnv = "MAPPORTS_CHILD"

func TestChildReplaysOnePlan(t *testing.T) {
	if os.Getenv(childEnv) == "" {
		t.Skip("a child of TestEachFindingOfTheSortedOperatorReplaysBitForBit")
	}
	res, err := operatortest.Explore(t, options(false, os.Getenv(childEnv) == "sorted"))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("replayed trace hash %s", res.Hash)
}

var replayedHash = regexp.MustCompile(`replayed trace hash ([0-9a-f]+)`)

// freshReplay replays p in a fresh process (this test binary, run on
// TestChildReplaysOnePlan with -ctrlsim.plan) and returns its trace hash.
func freshReplay(t *testing.T, p string, sorted bool) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "minimal.plan")
	if err := os.WriteFile(path, []byte(p), 0o644); err != nil {
		t.Fatal(err)
	}
	mode := "map"
	if sorted {
		mode = "sorted"
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildReplaysOnePlan$", "-test.v", "-test.count=1", "-ctrlsim.plan="+path)
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	out, err := cmd.CombinedOutput()
	m := replayedHash.FindSubmatch(out)
	if err != nil || m == nil {
		t.Fatalf("the fresh process replaying the plan failed (%v):\n%s", err, out)
	}
	return string(m[1])
}

// The sorted operator is deterministic: its finding's minimal plan replays
// to the trace hash that exploring it gave, in a fresh process and in this
// one after every plan the exploration ran; and each of three plans (the
// finding's, its fault-free run, another seed's) replays here, after the
// others in either order, to its fresh process's hash: no state of one run
// leaks into the next.
func TestEachFindingOfTheSortedOperatorReplaysBitForBit(t *testing.T) {
	res, err := operatortest.Explore(t, options(false, true))
	if err != nil {
		t.Fatal(err)
	}
	if res.Nondeterminism != "" {
		t.Errorf("the sorted operator is said to be nondeterministic: %s", res.Nondeterminism)
	}
	if !res.Caught || res.Findings[len(res.Findings)-1].Violations[0].Property != operatortest.Converges {
		t.Fatalf("the crash between the two writes was not caught by converges: %+v", res)
	}
	f := res.Findings[len(res.Findings)-1]
	plans := []*plan.Plan{f.Minimal, {Seed: f.Minimal.Seed, Steps: f.Minimal.Steps}, {Seed: 7}}
	fresh := make([]string, len(plans))
	for i, p := range plans {
		fresh[i] = freshReplay(t, p.String(), true)
	}
	if fresh[0] != f.Hash {
		t.Errorf("%s: replayed in a fresh process, trace hash %s, exploring it gave %s; plan:\n%s", f.Signature, fresh[0], f.Hash, f.Minimal)
	}
	for _, order := range [][]int{{0, 1, 2}, {2, 1, 0}} {
		for _, i := range order {
			r, err := operatortest.Replay(t, options(false, true), plans[i])
			if err != nil {
				t.Fatal(err)
			}
			if r.Hash != fresh[i] {
				t.Errorf("plan %d (order %v): replayed in this process, trace hash %s, in a fresh process %s; plan:\n%s", i, order, r.Hash, fresh[i], plans[i])
			}
		}
	}
}

// The operator that ranges over the map is nondeterministic, and the
// exploration says so once, naming the object and the field its writes
// differ in, with the declaration that would make them judged modulo it;
// the order of the Service's ports, a list its schema keys by port, is
// ignored as the oracles ignore it. (The preflight plan runs up to four
// times: all four alike, one time in about 500, would miss it.)
func TestTheMapOrderIsSaidOnceWithItsField(t *testing.T) {
	res, err := operatortest.Explore(t, options(false, false))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"ConfigMap shop/web-ports .data.ports", "ranging over a Go map", `{Kind: "ConfigMap", Path: "data.ports"}`} {
		if !strings.Contains(res.Nondeterminism, want) {
			t.Errorf("Result.Nondeterminism lacks %q: %q", want, res.Nondeterminism)
		}
	}
	if strings.Contains(res.Nondeterminism, "Service") {
		t.Errorf("Result.Nondeterminism names the Service, whose ports' order the oracles ignore: %q", res.Nondeterminism)
	}
}

// childRunEnv makes this test binary a child that runs the operator's
// test as a user does: operatortest.Run, which fails on its findings.
const childRunEnv = "MAPPORTS_RUN"

func TestChildRunsTheTest(t *testing.T) {
	if os.Getenv(childRunEnv) == "" {
		t.Skip("a child of TestADeclaredFieldIsReplayedModuloIt and TestAnUndeclaredMapOrderFailsTheTestOnce")
	}
	o := options(false, false)
	switch os.Getenv(childRunEnv) {
	case "declared":
		o.Nondeterministic = []operatortest.NondeterministicField{{Kind: "ConfigMap", Path: "data.ports"}}
		o.KeepGoing = true
	case "selected":
		o = selected(o)
		o.KeepGoing = true
	}
	operatortest.Run(t, o)
}

// With the list's field declared (Options.Nondeterministic), the finding of
// the twin's bug (the crash between the two writes, converges) replays
// modulo it: a replay whose trace hash differs only in the declared field
// and the order of the Service's ports (and the resourceVersions that a
// reordering write more or less shifts), and that shows the finding again,
// replays. Before the replay was judged modulo them, it failed with "does
// not replay bit for bit". (A finding of a race whose outcome the operator's
// extra writes decide, update-summaries with no fault, may not replay: it is
// reported as such, with what exploring it violated.)
func TestADeclaredFieldIsReplayedModuloIt(t *testing.T) {
	out := runTheTest(t, "declared")
	crashReplays(t, out)
	if strings.Contains(out, "the operator itself is nondeterministic (a value") {
		t.Errorf("with the field declared, the output says the operator is nondeterministic:\n%s", out)
	}
}

// crashReplays checks that out reports the crash between the two writes and
// that its minimal plan replays; a finding that does not replay is
// reported with what exploring it violated.
func crashReplays(t *testing.T, out string) {
	t.Helper()
	if !strings.Contains(out, "converges ConfigMap: violated") {
		t.Errorf("the crash between the two writes is not reported:\n%s", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.Contains(line, "does not replay bit for bit") && strings.Contains(line, "TestChildRunsTheTest.plan ") {
			t.Errorf("the crash's finding does not replay: %s\n%s", line, out)
		}
	}
	if strings.Count(out, "does not replay bit for bit") > strings.Count(out, "Exploring it, the plan violated:")+strings.Count(out, "violates ") {
		t.Errorf("a finding that does not replay is not reported:\n%s", out)
	}
}

// Undeclared, the map order fails the operator's test with one line, said
// once, naming the field and its declaration; the crash's finding is
// reported and its replay is judged modulo the field found so.
func TestAnUndeclaredMapOrderFailsTheTestOnce(t *testing.T) {
	out := runTheTest(t, "undeclared")
	if n := strings.Count(out, "the operator itself is nondeterministic"); n != 1 {
		t.Errorf("the operator's nondeterminism is said %d times, want once:\n%s", n, out)
	}
	for _, want := range []string{"ConfigMap shop/web-ports .data.ports", `{Kind: "ConfigMap", Path: "data.ports"}`} {
		if !strings.Contains(out, want) {
			t.Errorf("the output lacks %q:\n%s", want, out)
		}
	}
	crashReplays(t, out)
}

// runTheTest runs TestChildRunsTheTest in a child process (mode: the
// field declared or not) and returns its output; the test must fail.
func runTheTest(t *testing.T, mode string) string {
	t.Helper()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestChildRunsTheTest$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), childRunEnv+"="+mode, "CTRLSIM_ARTIFACTS="+filepath.Join(dir, "artifacts"))
	cmd.Dir = dir
	b, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("the buggy operator's test passed:\n%s", b)
	}
	return string(b)
}

// selected adds to o a pod the Service selects and declares the list's
// field: kube-controller-manager's EndpointSlice controller copies the
// Service's ports, in the order the operator wrote them, into the slice's
// (a list the slice does not key: its order is content there).
func selected(o operatortest.Options) operatortest.Options {
	o.Objects = append(o.Objects, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web-0", Labels: map[string]string{"app": "web"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "web"}}}})
	o.Nondeterministic = []operatortest.NondeterministicField{{Kind: "ConfigMap", Path: "data.ports"}}
	return o
}

// What the cluster's controllers carry on from the operator's own map
// order is the operator's, not ctrlsim's: the correct operator that ranges
// over the map, its list's field declared, holds, and what differs from
// run to run in the cluster's writes after it (the slice's ports, the
// kubelet's Events naming the pod's resourceVersion, shifted by the
// Service's writes) is said once as carried on from the operator's
// Service, never as "a determinism bug of ctrlsim" (which failed every test
// of such an operator).
func TestWhatTheClusterCarriesOnFromTheMapOrderIsTheOperators(t *testing.T) {
	o := selected(options(true, false))
	o.Checks = 20
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Nondeterminism != "" {
		t.Errorf("the operator's map order, declared, is said as nondeterminism: %s", res.Nondeterminism)
	}
	if !strings.Contains(res.Carried, "by process mapports of Service shop/web .spec.ports (its order)") {
		t.Errorf("Result.Carried does not lay the difference at the operator's Service's ports: %q", res.Carried)
	}
	if res.Caught {
		t.Errorf("the correct operator violated %v (a false alarm); plan:\n%s", res.Violations, res.Minimal)
	}
}

// The twin's finding, where the cluster carries its map order on (a pod
// the Service selects, the list's field declared), is reported and its
// minimal plan replays: no line blames ctrlsim, and none says the plan
// does not replay.
func TestTheTwinsFindingReplaysWhereTheClusterCarriesTheMapOrderOn(t *testing.T) {
	out := runTheTest(t, "selected")
	crashReplays(t, out)
	for _, not := range []string{"a determinism bug of ctrlsim", "the operator itself is nondeterministic (a value"} {
		if strings.Contains(out, not) {
			t.Errorf("the output says %q:\n%s", not, out)
		}
	}
	if !strings.Contains(out, "carried on by the cluster's controllers") {
		t.Errorf("the output does not say what the cluster carried on:\n%s", out)
	}
}
