package lint

import (
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// ruleLinks is the rule a markdown link that leaves the clone, or names a file
// the clone does not have, breaks.
const ruleLinks = "links"

// mdLink finds the target of an inline link or image, [text](target) or
// ![alt](target "title"), and of a reference definition, [name]: target.
var (
	mdLink   = regexp.MustCompile(`\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)`)
	mdRefDef = regexp.MustCompile(`^\s{0,3}\[[^\]]+\]:\s+<?([^\s>]+)>?`)
	mdCode   = regexp.MustCompile("`+[^`]*`+")
	// urlScheme starts a web or mailto: address, which the rule leaves alone.
	urlScheme = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9+.-]*:`)
)

// checkLinks checks the links of one markdown file, at rel (slash-separated,
// relative to the root) in a clone whose files are tracked: every link is to a
// web address, to an anchor, or to a path that stays inside the clone and names
// a tracked file or a directory holding one. Fenced code blocks and code spans
// are not links.
func checkLinks(rel string, text []byte, tracked map[string]bool) []violation {
	var out []violation
	fenced := false
	for i, line := range strings.Split(string(text), "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = mdCode.ReplaceAllString(line, "")
		var targets []string
		for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
			targets = append(targets, m[1])
		}
		if m := mdRefDef.FindStringSubmatch(line); m != nil {
			targets = append(targets, m[1])
		}
		for _, target := range targets {
			if msg := badLink(rel, target, tracked); msg != "" {
				out = append(out, violation{pos: token.Position{Filename: rel, Line: i + 1}, rule: ruleLinks, msg: msg})
			}
		}
	}
	return out
}

// badLink says what is wrong with one link target of the file rel, or "".
func badLink(rel, target string, tracked map[string]bool) string {
	if strings.HasPrefix(target, "#") || urlScheme.MatchString(target) {
		return "" // an anchor in the page, or a web (or mailto:) address
	}
	p := target
	if i := strings.IndexAny(p, "#?"); i >= 0 {
		p = p[:i]
	}
	if strings.HasPrefix(p, "/") {
		return "link to " + target + ": an absolute path, outside the clone (link relative to " + rel + ")"
	}
	joined := path.Join(path.Dir(rel), p)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return "link to " + target + " leaves the clone: bring what it links to into the repository (docs/)"
	}
	if tracked[joined] {
		return ""
	}
	for f := range tracked { // lint:order-independent only asks whether any file is below
		if strings.HasPrefix(f, joined+"/") || joined == "." {
			return ""
		}
	}
	return "link to " + target + ": no tracked file " + joined
}

// TestMarkdownLinksStayInTheClone fails on a tracked markdown file's link that
// leaves the clone (../shared/..., an absolute path) or names a file the clone
// does not track: a clone must carry what its documents link to.
func TestMarkdownLinksStayInTheClone(t *testing.T) {
	root, names := trackedFiles(t)
	tracked := map[string]bool{}
	var docs []string
	for _, name := range names {
		if _, err := os.Lstat(filepath.Join(root, name)); err != nil {
			continue // deleted in the work tree
		}
		tracked[name] = true
		if strings.HasSuffix(name, ".md") {
			docs = append(docs, name)
		}
	}
	if len(docs) == 0 {
		t.Fatal("no tracked markdown file: the walk is broken (README.md at least)")
	}
	for _, name := range docs {
		text, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range checkLinks(name, text, tracked) {
			t.Error(v)
		}
	}
}

func TestLinksRuleFlagsLinksOutOfTheCloneAndToMissingFiles(t *testing.T) {
	tracked := map[string]bool{"README.md": true, "docs/design.md": true, "docs/seeds/000_x.txt": true,
		"reports/index.md": true, "reports/a/page.md": true, "reports/a/pic.svg": true}
	page := strings.Join([]string{
		"# a",                                // 1
		"[seed](../../docs/seeds/000_x.txt)", // 2 fine
		"[seed](../../../shared/seeds/000_x.txt)",                                   // 3 leaves
		"![pic](pic.svg) and [index](../index.md#top)",                              // 4 fine
		"[gone](missing.plan)",                                                      // 5 missing
		"[web](https://example.com/a) [anchor](#outcomes) [dir](../../docs/seeds/)", // 6 fine
		"`[not a link](../../../x)`",                                                // 7 code span
		"```",                                                                       // 8
		"[in a fence](/etc/passwd)",                                                 // 9
		"```",                                                                       // 10
		"[abs](/work/shared/DESIGN.md)",                                             // 11 absolute
		"[ref]: ../../../shared/SEEDS.md",                                           // 12 reference definition, leaves
		`[t](../../docs/design.md "the design")`,                                    // 13 fine
	}, "\n")
	vs := checkLinks("reports/a/page.md", []byte(page), tracked)
	var lines []int
	for _, v := range vs {
		if v.rule != ruleLinks {
			t.Errorf("rule %q, want %q", v.rule, ruleLinks)
		}
		lines = append(lines, v.pos.Line)
	}
	if want := []int{3, 5, 11, 12}; !slices.Equal(lines, want) {
		t.Errorf("flagged lines %v, want %v:\n%s", lines, want, join(vs))
	}
}
