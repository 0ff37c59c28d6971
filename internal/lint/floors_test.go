package lint

import (
	"bufio"
	"bytes"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// floorsDoc is the one place the floors of sim/ and operatortest/ are stated:
// its ```floors blocks, one line a floor, "N  pkg pkg ...", bottom up.
const floorsDoc = "docs/design.md"

// floorTrees are the top-level directories whose packages stand on floors.
var floorTrees = []string{"sim", "operatortest"}

// simMap is the doc that lists the packages below sim/, bottom up.
const simMap = "sim/doc.go"

// A floorOrder places each package (slash-separated, relative to the module
// root) on a floor of its tree; line is where floorsDoc places it.
type floorOrder struct {
	floor map[string]int
	line  map[string]int
}

var floorLine = regexp.MustCompile(`^\s*([0-9]+)\s+(\S.*)$`)

// parseFloors reads the ```floors blocks of floorsDoc's text. A name on two
// floors, or outside floorTrees, is a violation.
func parseFloors(md []byte) (floorOrder, []violation) {
	o := floorOrder{floor: map[string]int{}, line: map[string]int{}}
	var out []violation
	in := false
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		fence := strings.HasPrefix(strings.TrimSpace(text), "```")
		switch {
		case fence && !in:
			in = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(text), "```")) == "floors"
			continue
		case fence:
			in = false
			continue
		case !in:
			continue
		}
		m := floorLine.FindStringSubmatch(text)
		if m == nil {
			continue // the block's heading
		}
		floor, _ := strconv.Atoi(m[1])
		for _, name := range strings.FieldsFunc(m[2], func(r rune) bool { return r == ' ' || r == ',' || r == '\t' }) {
			pos := token.Position{Filename: floorsDoc, Line: n}
			switch {
			case !slices.Contains(floorTrees, layer(name)):
				out = append(out, violation{pos, ruleLayering, fmt.Sprintf("%s is not in %s/: floors order only the packages of %s/", name, strings.Join(floorTrees, "/ or "), strings.Join(floorTrees, "/ and "))})
			case o.floor[name] != 0:
				out = append(out, violation{pos, ruleLayering, fmt.Sprintf("%s is on floor %d already (line %d): a package stands on one floor", name, o.floor[name], o.line[name])})
			default:
				o.floor[name], o.line[name] = floor, n
			}
		}
	}
	return o, out
}

// checkFloor enforces the inner order on one import of a file of package
// directory dir: both in one tree of floorTrees, the import on a floor below
// dir's. External test packages (package x_test) are exempt: Go builds them
// above every package, and they may drive the packages above theirs. A
// package on no floor is reported once by checkPlaced, not per import.
func checkFloor(o floorOrder, dir, to string, xtest bool) (bad bool, msg string) {
	tree := layer(dir)
	if xtest || layer(to) != tree || !slices.Contains(floorTrees, tree) || dir == to {
		return false, ""
	}
	from, ok1 := o.floor[dir]
	at, ok2 := o.floor[to]
	if !ok1 || !ok2 || at < from {
		return false, ""
	}
	if at == from {
		return true, fmt.Sprintf("%s and %s are both on floor %d of %s's order (%s): packages on one floor do not import each other: move the shared code below floor %d, or raise %s a floor in %s",
			dir, to, from, tree, floorsDoc, from, dir, floorsDoc)
	}
	return true, fmt.Sprintf("%s is on floor %d of %s's order (%s) and %s on floor %d: a package imports only floors below its own: move what %s needs below floor %d, or change the order in %s",
		dir, from, tree, floorsDoc, to, at, dir, from, floorsDoc)
}

// checkPlaced reports each package of a tree of floorTrees that is on no
// floor, and each name on a floor that is no package. pkgs are the package
// directories of the trees; a tree's root that holds only a doc.go (sim) is
// a map, not a package, and is not among them.
func checkPlaced(o floorOrder, pkgs []string) []violation {
	var out []violation
	for _, p := range pkgs {
		if _, ok := o.floor[p]; !ok {
			out = append(out, violation{token.Position{Filename: p}, ruleLayering,
				fmt.Sprintf("%s is on no floor of %s's order: add it to the floors of %s/ there, above what it imports and below what imports it", p, floorsDoc, layer(p))})
		}
	}
	for name, line := range o.line {
		if !slices.Contains(pkgs, name) {
			out = append(out, violation{token.Position{Filename: floorsDoc, Line: line}, ruleLayering,
				fmt.Sprintf("%s is on floor %d but is no package: remove it from the order", name, o.floor[name])})
		}
	}
	return out
}

var mapBullet = regexp.MustCompile(`^//\s+- ([a-z0-9/]+): `)

// checkSimMap enforces that sim/doc.go's map names every package below sim/
// as a bullet "//   - name: ...", bottom up: no bullet on a lower floor than
// the one before it.
func checkSimMap(o floorOrder, src []byte, pkgs []string) []violation {
	var out []violation
	listed := map[string]bool{}
	prev, prevName := 0, ""
	sc := bufio.NewScanner(bytes.NewReader(src))
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if strings.HasPrefix(text, "package ") {
			break
		}
		m := mapBullet.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		name := path.Join("sim", m[1])
		floor, ok := o.floor[name]
		if !ok {
			continue
		}
		listed[name] = true
		if floor < prev {
			out = append(out, violation{token.Position{Filename: simMap, Line: n}, ruleLayering,
				fmt.Sprintf("the map lists %s (floor %d) after %s (floor %d): list the packages bottom up, as %s's floors", name, floor, prevName, prev, floorsDoc)})
		}
		prev, prevName = floor, name
	}
	for _, p := range pkgs {
		if layer(p) == "sim" && !listed[p] {
			out = append(out, violation{token.Position{Filename: simMap}, ruleLayering,
				fmt.Sprintf("the map does not name %s: add a bullet \"//   - %s: ...\" where its floor puts it", p, strings.TrimPrefix(p, "sim/"))})
		}
	}
	return out
}

// realFloors reads the floors of the repository this test lives in.
func realFloors(t *testing.T) floorOrder {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, _, err := moduleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, floorsDoc))
	if err != nil {
		t.Fatal(err)
	}
	o, vs := parseFloors(md)
	for _, v := range vs {
		t.Error(v)
	}
	return o
}

func TestFloorsHoldTheInnerOrder(t *testing.T) {
	const mod = "github.com/ctrlsim/ctrlsim"
	o := realFloors(t)
	for _, tc := range []struct {
		file, imp string
		pkg       string // the file's package clause
		want      string // the violation, "" for none
	}{
		{"sim/check/x.go", "sim/process", "check",
			"sim/check/x.go:3: layering: sim/check imports sim/process: sim/check is on floor 5 of sim's order (docs/design.md) and sim/process on floor 6: a package imports only floors below its own: move what sim/check needs below floor 5, or change the order in docs/design.md"},
		{"sim/check/x_test.go", "sim/process", "check", // an in-package test is the package
			"sim/check/x_test.go:3: layering: sim/check imports sim/process: sim/check is on floor 5"},
		{"sim/check/x_test.go", "sim/process", "check_test", ""}, // an external test package may drive what is above
		{"sim/process/x.go", "sim/check", "process", ""},
		{"sim/cluster/x.go", "sim/clock", "cluster", ""},
		{"sim/informer/x.go", "sim/kubeclient", "informer",
			"sim/informer/x.go:3: layering: sim/informer imports sim/kubeclient: sim/informer and sim/kubeclient are both on floor 4 of sim's order (docs/design.md): packages on one floor do not import each other"},
		{"sim/clock/x.go", "sim/rng", "clock", "sim/clock/x.go:3: layering: sim/clock imports sim/rng: sim/clock and sim/rng are both on floor 1"},
		{"operatortest/world/x.go", "operatortest/search", "world",
			"operatortest/world/x.go:3: layering: operatortest/world imports operatortest/search: operatortest/world is on floor 2 of operatortest's order (docs/design.md) and operatortest/search on floor 6"},
		{"operatortest/verdict/x.go", "operatortest/reference", "verdict", "operatortest/verdict/x.go:3: layering: operatortest/verdict imports operatortest/reference: operatortest/verdict is on floor 3"},
		{"operatortest/x.go", "operatortest/search", "operatortest", ""},
		{"operatortest/search/x.go", "sim/cluster", "search", ""}, // across trees: the top-level rule's
		{"sim/unplaced/x.go", "sim/process", "unplaced", ""},      // reported once, by checkPlaced
	} {
		t.Run(tc.file+"->"+tc.imp+"/"+tc.pkg, func(t *testing.T) {
			src := fmt.Sprintf("package %s\n\nimport _ %q\n", tc.pkg, mod+"/"+tc.imp)
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, tc.file, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			vs := checkLayering(fset, f, mod, path.Dir(tc.file), o)
			switch {
			case tc.want == "" && len(vs) > 0:
				t.Errorf("unexpected %s", join(vs))
			case tc.want != "" && (len(vs) != 1 || !strings.HasPrefix(vs[0].String(), tc.want)):
				t.Errorf("got %q, want one violation starting\n%q", join(vs), tc.want)
			}
		})
	}
}

func TestFloorsPlaceEveryPackageOnce(t *testing.T) {
	const md = "# d\n\n```floors\nsim/, bottom up\n1  sim/clock  sim/rng\n2  sim/scheduler, sim/gone\n3  sim/clock\n4  models/kube\n```\n\n```go\n1  sim/foo\n```\n"
	o, vs := parseFloors([]byte(md))
	vs = append(vs, checkPlaced(o, []string{"sim/clock", "sim/rng", "sim/scheduler", "sim/foo"})...)
	want := []string{
		"docs/design.md:6: layering: sim/gone is on floor 2 but is no package: remove it from the order",
		"docs/design.md:7: layering: sim/clock is on floor 1 already (line 5): a package stands on one floor",
		"docs/design.md:8: layering: models/kube is not in sim/ or operatortest/: floors order only the packages of sim/ and operatortest/",
		"sim/foo: layering: sim/foo is on no floor of docs/design.md's order: add it to the floors of sim/ there, above what it imports and below what imports it",
	}
	expectViolations(t, vs, want)
}

func TestSimMapNamesEveryPackageBottomUp(t *testing.T) {
	o, _ := parseFloors([]byte("```floors\n1  sim/clock  sim/rng\n2  sim/scheduler\n3  sim/cluster\n```\n"))
	const doc = "// Package sim.\n//\n//   - clock: time.\n//   - scheduler: tasks.\n//   - rng: seeds.\n//   - cluster: a world.\npackage sim\n"
	vs := checkSimMap(o, []byte(doc), []string{"sim/clock", "sim/rng", "sim/scheduler", "sim/cluster", "sim/restapi", "operatortest/world"})
	want := []string{
		"sim/doc.go:5: layering: the map lists sim/rng (floor 1) after sim/scheduler (floor 2): list the packages bottom up, as docs/design.md's floors",
		"sim/doc.go: layering: the map does not name sim/restapi: add a bullet \"//   - restapi: ...\" where its floor puts it",
	}
	expectViolations(t, vs, want)
}

// expectViolations checks that vs, as printed and sorted, are want.
func expectViolations(t *testing.T, vs []violation, want []string) {
	t.Helper()
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
