package lint

import (
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
)

// ruleGapTests is the rule a Known-gaps item breaks when it names no test
// that shows the gap, or names one that does not exist.
const ruleGapTests = "gap-tests"

// gapTestName finds a test named in an item: TestX, or pkg/path.TestX for a
// test of another package (its directory from the module root: sim/process,
// wallclock).
var gapTestName = regexp.MustCompile(`(?:\b([a-z][a-z0-9_-]*(?:/[a-z0-9_-]+)*)\.)?\b(Test[A-Z0-9_][A-Za-z0-9_]*)`)

// testFunc finds the test functions a _test.go file declares.
var testFunc = regexp.MustCompile(`(?m)^func (Test[A-Za-z0-9_]*)\(`)

// A gapItem is one item of a Known-gaps list: its text, lines joined, and
// the line it starts on.
type gapItem struct {
	line int
	text string
}

// knownGapItems returns the items of src's Known-gaps section: it starts at a
// comment line "# Known gaps" (or one starting "Known gaps:") and ends at the
// next heading or the first line that is no comment; an item starts with
// "//   - " and goes on over lines indented further, up to a blank comment line
// or the next item. found reports whether there is such a section.
func knownGapItems(src []byte) (items []gapItem, found bool) {
	in := false
	cur := -1 // index in items of the item being read, or -1
	for i, line := range strings.Split(string(src), "\n") {
		text, isComment := strings.CutPrefix(line, "//")
		trimmed := strings.TrimSpace(text)
		if !in {
			if isComment && (trimmed == "# Known gaps" || strings.HasPrefix(trimmed, "Known gaps:")) {
				in, found = true, true
			}
			continue
		}
		if !isComment || strings.HasPrefix(trimmed, "# ") {
			break
		}
		switch {
		case strings.HasPrefix(text, "   - "):
			items = append(items, gapItem{line: i + 1, text: strings.TrimSpace(text[len("   - "):])})
			cur = len(items) - 1
		case cur >= 0 && strings.HasPrefix(text, "    ") && trimmed != "":
			items[cur].text += " " + trimmed
		default:
			cur = -1
		}
	}
	return items, found
}

// testFuncs returns the names of the tests declared in dir's _test.go files.
func testFuncs(fsys fs.FS, dir string) (map[string]bool, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		src, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		for _, m := range testFunc.FindAllSubmatch(src, -1) {
			names[string(m[1])] = true
		}
	}
	return names, nil
}

// firstWords is the start of an item, to name it in a violation.
func firstWords(text string) string {
	fs := strings.Fields(text)
	if len(fs) > 6 {
		return strings.Join(fs[:6], " ") + " ..."
	}
	return strings.Join(fs, " ")
}

// checkGapTests enforces gap-tests on the package in directory dir of fsys:
// every item of its doc.go's Known-gaps section names a test (TestX, or
// pkg/path.TestX for another package's), and every test it names is a func
// of a _test.go file of that package.
func checkGapTests(fsys fs.FS, dir string) []violation {
	doc := path.Join(dir, "doc.go")
	src, err := fs.ReadFile(fsys, doc)
	if err != nil {
		return []violation{{pos: token.Position{Filename: doc}, rule: ruleGapTests, msg: err.Error()}}
	}
	items, found := knownGapItems(src)
	if !found {
		return []violation{{pos: token.Position{Filename: doc, Line: 1}, rule: ruleGapTests,
			msg: "doc.go has no \"# Known gaps\" section"}}
	}
	tests := map[string]map[string]bool{} // by package directory
	var out []violation
	for _, it := range items {
		bad := func(format string, args ...any) {
			out = append(out, violation{pos: token.Position{Filename: doc, Line: it.line}, rule: ruleGapTests,
				msg: fmt.Sprintf("%q: ", firstWords(it.text)) + fmt.Sprintf(format, args...)})
		}
		ms := gapTestName.FindAllStringSubmatch(it.text, -1)
		if len(ms) == 0 {
			bad("names no test: name the test that shows the gap (TestX of %s's tests, or pkg/path.TestX), writing one if none does", dir)
			continue
		}
		for _, m := range ms {
			pkg, name := m[1], m[2]
			if pkg == "" {
				pkg = dir
			}
			if tests[pkg] == nil {
				names, err := testFuncs(fsys, pkg)
				if err != nil {
					bad("names %s.%s: %v", pkg, name, err)
					continue
				}
				tests[pkg] = names
			}
			if !tests[pkg][name] {
				bad("names %s, which is no func in %s's _test.go files", name, pkg)
			}
		}
	}
	return out
}

// TestKnownGapsNameTheirTests checks the gap-tests rule on every package
// of the module with a doc.go.
func TestKnownGapsNameTheirTests(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, _, err := moduleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	files, err := goFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(root)
	held := 0
	for _, f := range files {
		if path.Base(f) != "doc.go" {
			continue
		}
		held++
		for _, v := range checkGapTests(fsys, path.Dir(f)) {
			t.Error(v)
		}
	}
	if held < 100 {
		t.Errorf("%d packages with a doc.go found under %s: the walk missed the module's packages", held, root)
	}
}

func TestGapTestsRule(t *testing.T) {
	const doc = `// Package a.
//
// # Contract
//
//   - TestNothing here is no gap.
//
// # Known gaps
//
//   - Every process reads the same Now
//     (TestEveryProcessReadsTheSameNow).
//   - Ticks fire one by one.
//   - TestGone shows it.
//   - Wrapped, with the name on a later
//     line and other packages' tests: sim/b.TestB, top.TestT.
//   - Another package's missing test: sim/b.TestA.
//   - A test of a package that does not exist: sim/c.TestA.
//
// Prose after the list names no test.
//
// # Later
//
//   - Not a gap.
package a
`
	fsys := fstest.MapFS{
		"sim/a/doc.go":    {Data: []byte(doc)},
		"sim/a/a_test.go": {Data: []byte("package a\n\nfunc TestEveryProcessReadsTheSameNow(t *testing.T) {}\n\nfunc helperTestGone() {}\n")},
		"sim/b/b_test.go": {Data: []byte("package b_test\n\nfunc TestB(t *testing.T) {}\n")},
		"sim/n/doc.go":    {Data: []byte("// Package n.\npackage n\n")},
		"top/t_test.go":   {Data: []byte("package top\n\nfunc TestT(t *testing.T) {}\n")},
	}
	const hint = "name the test that shows the gap (TestX of sim/a's tests, or pkg/path.TestX), writing one if none does"
	expectViolations(t, checkGapTests(fsys, "sim/a"), []string{
		`sim/a/doc.go:11: gap-tests: "Ticks fire one by one.": names no test: ` + hint,
		`sim/a/doc.go:12: gap-tests: "TestGone shows it.": names TestGone, which is no func in sim/a's _test.go files`,
		`sim/a/doc.go:15: gap-tests: "Another package's missing test: sim/b.TestA.": names TestA, which is no func in sim/b's _test.go files`,
		`sim/a/doc.go:16: gap-tests: "A test of a package that ...": names sim/c.TestA: open sim/c: file does not exist`,
	})
	expectViolations(t, checkGapTests(fsys, "sim/n"), []string{`sim/n/doc.go:1: gap-tests: doc.go has no "# Known gaps" section`})
	if vs := checkGapTests(fsys, "sim/none"); len(vs) != 1 {
		t.Errorf("missing package: got %v, want one violation", vs)
	}
}
