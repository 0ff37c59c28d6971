package lint

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ruleTracker is the rule a comment or document breaks when it cites an issue
// of this repository's tracker by number, which a reader of a clone cannot
// open.
const ruleTracker = "tracker-issue"

// issueCite finds "issue 31", "issues 27", "Issue #1296".
var issueCite = regexp.MustCompile(`(?i)\bissues?\s+#?[0-9]+`)

// upstreamName reports whether word, the word just before "issue N", names
// the project the issue is upstream's: a possessive ("zookeeper-operator's
// issue 314", "Helm's issue 2941") other than ctrlsim's, or a repository or
// project name with a slash or a hyphen ("operator-controller issue #994",
// "kubernetes/kubernetes issue 1").
func upstreamName(word string) bool {
	word = strings.TrimLeft(word, "([\"'`*")
	for _, s := range []string{"'s", "’s"} {
		if name, ok := strings.CutSuffix(word, s); ok {
			return name != "" && !strings.EqualFold(name, "ctrlsim")
		}
	}
	return strings.ContainsAny(word, "/-") && !strings.EqualFold(word, "ctrlsim")
}

// checkCitations checks text lines (a comment group's, or a document's),
// lines[i] being line lineNos[i] of file: each "issue N" must name its
// upstream project just before it (upstreamName), or stand inside a
// quotation on its line (upstream's own words quoted). The word before may be
// on the line before, as a comment wraps.
func checkCitations(file string, lines []string, lineNos []int) []violation {
	var out []violation
	prev := "" // the last word of the lines before
	for i, line := range lines {
		for _, m := range issueCite.FindAllStringIndex(line, -1) {
			before := line[:m[0]]
			word := prev
			if fs := strings.Fields(before); len(fs) > 0 {
				word = fs[len(fs)-1] // in "(issue 31" the word is "("
			}
			if upstreamName(word) || strings.Count(before, `"`)%2 == 1 {
				continue
			}
			out = append(out, violation{token.Position{Filename: file, Line: lineNos[i]}, ruleTracker,
				"cites this repository's tracker (" + line[m[0]:m[1]] + "), which a reader of a clone cannot open: say in words what is meant " +
					"(an upstream issue names its project just before it: zookeeper-operator's issue 314, operator-controller issue #994)"})
		}
		if fs := strings.Fields(line); len(fs) > 0 {
			prev = fs[len(fs)-1]
		}
	}
	return out
}

// goCommentCitations checks the comments of one Go file.
func goCommentCitations(rel string, src []byte) ([]violation, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []violation
	for _, cg := range f.Comments {
		var lines []string
		var nos []int
		for _, c := range cg.List {
			text := c.Text
			if t, ok := strings.CutPrefix(text, "//"); ok {
				text = t
			} else {
				text = strings.TrimSuffix(strings.TrimPrefix(text, "/*"), "*/")
			}
			first := fset.Position(c.Slash).Line
			for i, l := range strings.Split(text, "\n") {
				lines = append(lines, l)
				nos = append(nos, first+i)
			}
		}
		out = append(out, checkCitations(rel, lines, nos)...)
	}
	return out, nil
}

// markdownCitations checks one markdown document.
func markdownCitations(rel string, text []byte) []violation {
	lines := strings.Split(string(text), "\n")
	nos := make([]int, len(lines))
	for i := range nos {
		nos[i] = i + 1
	}
	return checkCitations(rel, lines, nos)
}

// TestNoCommentCitesTheTracker fails on a Go comment or a markdown document
// (reports/, generated, aside) that cites this repository's tracker by
// number.
func TestNoCommentCitesTheTracker(t *testing.T) {
	root, names := trackedFiles(t)
	goNames, err := goFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range names {
		if strings.HasSuffix(name, ".md") && !strings.HasPrefix(name, "reports/") {
			goNames = append(goNames, name)
		}
	}
	for _, name := range goNames {
		src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			if os.IsNotExist(err) {
				continue // deleted in the work tree
			}
			t.Fatal(err)
		}
		var vs []violation
		if strings.HasSuffix(name, ".md") {
			vs = markdownCitations(name, src)
		} else if vs, err = goCommentCitations(name, src); err != nil {
			t.Logf("skipping %s: %v", name, err)
		}
		for _, v := range vs {
			t.Error(v)
		}
	}
}

func TestTrackerRuleTellsUpstreamCitationsApart(t *testing.T) {
	const src = `// Package x.
//
// Parallel exploration (issue 31). // want
// This is pravega/zookeeper-operator's
// issue 312, found by Sieve.
// pravega/zookeeper-operator's issue 314 too.
// Before issue 51 the lists were sorted. // want
// operator-controller issue #994 argues for it.
// Issue 27 ("verdicts an operator author can trust") saw fifteen. // want
// ctrlsim's issue 12 is ours. // want
package x

func f() {
	/* The five patterns of
	   issue 45 stand for traps. */ // want
	for range 3 { // "Supersede all previous deployments, see issue #2941."
	}
	_ = "issue 31 in a string is not a comment"
}
`
	vs, err := goCommentCitations("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	expect(t, vs, ruleTracker, wantLines(src))
	if len(vs) > 0 && !strings.HasPrefix(vs[0].String(), "x.go:3: tracker-issue: cites this repository's tracker (issue 31)") {
		t.Errorf("message: %v", vs[0])
	}
	md := "# Doc\n\nThe targets of issue 31.\n\n* operator-controller issue #1296: \"Binary restarts\"\n* helm-operator-plugins issue #203.\n"
	expect(t, markdownCitations("d.md", []byte(md)), ruleTracker, []int{3})
}
