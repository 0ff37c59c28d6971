package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// A docText is a piece of a markdown document that may hold a command: one
// line of a fenced block (its continuation lines joined), or one code span.
type docText struct {
	file string
	line int // 1-based, where the text starts
	text string
	span bool // a code span (else a line of a fenced block)
}

// docTexts reads the fenced blocks' lines (shell comments cut; a block
// marked ```text, a tree or prose, left out) and the code spans of a
// markdown file.
func docTexts(file string, src []byte) []docText {
	var out []docText
	lines := strings.Split(string(src), "\n")
	fenced, skip, pending, start := false, false, "", 0
	var prose []string // the lines of the current run of text outside fences
	proseStart := 0
	flushProse := func() {
		text := strings.Join(prose, "\n")
		for _, m := range codeSpan.FindAllStringSubmatchIndex(text, -1) {
			line := proseStart + strings.Count(text[:m[0]], "\n")
			out = append(out, docText{file: file, line: line, text: strings.ReplaceAll(text[m[2]:m[3]], "\n", " "), span: true})
		}
		prose = nil
	}
	for i, line := range lines {
		n := i + 1
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			if !fenced {
				flushProse()
				skip = strings.TrimLeft(t, "`~") == "text" // a tree or prose, no command
			}
			fenced, pending = !fenced, ""
			continue
		}
		if !fenced {
			if len(prose) == 0 {
				proseStart = n
			}
			prose = append(prose, line)
			continue
		}
		if skip {
			continue
		}
		if pending == "" {
			start = n
		}
		line = cutComment(line)
		if cont, ok := strings.CutSuffix(strings.TrimRight(line, " "), `\`); ok {
			pending += strings.TrimSpace(cont) + " "
			continue
		}
		out = append(out, docText{file: file, line: start, text: pending + strings.TrimSpace(line)})
		pending = ""
	}
	flushProse()
	return out
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// ctrlsimStart finds where a text names the command: `go run ./cmd/ctrlsim`,
// `go run github.com/ctrlsim/ctrlsim/cmd/ctrlsim`, `go tool ctrlsim` or
// `ctrlsim`, at the start of the text or after a space or parenthesis.
var ctrlsimStart = regexp.MustCompile(`(?:^|[\s(])(?:go run \./cmd/ctrlsim|go run github\.com/ctrlsim/ctrlsim/cmd/ctrlsim|go tool ctrlsim|ctrlsim)(?:\s+|$)`)

// A command starts a span or a fenced line (after a shell prompt or a YAML
// `- run:`), with environment assignments before it.
var commandStart = regexp.MustCompile(`^\s*(?:\$\s+|-?\s*run:\s+)?((?:[A-Z_][A-Z0-9_]*=\S*\s+)*)(make|go)(?:\s+|$)`)

// docEnv is what the commands a doc shows are checked against.
type docEnv struct {
	repo    string
	targets map[string]bool // the Makefile's
}

// subcommands are the command's, as run dispatches them.
var subcommands = []string{"list", "run", "merge", "replay", "catalogue", "bench", "report", "scaffold"}

// errDocCheck ends a command once its flags are parsed (afterFlags).
var errDocCheck = errors.New("flags parsed (doc check)")

// checkDocText returns what is wrong with the commands of one text: a
// ctrlsim subcommand or flag the command does not accept, a make target the
// Makefile lacks, a go test (vet, build, doc, list) of a package the
// repository lacks, a -ctrlsim.* test flag operatortest does not define, or
// a -run of a test the package does not define. n counts the commands checked.
func (e *docEnv) checkDocText(d docText, n *docCounts) []string {
	var bad []string
	where := fmt.Sprintf("%s:%d", d.file, d.line)
	text := ghaExpr.ReplaceAllString(d.text, "X")
	for pos := 0; pos < len(text); {
		loc := ctrlsimStart.FindStringIndex(text[pos:])
		if loc == nil {
			break
		}
		rest := text[pos+loc[1]:]
		words, used, err := shellWords(rest)
		pos += loc[1] + max(used, 1)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %q: %v", where, d.text, err))
			continue
		}
		if len(words) == 0 {
			continue // the command named, not run
		}
		if words[0] == "-h" || words[0] == "--help" || words[0] == "help" {
			n.ctrlsim++
			continue
		}
		if notCommand(d.text) {
			continue
		}
		if !slices.Contains(subcommands, words[0]) {
			bad = append(bad, fmt.Sprintf("%s: %q: ctrlsim has no command %q (want one of %s)", where, d.text, words[0], strings.Join(subcommands, ", ")))
			continue
		}
		for _, form := range synopsisForms(words) {
			if msg := parseOnly(form); msg != "" {
				bad = append(bad, fmt.Sprintf("%s: %q: ctrlsim %s: %s", where, d.text, strings.Join(form, " "), msg))
			}
		}
		n.ctrlsim++
	}
	m := commandStart.FindStringSubmatchIndex(text)
	if m == nil {
		return bad
	}
	words, _, err := shellWords(text[m[1]:])
	if err != nil {
		return append(bad, fmt.Sprintf("%s: %q: %v", where, d.text, err))
	}
	switch text[m[4]:m[5]] {
	case "make":
		for _, w := range words {
			if strings.Contains(w, "=") || strings.HasPrefix(w, "-") {
				continue
			}
			if !e.targets[w] {
				bad = append(bad, fmt.Sprintf("%s: %q: the Makefile has no target %q", where, d.text, w))
			}
			n.make++
		}
	case "go":
		if len(words) > 0 && slices.Contains([]string{"test", "vet", "build", "doc", "list"}, words[0]) {
			bad = append(bad, e.checkGo(where, d.text, words, n)...)
		}
	}
	return bad
}

type docCounts struct{ ctrlsim, make, pkgs int }

// notCommands are texts the docs show that name ctrlsim and are not command
// lines: what the command prints, each checked against its source.
var notCommands = map[string]string{
	"--- ctrlsim json begin ---": "shard.go", // the markers of run --json-markers
	"--- ctrlsim json end ---":   "shard.go",
}

func notCommand(text string) bool { _, ok := notCommands[text]; return ok }

// ghaExpr is a GitHub Actions expression (${{ matrix.shard }}): one word.
var ghaExpr = regexp.MustCompile(`\$\{\{[^}]*\}\}`)

var testName = regexp.MustCompile(`^\^?((?:Test|Example|Fuzz|Benchmark)\w*)\$?$`)

// checkGo checks a go test (vet, build, doc, list) command's package paths,
// its -ctrlsim.* flags and its -run test.
func (e *docEnv) checkGo(where, text string, words []string, n *docCounts) []string {
	var bad []string
	var pkgs []string
	run := ""
	for i := 1; i < len(words); i++ {
		w := words[i]
		switch {
		case w == "." || strings.HasPrefix(w, "./"):
			dir := strings.TrimSuffix(strings.TrimSuffix(w, "..."), "/")
			if !hasGoFiles(filepath.Join(e.repo, dir), strings.HasSuffix(w, "...")) {
				bad = append(bad, fmt.Sprintf("%s: %q: no Go package %s in the repository", where, text, w))
			}
			pkgs = append(pkgs, dir)
			n.pkgs++
		case strings.HasPrefix(w, "-ctrlsim."):
			name, _, _ := strings.Cut(strings.TrimPrefix(w, "-"), "=")
			if flag.Lookup(name) == nil {
				bad = append(bad, fmt.Sprintf("%s: %q: operatortest defines no test flag -%s", where, text, name))
			}
		case w == "-run" && i+1 < len(words):
			run = words[i+1]
		case strings.HasPrefix(w, "-run="):
			run = strings.TrimPrefix(w, "-run=")
		}
	}
	if m := testName.FindStringSubmatch(run); m != nil && words[0] == "test" && len(pkgs) == 1 && !strings.HasSuffix(pkgs[0], "...") {
		if !definesTest(filepath.Join(e.repo, pkgs[0]), m[1]) {
			bad = append(bad, fmt.Sprintf("%s: %q: package %s defines no %s", where, text, pkgs[0], m[1]))
		}
	}
	return bad
}

// hasGoFiles reports whether dir holds a .go file (or, with below, dir or a
// directory under it does).
func hasGoFiles(dir string, below bool) bool {
	found := false
	_ = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || found {
			return filepath.SkipAll
		}
		if d.IsDir() && path != dir && !below {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			found = true
		}
		return nil
	})
	return found
}

func definesTest(dir, name string) bool {
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte("func "+name+"(")) {
			return true
		}
	}
	return false
}

// parseOnly runs the command's flag parsing on args (a subcommand and its
// arguments) and stops it there: "" when they parse, else the command's one
// line.
func parseOnly(args []string) string {
	parsed := 0
	afterFlags = func() error { parsed++; return errDocCheck }
	defer func() { afterFlags = nil }()
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	switch {
	case code == 0 && slices.ContainsFunc(args, isHelp):
		return ""
	case code == 1 && parsed == 1 && strings.Contains(stderr.String(), errDocCheck.Error()):
		return ""
	default:
		return fmt.Sprintf("exit %d: %s", code, strings.TrimSpace(stderr.String()))
	}
}

func isHelp(a string) bool { return a == "-h" || a == "--help" || a == "-help" }

// placeholders are the values a synopsis writes for a number: a value
// the flag parses stands for them.
var placeholders = map[string]string{"N": "1", "S": "1", "I/N": "1/1"}

// synopsisForms expands a synopsis, `run [--entry GLOB] [--shard I/N |
// --shards-of-indexed-job N]` or `replay (--plan FILE | --plan-text TEXT)`,
// into the command lines it stands for: each optional group left out and put
// in, each alternative of a group in turn; placeholders for numbers become
// numbers. A plain command line is its own one form. An elision (...) ends
// the line.
func synopsisForms(words []string) [][]string {
	forms := [][]string{{}}
	for i := 0; i < len(words); i++ {
		w := words[i]
		if w == "..." {
			break
		}
		open := strings.TrimLeft(w, "[(")
		if open == w {
			for k := range forms {
				forms[k] = append(forms[k], placeholder(w))
			}
			continue
		}
		optional := strings.HasPrefix(w, "[")
		// The group: words up to the one that closes it, split at |.
		var alts [][]string
		cur := []string{}
		for j := i; j < len(words); j++ {
			g := words[j]
			if j == i {
				g = open
			}
			closed := strings.HasSuffix(g, "]") || strings.HasSuffix(g, ")")
			g = strings.TrimRight(g, "])")
			switch {
			case g == "|":
				alts, cur = append(alts, cur), []string{}
			case g != "":
				cur = append(cur, placeholder(g))
			}
			if closed || j == len(words)-1 {
				alts = append(alts, cur)
				i = j
				break
			}
		}
		if optional {
			alts = append(alts, nil)
		}
		var next [][]string
		for _, f := range forms {
			for _, a := range alts {
				next = append(next, append(slices.Clone(f), a...))
			}
		}
		forms = next
	}
	return forms
}

func placeholder(w string) string {
	if v, ok := placeholders[w]; ok {
		return v
	}
	return w
}

// shellWords splits s into words as a POSIX shell does ('...', "...", $'...',
// backslashes), up to an unquoted operator (| ; & < >) or a comment; parentheses are
// words, as a synopsis writes them, and
// returns how many bytes it read.
func shellWords(s string) ([]string, int, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	i := 0
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			end()
		case strings.IndexByte("|;&<>\n", c) >= 0:
			end()
			return words, i, nil
		case c == '#' && !inWord:
			return words, i, nil
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case c == '$' && i+1 < len(s) && s[i+1] == '\'':
			j := i + 2
			for ; j < len(s) && s[j] != '\''; j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					cur.WriteString(map[byte]string{'n': "\n", 't': "\t", '\\': `\`, '\'': "'"}[s[j]])
					continue
				}
				cur.WriteByte(s[j])
			}
			if j == len(s) {
				return nil, len(s), errors.New("an unclosed $' quote")
			}
			i, inWord = j, true
		case c == '\'' || c == '"':
			j := strings.IndexByte(s[i+1:], c)
			if j < 0 {
				return nil, len(s), fmt.Errorf("an unclosed %c quote", c)
			}
			cur.WriteString(s[i+1 : i+1+j])
			i, inWord = i+1+j, true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	end()
	return words, i, nil
}

// makeTargets are the targets the Makefile defines.
func makeTargets(t *testing.T, repo string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repo, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	targets := map[string]bool{}
	for _, m := range makeRule.FindAllStringSubmatch(string(b), -1) {
		for _, name := range strings.Fields(m[1]) {
			targets[name] = true
		}
	}
	delete(targets, ".PHONY")
	if !targets["run"] || !targets["test"] {
		t.Fatalf("Makefile: found the targets %v, want run and test among them: the rule reader is broken", targets)
	}
	return targets
}

var makeRule = regexp.MustCompile(`(?m)^([A-Za-z0-9_.-]+(?:[ \t]+[A-Za-z0-9_.-]+)*)[ \t]*:(?:[^=]|$)`)

// docFiles are README.md and the pages of docs/.
func docFiles(t *testing.T, repo string) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repo, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs/*.md: %v, %d pages", err, len(pages))
	}
	return append([]string{filepath.Join(repo, "README.md")}, pages...)
}

// checkedDocs are docFiles and the examples' READMEs.
func checkedDocs(t *testing.T, repo string) []string {
	t.Helper()
	examples, err := filepath.Glob(filepath.Join(repo, "examples", "*", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append(docFiles(t, repo), examples...)
}

// Every command README.md, docs/*.md and the examples' READMEs show, in a
// fenced block or a code span, names what exists: each ctrlsim command line parses with the
// command's own flag parsing (run up to its flags, nothing explored), each
// make target is the Makefile's, each go test (vet, build, doc, list) names
// packages of the repository, test flags operatortest defines and a -run
// test the package defines. A doc edit that breaks a command, or a change of
// the command that leaves a doc behind, fails here, in well under a second.
func TestEveryCommandTheDocsShowNamesWhatExists(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	env := &docEnv{repo: repo, targets: makeTargets(t, repo)}
	for text, file := range notCommands { // lint:order-independent each is checked alone
		if b, err := os.ReadFile(file); err != nil || !bytes.Contains(b, []byte(text)) {
			t.Errorf("notCommands: %s does not print %q (%v): the docs show what the command no longer prints", file, text, err)
		}
	}
	var n docCounts
	for _, file := range checkedDocs(t, repo) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repo, file)
		for _, d := range docTexts(rel, src) {
			for _, msg := range env.checkDocText(d, &n) {
				t.Error(msg)
			}
		}
	}
	t.Logf("checked %d ctrlsim command lines, %d make targets, %d package paths", n.ctrlsim, n.make, n.pkgs)
	if n.ctrlsim < 20 || n.make < 10 || n.pkgs < 5 {
		t.Errorf("checked %d ctrlsim command lines, %d make targets and %d package paths: want at least 20, 10 and 5 (the docs show more: the reader is broken)", n.ctrlsim, n.make, n.pkgs)
	}
}

// The check catches what it is for: each bad line below is flagged, each good
// one is not.
func TestTheDocCheckFlagsCommandsThatDoNotExist(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	env := &docEnv{repo: repo, targets: makeTargets(t, repo)}
	for _, c := range []struct {
		text string
		bad  string // what the complaint says; "" for a good line
	}{
		{"go run ./cmd/ctrlsim run --entry 'canary/*' --checks 30", ""},
		{"ctrlsim replay --entry canary/stale-cache --variant buggy --plan-text $'seed 1\\ncrash process=op call=1\\n' --timeline", ""},
		{"ctrlsim run [--entry GLOB] [--checks N] [--shard I/N | --shards-of-indexed-job N] [--json]", ""},
		{"ctrlsim catalogue [--check]", ""},
		{"go tool ctrlsim scaffold --out x_test.go --force", ""},
		{"ctrlsim merge --json shard-*.json > merged.json", ""},
		{"- run: go run ./cmd/ctrlsim run --json --shard ${{ matrix.shard }}/4 > shard-${{ matrix.shard }}.json", ""},
		{"make run RUN_FLAGS=\"--entry 'canary/*'\"", ""},
		{"CTRLSIM_TWOWRITES=1 go test -run '^TestTheBuggyOperator$' -ctrlsim.plan=x.plan ./examples/twowrites/", ""},
		{"go test ./...", ""},
		{"ctrlsim explore --entry x", "ctrlsim has no command \"explore\""},
		{"go run ./cmd/ctrlsim run --entries 'canary/*'", "flag provided but not defined: -entries"},
		{"ctrlsim run --checks many", "invalid value \"many\""},
		{"ctrlsim list extra", "unexpected argument \"extra\""},
		{"ctrlsim catalogue [--chek]", "flag provided but not defined: -chek"},
		{"make rum", "no target \"rum\""},
		{"go test ./examples/nosuch/", "no Go package ./examples/nosuch/"},
		{"go test -ctrlsim.plans=x ./examples/twowrites/", "no test flag -ctrlsim.plans"},
		{"go test -run '^TestNoSuchTest$' ./examples/twowrites/", "defines no TestNoSuchTest"},
		{"ctrlsim run --entry 'canary/*", "unclosed ' quote"},
	} {
		var n docCounts
		msgs := env.checkDocText(docText{file: "doc.md", line: 1, text: c.text}, &n)
		switch {
		case c.bad == "" && len(msgs) > 0:
			t.Errorf("%q: flagged, want it to pass: %v", c.text, msgs)
		case c.bad != "" && (len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), c.bad)):
			t.Errorf("%q: %v, want a complaint saying %q", c.text, msgs, c.bad)
		case c.bad == "" && n.ctrlsim+n.make+n.pkgs == 0:
			t.Errorf("%q: nothing checked", c.text)
		}
	}
	// Code spans across lines and continuation lines of a fence are read whole.
	texts := docTexts("doc.md", []byte("see `ctrlsim run\n--json` and\n```sh\nctrlsim replay --entry x \\\n  --variant buggy\n```\n"))
	want := []docText{{file: "doc.md", line: 1, text: "ctrlsim run --json", span: true}, {file: "doc.md", line: 4, text: "ctrlsim replay --entry x --variant buggy"}}
	if !slices.Equal(texts, want) {
		t.Errorf("docTexts: %+v, want %+v", texts, want)
	}
}

// The README is what a newcomer reads before running anything: at most 200
// lines, a test of an operator (its first Go) within its first 60, and a link
// to every page of docs/, where the reference is.
func TestTheREADMEIsOneScreenThatLinksEveryPage(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(repo, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > 200 {
		t.Errorf("README.md has %d lines, want at most 200: move reference text to a page of docs/", len(lines))
	}
	if first := slices.Index(lines, "```go"); first < 0 || first >= 60 {
		t.Errorf("README.md's first Go block is at line %d, want it within the first 60 (-1: none)", first+1)
	}
	for _, page := range docFiles(t, repo)[1:] {
		rel, _ := filepath.Rel(repo, page)
		if !strings.Contains(string(b), "]("+filepath.ToSlash(rel)+")") {
			t.Errorf("README.md does not link %s: each page of docs/ is linked from its Read on", rel)
		}
	}
}

var (
	anchorLink = regexp.MustCompile(`\]\(([^)\s#]*)#([^)\s]+)\)`)
	heading    = regexp.MustCompile(`(?m)^#{1,6}\s+(.+?)\s*$`)
	notSlug    = regexp.MustCompile(`[^\p{L}\p{N} _-]`)
)

// headingSlugs are the anchors a markdown file's headings get (GitHub's:
// lower case, punctuation dropped, spaces as hyphens).
func headingSlugs(src string) map[string]bool {
	slugs := map[string]bool{}
	for _, m := range heading.FindAllStringSubmatch(src, -1) {
		s := notSlug.ReplaceAllString(strings.ToLower(m[1]), "")
		slugs[strings.ReplaceAll(s, " ", "-")] = true
	}
	return slugs
}

// Every link of README.md, docs/*.md and the examples' READMEs to a section (page.md#section, or
// #section in the page) names a heading the page has: a section renamed or
// moved breaks the link here rather than for a reader.
func TestEveryLinkToASectionOfTheDocsNamesAHeading(t *testing.T) {
	repo, err := filepath.Abs(filepath.Join("..", "..", "..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	links := 0
	for _, file := range checkedDocs(t, repo) {
		src, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(repo, file)
		for _, m := range anchorLink.FindAllStringSubmatch(string(src), -1) {
			target := file
			if m[1] != "" {
				if strings.Contains(m[1], "://") {
					continue
				}
				target = filepath.Join(filepath.Dir(file), m[1])
			}
			b, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s: link to %s#%s: %v", rel, m[1], m[2], err)
				continue
			}
			links++
			if !headingSlugs(string(b))[m[2]] {
				to, _ := filepath.Rel(repo, target)
				t.Errorf("%s: link to %s#%s: no such heading in %s", rel, m[1], m[2], to)
			}
		}
	}
	if links == 0 {
		t.Error("no link to a section found: the reader is broken (docs/verdicts.md links the README's failure)")
	}
	if s := headingSlugs("## Your domain: steps, outside systems, properties, faults\n## `make run` and Set-up\n"); !s["your-domain-steps-outside-systems-properties-faults"] || !s["make-run-and-set-up"] {
		t.Errorf("headingSlugs: %v", s)
	}
}
