package trace_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

func steps() []trace.Step {
	return []trace.Step{
		{At: 0, Op: "action", Object: "Pipeline ns/p", Result: "create"},
		{At: 1500 * time.Millisecond, Process: "mgr", Controller: "pipeline", Worker: 1, Reconcile: 1, Op: "get", Object: "Pipeline ns/p", RVSeen: 10, RVCurrent: 12, Result: "ok"},
		{At: 2 * time.Second, Process: "mgr", Controller: "pipeline", Worker: 1, Reconcile: 1, Op: "update", Object: "Pipeline ns/p", RVSeen: 10, RVCurrent: 12, Result: "Conflict: the object has been modified"},
	}
}

func record(ss []trace.Step) *trace.Trace {
	t := trace.New()
	for _, s := range ss {
		t.Add(s)
	}
	return t
}

func TestCanonicalLine(t *testing.T) {
	got := steps()[2].Canonical()
	want := `2000000000 mgr pipeline 1 1 update "Pipeline ns/p" 10/12/0 0 - "Conflict: the object has been modified"`
	if got != want {
		t.Errorf("canonical line:\n got %s\nwant %s", got, want)
	}
	if got := (trace.Step{}).Canonical(); got != "0 - - 0 0 - - 0/0/0 0 - -" {
		t.Errorf("empty fields are '-': %s", got)
	}
}

// A write's digest is part of the canonical line, so of the hash: two runs that
// store different contents at the same steps have different hashes.
func TestTheDigestOfAWriteIsInTheHash(t *testing.T) {
	a, b := steps(), steps()
	a[1].Digest, b[1].Digest = "1f2e", "9a8b"
	if !strings.Contains(a[1].Canonical(), " 1f2e ") {
		t.Errorf("canonical line %q lacks the digest", a[1].Canonical())
	}
	if record(a).Hash() == record(b).Hash() {
		t.Error("traces that stored different contents have the same hash")
	}
}

func TestHashIsAFingerprint(t *testing.T) {
	a, b := record(steps()), record(steps())
	if a.Hash() != b.Hash() {
		t.Fatal("same steps, different hashes")
	}
	changed := steps()
	changed[1].RVSeen = 11
	if record(changed).Hash() == a.Hash() {
		t.Error("a changed step must change the hash")
	}
	if _, diverged := trace.Diverge(a, b); diverged {
		t.Error("equal traces do not diverge")
	}
	d, diverged := trace.Diverge(a, record(changed))
	if !diverged || d.Index != 1 || !strings.Contains(d.String(), "diverge at step 1") {
		t.Errorf("first divergence at step 1, got %+v", d)
	}
	short := record(steps()[:2])
	if d, _ := trace.Diverge(a, short); d.Index != 2 || d.B != nil {
		t.Errorf("a trace that ends early diverges where it ends: %+v", d)
	}
}

func TestTimelineShowsStaleness(t *testing.T) {
	var b strings.Builder
	if err := record(steps()).WriteTimeline(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"mgr/pipeline#1 r1", "rv=10 (current 12, stale)", "-> Conflict"} {
		if !strings.Contains(out, want) {
			t.Errorf("timeline lacks %q:\n%s", want, out)
		}
	}
}

// What a run logs may carry what differs between two runs of one plan
// (goroutine ids, addresses, the machine's source paths in a stack trace):
// none of it enters the hash, and everything else of the line still does.
func TestRunDependentLogValuesStayOutOfTheHash(t *testing.T) {
	panicLine := func(goroutine, addr, dir string) trace.Step {
		return trace.Step{At: time.Second, Process: "op", Controller: "app", Op: "log",
			Result: "ERROR Observed a panic panic=\"boom\" stacktrace=\"goroutine " + goroutine + " [running, synctest bubble " + goroutine + "]:\n" +
				"k8s.io/apimachinery/pkg/util/runtime.logPanic({0x" + addr + ", 0xc0001a2b3c}, {0x1d2e3f0, 0x2a4c5d0})\n\t" +
				dir + "/k8s.io/apimachinery@v0.35.0/pkg/util/runtime/runtime.go:132 +0x" + addr + "\ncreated by x in goroutine " + goroutine + "\""}
	}
	a := record([]trace.Step{panicLine("123", "4f", "/root/go/pkg/mod")})
	b := record([]trace.Step{panicLine("98", "1c5", "/home/ci/go/pkg/mod")})
	if a.Hash() != b.Hash() {
		t.Errorf("two runs logging one panic from different goroutines, addresses and module directories hash apart:\n%s\n%s",
			a.Steps()[0].Canonical(), b.Steps()[0].Canonical())
	}
	if got := b.Steps()[0].String(); !strings.Contains(got, "goroutine 98") {
		t.Errorf("the timeline keeps the line as logged, got %s", got)
	}
	other := panicLine("123", "4f", "/root/go/pkg/mod")
	other.Result = strings.Replace(other.Result, "boom", "bang", 1)
	if record([]trace.Step{other}).Hash() == a.Hash() {
		t.Error("another panic value must change the hash")
	}
	moved := panicLine("123", "4f", "/root/go/pkg/mod")
	moved.Result = strings.Replace(moved.Result, "runtime.go:132", "runtime.go:133", 1)
	if record([]trace.Step{moved}).Hash() == a.Hash() {
		t.Error("another source line must change the hash")
	}
	if got := trace.RunIndependent("plain line count=3"); got != "plain line count=3" {
		t.Errorf("a line with nothing run-dependent changed: %q", got)
	}
	const quoted = `stacktrace="goroutine 7 [running]:\nmain.f(0xc000012345)\n\t/home/u/src/app/main.go:12 +0x1d\n"`
	if got, want := trace.RunIndependent(quoted), `stacktrace="goroutine N [running]:\nmain.f(0x?)\n\tmain.go:12 +0x?\n"`; got != want {
		t.Errorf("a quoted stack trace:\n got %s\nwant %s", got, want)
	}
}

// A read's line says what it returned against what was current; a write that
// deleted its object says so.
func TestAReadSaysWhatItReturnedAgainstWhatWasCurrent(t *testing.T) {
	for _, c := range []struct {
		s     trace.Step
		want  string
		stale bool
	}{
		{trace.Step{Op: "cached-list", Object: "ConfigMap default/*", RVSeen: 5, RVCurrent: 7, Result: "ok"}, "cached-list ConfigMap default/* 0 items cache at rv=5 (current 7, stale) -> ok", true},
		{trace.Step{Op: "cached-list", Object: "ConfigMap default/*", Items: 1, RVSeen: 7, RVCurrent: 7, Result: "ok"}, "cached-list ConfigMap default/* 1 item cache at rv=7 -> ok", false},
		{trace.Step{Op: "list", Object: "ConfigMap default/*", Items: 2, Result: "ok"}, "list       ConfigMap default/* 2 items -> ok", false},
		{trace.Step{Op: "cached-get", Object: "ConfigMap default/y", RVCurrent: 7, Result: "NotFound"}, "cached-get ConfigMap default/y (current rv=7, stale) -> NotFound", true},
		{trace.Step{Op: "cached-get", Object: "ConfigMap default/y", RVSeen: 6, Result: "ok"}, "cached-get ConfigMap default/y rv=6 (current: none, stale) -> ok", true},
		{trace.Step{Op: "cached-get", Object: "ConfigMap default/y", RVSeen: 6, RVCurrent: 7, Result: "ok"}, "cached-get ConfigMap default/y rv=6 (current 7, stale) -> ok", true},
		{trace.Step{Op: "update", Object: "ConfigMap default/y", RVSeen: 6, RVCurrent: 6, RVWritten: 6, Digest: trace.DigestDeleted, Result: "ok"}, "update     ConfigMap default/y rv=6 deleted it (its last finalizer removed) -> ok", false},
	} {
		if got := c.s.String(); !strings.HasSuffix(got, c.want) {
			t.Errorf("String() = %q, want it to end %q", got, c.want)
		}
		if c.s.Stale() != c.stale {
			t.Errorf("%s: Stale() = %v, want %v", c.want, c.s.Stale(), c.stale)
		}
	}
	if del := (trace.Step{Op: "update", Digest: trace.DigestDeleted, Result: "ok"}); !del.Deletes() {
		t.Error("a finalizer release does not count as a deletion")
	}
}
