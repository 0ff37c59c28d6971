package lint

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"
)

// lintModule writes files as a module example.com/m in a temporary
// directory (with the packages loadSim loads besides sim/) and returns
// lintRepository's violations of the rules named.
func lintModule(t *testing.T, files map[string]string, rules ...string) []violation {
	t.Helper()
	root := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for _, d := range sameBytes {
		files[d+"/"+path.Base(d)+".go"] = "package " + path.Base(d) + "\n"
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	vs, _, err := lintRepository(root, "example.com/m", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	var out []violation
	for _, v := range vs {
		if slices.Contains(rules, v.rule) {
			out = append(out, v)
		}
	}
	return out
}

const mapRange = "\n\nfunc F(m map[string]int) (n int) {\n\tfor k := range m {\n\t\tn += len(k)\n\t}\n\treturn n\n}\n"

func TestMapOrderIsCheckedUnderSimOnly(t *testing.T) {
	vs := lintModule(t, map[string]string{
		"sim/k/doc.go":       "// Package k.\n//\n// Known gaps: none.\npackage k\n",
		"sim/k/k.go":         "package k" + mapRange,
		"models/m.go":        "package models" + mapRange,
		"controllers/c/c.go": "package c" + mapRange,
	}, ruleMapOrder)
	if len(vs) != 1 || vs[0].pos.Filename != "sim/k/k.go" {
		t.Errorf("map-order violations:\n%swant one, in sim/k/k.go (models/ and controllers/ are not checked)", join(vs))
	}
}

func TestTheRootPackageSimNeedsNoDocGo(t *testing.T) {
	vs := lintModule(t, map[string]string{
		"sim/sim.go":   "package sim\n",
		"sim/k/k.go":   "package k\n",
		"sim/k/doc.go": "// Package k.\npackage k\n",
	}, ruleKnownGaps)
	if len(vs) != 1 || vs[0].pos.Filename != "sim/k/doc.go" {
		t.Errorf("known-gaps violations:\n%swant one, sim/k's (sim itself has no doc.go and is not asked for one)", join(vs))
	}
}

func TestAMapIsSeenOnlyAsTheMapTypeOfARangeStatement(t *testing.T) {
	const src = `package x

import (
	"maps"
	"reflect"
	"slices"
)

func f[M ~map[string]int](m M) (n int) {
	for k := range m {
		n += len(k)
	}
	return n
}

func g(m map[string]int) []string {
	var out []string
	for _, k := range reflect.ValueOf(m).MapKeys() {
		out = append(out, k.String())
	}
	return append(out, slices.Collect(maps.Keys(m))...)
}
`
	fset, f, info := snippet(t, src, true)
	if vs := checkMapRange(fset, f, info); len(vs) != 0 {
		t.Errorf("map-order flags a type parameter's range or a map's order leaked without one:\n%s", join(vs))
	}
}

func TestWallClockCallsAreSeenInTheFileOnly(t *testing.T) {
	const typed = `package x

import (
	"context"
	"time"
)

func f(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, time.Second)
}
`
	fset, f, info := snippet(t, typed, true)
	if vs := checkClockAndRand(fset, f, info); len(vs) != 0 {
		t.Errorf("context.WithTimeout (which reads the wall clock) is flagged:\n%s", join(vs))
	}
	const helper = `package x

import "example.com/m/clockhelp"

var now = clockhelp.Now()
`
	fset, f, _ = snippet(t, helper, false)
	if vs := checkClockAndRand(fset, f, nil); len(vs) != 0 {
		t.Errorf("a helper package's call is flagged:\n%s", join(vs))
	}
}

func TestTrackerCitationsInStringsOrAfterAHyphenatedWordPass(t *testing.T) {
	const src = `// Package x.
//
// The long-standing issue 31 is ours.
package x

var note = "fixed in issue 31"
`
	vs, err := goCommentCitations("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 0 {
		t.Errorf("tracker-issue flags a string or a citation after a hyphenated word:\n%s", join(vs))
	}
}

func TestATrackerCitationWrappedBeforeItsNumberPasses(t *testing.T) {
	const src = `// Package x.
//
// As asked in a comment (issue
// 53), and as issue 54 says. // want
package x
`
	vs, err := goCommentCitations("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	expect(t, vs, ruleTracker, wantLines(src))
}
