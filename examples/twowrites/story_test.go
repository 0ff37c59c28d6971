package twowrites_test

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest"
)

// The failure of a generic oracle (converges) tells its story: the picture's
// numbered steps, in time order, include the crash between the two writes
// that caused it and the last reconcile, after the restart, that never made
// the second Secret; the picture says in words that the fault-free run
// created it and this run never did, and draws a lane for the Secret this
// run never had.
func TestTheFailurePictureNumbersTheCrashThatCausedIt(t *testing.T) {
	o := options(false)
	o.Seed = 1
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught {
		t.Fatalf("the buggy operator was not caught: %+v", res)
	}
	r, err := operatortest.Replay(t, options(false), res.Minimal)
	if err != nil {
		t.Fatal(err)
	}
	svgPath, _, err := r.WriteStory(filepath.Join(t.TempDir(), "minimal.plan"), "twowrites")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(svgPath)
	if err != nil {
		t.Fatal(err)
	}
	steps := numberedSteps(t, string(b))
	for _, want := range []string{"configmap creates ", "crash: crash after write 1 (create)", "restart: incarnation 2",
		"r1 of shop/web, the last: never creates Secret shop/web-credentials"} {
		found := false
		for _, s := range steps {
			found = found || strings.Contains(s, want)
		}
		if !found {
			t.Errorf("the picture's numbered steps do not include %q (plan:\n%s):\n%s", want, res.Minimal, strings.Join(steps, "\n"))
		}
	}
	for _, want := range []string{">Secret shop/web-credentials<", ">object: this run never made it<", ">never created in this run<",
		"what this run never did: Secret shop/web-credentials: the fault-free run of the same workload created it at "} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the picture lacks %q (plan:\n%s)", want, res.Minimal)
		}
	}
}

// numberedSteps are the lines of a picture's "The violation, step by step",
// checked to be numbered ①, ②, ... ⑩, (11), ... in time order.
func numberedSteps(t *testing.T, svg string) []string {
	t.Helper()
	var out []string
	var prev time.Duration
	for n, m := range regexp.MustCompile(`xml:space="preserve">([①-⑩]|\(\d+\)) +([^ ]+) ([^<]*)<`).FindAllStringSubmatch(svg, -1) {
		if want := stepNumber(n + 1); m[1] != want {
			t.Errorf("step %d is numbered %s", n+1, m[1])
		}
		at, err := time.ParseDuration(m[2])
		if err != nil {
			t.Fatalf("step %s: time %q: %v", m[1], m[2], err)
		}
		if at < prev {
			t.Errorf("step %s at %v comes after a later one (%v)", m[1], at, prev)
		}
		prev = at
		out = append(out, m[0])
	}
	if len(out) == 0 {
		t.Error("the picture numbers no step of the violation")
	}
	return out
}

// stepNumber is how the picture numbers its n-th step: ① to ⑩, then (11).
func stepNumber(n int) string {
	if n <= 10 {
		return string(rune('①' + n - 1))
	}
	return fmt.Sprintf("(%d)", n)
}
