package lint

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// stdImporter imports the standard library from export data; one instance
// caches across tests.
var stdImporter = importer.ForCompiler(token.NewFileSet(), "gc", nil)

// snippet parses src as sim/x/x.go and, if typed, type-checks it against the
// standard library.
func snippet(t *testing.T, src string, typed bool) (*token.FileSet, *ast.File, *types.Info) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "sim/x/x.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if !typed {
		return fset, f, nil
	}
	info := &types.Info{
		Types: map[ast.Expr]types.TypeAndValue{},
		Defs:  map[*ast.Ident]types.Object{},
		Uses:  map[*ast.Ident]types.Object{},
	}
	conf := types.Config{Importer: stdImporter}
	if _, err := conf.Check("example.com/sim/x", fset, []*ast.File{f}, info); err != nil {
		t.Fatalf("snippet does not type-check: %v", err)
	}
	return fset, f, info
}

// wantLines are the lines of src marked with a "// want" comment.
func wantLines(src string) []int {
	var lines []int
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "// want") {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// expect checks that vs are exactly one violation of rule on each wanted line.
func expect(t *testing.T, vs []violation, rule string, want []int) {
	t.Helper()
	var got []int
	for _, v := range vs {
		if v.rule != rule {
			t.Errorf("unexpected rule: %v", v)
		}
		got = append(got, v.pos.Line)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("violations on lines %v, want %v:\n%s", got, want, join(vs))
	}
}

func join(vs []violation) string {
	var b strings.Builder
	for _, v := range vs {
		fmt.Fprintln(&b, v)
	}
	return b.String()
}

func bothModes(t *testing.T, f func(t *testing.T, typed bool)) {
	t.Run("typed", func(t *testing.T) { f(t, true) })
	t.Run("syntax", func(t *testing.T) { f(t, false) })
}

func TestWallClockRuleFlagsEveryWallClockFunction(t *testing.T) {
	const src = `package x

import (
	"time"
	clk "time"
)

func f() time.Duration {
	start := time.Now()       // want
	time.Sleep(time.Second)   // want
	<-time.After(time.Second) // want
	now := clk.Now            // want
	_ = now
	t := time.NewTimer(1) // want
	t.Stop()
	_ = time.AfterFunc(1, func() {}) // want
	_ = time.NewTicker(1)            // want
	_ = time.Tick(1)                 // want
	_ = time.Until(start)            // want
	return time.Since(start)         // want
}
`
	bothModes(t, func(t *testing.T, typed bool) {
		fset, f, info := snippet(t, src, typed)
		vs := checkClockAndRand(fset, f, info)
		expect(t, vs, ruleWallClock, wantLines(src))
		if len(vs) > 0 && !strings.Contains(vs[0].msg, "sim/clock") {
			t.Errorf("message does not name the replacement: %v", vs[0])
		}
	})
}

func TestWallClockRuleAllowsTimeValues(t *testing.T) {
	const src = `package x

import "time"

type fakeClock struct{ now time.Time }

func (c fakeClock) Now() time.Time { return c.now }

func f(c fakeClock, d time.Duration) time.Time {
	epoch := time.Unix(0, 0).Add(time.Second)
	return c.Now().Add(d).Add(epoch.Sub(time.Time{}))
}
`
	bothModes(t, func(t *testing.T, typed bool) {
		fset, f, info := snippet(t, src, typed)
		expect(t, checkClockAndRand(fset, f, info), ruleWallClock, nil)
	})
}

func TestWallClockRuleSeesThroughShadowingWithTypes(t *testing.T) {
	const src = `package x

import "time"

type fakeClock struct{}

func (fakeClock) Now() time.Time { return time.Time{} }

func f() time.Time {
	time := fakeClock{}
	return time.Now()
}
`
	fset, f, info := snippet(t, src, true)
	expect(t, checkClockAndRand(fset, f, info), ruleWallClock, nil)
}

func TestWallClockRuleFlagsDotImport(t *testing.T) {
	const src = `package x

import . "time" // want

var d = Second
`
	fset, f, _ := snippet(t, src, false)
	expect(t, checkClockAndRand(fset, f, nil), ruleWallClock, wantLines(src))
}

func TestGlobalRandRuleFlagsMathRandAndV2GlobalFunctions(t *testing.T) {
	const src = `package x

import (
	"math/rand" // want
	randv2 "math/rand/v2"
)

func f() int {
	_ = rand.Intn(3)
	a := randv2.IntN(3) // want
	b := randv2.N(4)    // want
	randv2.Shuffle(a, func(i, j int) {}) // want
	return a + b + int(randv2.Uint64()) // want
}
`
	bothModes(t, func(t *testing.T, typed bool) {
		fset, f, info := snippet(t, src, typed)
		vs := checkClockAndRand(fset, f, info)
		expect(t, vs, ruleGlobalRand, wantLines(src))
		for _, v := range vs {
			if !strings.Contains(v.msg, "sim/rng") {
				t.Errorf("message does not name the replacement: %v", v)
			}
		}
	})
}

func TestGlobalRandRuleAllowsSeededSources(t *testing.T) {
	const src = `package x

import "math/rand/v2"

type gen struct {
	r   *rand.Rand
	src rand.Source
	pcg *rand.PCG
}

func newGen(seed uint64) *gen {
	return &gen{r: rand.New(rand.NewPCG(seed, 0)), src: rand.NewChaCha8([32]byte{})}
}

func (g *gen) f() int { return g.r.IntN(3) + int(g.src.Uint64()) }
`
	bothModes(t, func(t *testing.T, typed bool) {
		fset, f, info := snippet(t, src, typed)
		expect(t, checkClockAndRand(fset, f, info), ruleGlobalRand, nil)
	})
}

func TestGoStatementRule(t *testing.T) {
	const bad = `package x

func f(ch chan int) {
	go func() { ch <- 1 }() // want
	go close(ch)            // want
}
`
	fset, f, _ := snippet(t, bad, false)
	expect(t, checkGoStatements(fset, f), ruleGo, wantLines(bad))

	const good = `package x

func f(run func(func())) { run(func() {}) }
`
	fset, f, _ = snippet(t, good, false)
	expect(t, checkGoStatements(fset, f), ruleGo, nil)
}

func TestLayeringRuleFollowsDesign(t *testing.T) {
	const mod = "github.com/ctrlsim/ctrlsim"
	for _, tc := range []struct {
		dir, imp  string
		forbidden bool
		test      bool // a _test.go file
	}{
		{"sim/clock", mod + "/sim/rng", false, false},
		{"sim/clock", "k8s.io/utils/clock", false, false},
		{"sim/clock", mod + "/models/helm", true, false},
		{"sim/clock", mod + "/controllers/bd", true, false},
		{"sim/clock", mod + "/internal/lint", true, false},
		{"sim/clock", mod, true, false},
		{"sim", mod + "/scenarios", true, false},
		{"models/helm", mod + "/models/catalog", false, false},
		{"models/helm", "sigs.k8s.io/controller-runtime/pkg/client", false, false},
		{"models/helm", mod + "/sim/clock", true, false},
		{"models/helm", mod + "/controllers/bd", true, false},
		{"models/helm", mod + "/scenarios", true, false},
		{"models/helm", mod + "/cmd/ctrlsim", true, false},
		{"models/helm", mod + "/fuzz", true, false},
		{"controllers/bd", mod + "/models/helm", false, false},
		{"controllers/bd", mod + "/sim/clock", true, false},
		{"controllers/bd", mod + "/scenarios/bd", true, false},
		{"controllers/bd", mod + "/cmd/ctrlsim", true, false},
		{"controllers/bd", mod + "/fuzz", true, false},
		{"scenarios/bd", mod + "/sim/clock", false, false},
		{"scenarios/bd", mod + "/controllers/bd", false, false},
		{"scenarios/bd", mod + "/models/helm", false, false},
		{"scenarios/bd", mod + "/cmd/ctrlsim", true, false},
		{"scenarios/bd", mod + "/fuzz", true, false},
		{"cmd/ctrlsim", mod + "/scenarios", false, false},
		{"internal/bench", mod + "/scenarios/catalogue", true, false},
		{"operatortest", mod + "/examples/twowrites", true, false},
		{"operatortest", mod + "/scenarios/catalogue", true, false},
		{"operatortest", mod + "/examples/twowrites", false, true},
		{"cmd/ctrlsim/internal/bench", mod + "/scenarios/catalogue", false, false},
		{"fuzz", mod + "/scenarios/bd", false, false},
	} {
		t.Run(tc.dir+"->"+strings.TrimPrefix(tc.imp, mod), func(t *testing.T) {
			src := fmt.Sprintf("package x\n\nimport _ %q\n", tc.imp)
			fset := token.NewFileSet()
			name := tc.dir + "/x.go"
			if tc.test {
				name = tc.dir + "/x_test.go"
			}
			f, err := parser.ParseFile(fset, name, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			vs := checkLayering(fset, f, mod, tc.dir, floorOrder{})
			var want []int
			if tc.forbidden {
				want = []int{3}
			}
			expect(t, vs, ruleLayering, want)
			if len(vs) > 0 && !strings.Contains(vs[0].msg, tc.imp) {
				t.Errorf("message does not name the import: %v", vs[0])
			}
		})
	}
}

func TestMapOrderRuleFlagsUnmarkedMapRanges(t *testing.T) {
	const src = `package x

import (
	"maps"
	"slices"
)

type store struct{ objs map[string]int }

type set map[int]bool

func f(s *store, m map[string]int, xs []int, ids set) (n int) {
	for k := range m { // want
		n += len(k)
	}
	for _, v := range s.objs { // want
		n += v
	}
	for k := range maps.Keys(m) { // want
		n += len(k)
	}
	for k := range ids { // want
		n += k
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		n += len(k)
	}
	for _, x := range xs {
		n += x
	}
	// lint:order-independent summing is commutative
	for _, v := range m {
		n += v
	}
	for _, v := range m { // lint:order-independent summing is commutative
		n += v
	}
	// lint:order-independent
	for range m { // want (a marker needs a reason)
		n++
	}
	// lint:order-independent a marker two lines above does not count

	for range m { // want
		n++
	}
	return n
}
`
	fset, f, info := snippet(t, src, true)
	vs := checkMapRange(fset, f, info)
	expect(t, vs, ruleMapOrder, wantLines(src))
	for _, v := range vs {
		if !strings.Contains(v.msg, orderIndependent) {
			t.Errorf("message does not name the marker: %v", v)
		}
	}
}

func TestMapOrderRuleFallsBackToSyntax(t *testing.T) {
	const src = `package x

import "maps"

func f(m map[string]int) (n int) {
	for k := range map[string]int{"a": 1} { // want
		n += len(k)
	}
	for range make(map[int]int) { // want
		n++
	}
	for k := range maps.Keys(m) { // want
		n += len(k)
	}
	for range m { // not seen without types (doc.go, Known gaps)
		n++
	}
	return n
}
`
	fset, f, _ := snippet(t, src, false)
	expect(t, checkMapRange(fset, f, nil), ruleMapOrder, wantLines(src))
}

func TestKnownGapsRule(t *testing.T) {
	fsys := fstest.MapFS{
		"sim/good/good.go":    {Data: []byte("package good\n")},
		"sim/good/doc.go":     {Data: []byte("// Package good.\n//\n// Known gaps:\n//   - none yet.\npackage good\n")},
		"sim/nodoc/nodoc.go":  {Data: []byte("package nodoc\n")},
		"sim/nogaps/a.go":     {Data: []byte("package nogaps\n")},
		"sim/nogaps/doc.go":   {Data: []byte("// Package nogaps does everything.\npackage nogaps\n")},
		"sim/tests/x_test.go": {Data: []byte("package tests\n")},
	}
	for _, tc := range []struct {
		dir, want string
	}{
		{"sim/good", ""},
		{"sim/nodoc", "sim/nodoc: known-gaps: package has no doc.go"},
		{"sim/nogaps", `sim/nogaps/doc.go:1: known-gaps: doc.go has no "Known gaps" section`},
		{"sim/tests", ""}, // only tests: not a package of the kernel
	} {
		vs := checkKnownGaps(fsys, tc.dir)
		switch {
		case tc.want == "" && len(vs) > 0:
			t.Errorf("%s: unexpected %s", tc.dir, join(vs))
		case tc.want != "" && (len(vs) != 1 || !strings.HasPrefix(vs[0].String(), tc.want)):
			t.Errorf("%s: got %q, want one violation starting %q", tc.dir, join(vs), tc.want)
		}
	}
}

// TestRulesApplyWhereDesignSays runs the whole lint over a small module on
// disk: the kernel's non-test files are checked, its tests and testdata are
// not (except for layering), an import against the floors of docs/design.md
// fails (an external test package's is exempt), a package on no floor fails
// once, sim/scheduler may start goroutines, models/ and
// controllers/ are held to wall-clock and go-statement but for exceptions
// annotated with a reason (the kernel has none), and each violation is
// reported as file:line: rule.
func TestRulesApplyWhereDesignSays(t *testing.T) {
	root := t.TempDir()
	const gaps = "// Package p.\n//\n// Known gaps: none.\n"
	files := map[string]string{
		"go.mod":                   "module example.com/m\n\ngo 1.26\n",
		"sim/scheduler/doc.go":     gaps + "package scheduler\n",
		"sim/scheduler/run.go":     "package scheduler\n\nfunc Run(f func()) { go f() }\n",
		"sim/kernel/doc.go":        gaps + "package kernel\n",
		"sim/kernel/kernel.go":     "package kernel\n\nimport \"time\"\n\nfunc F(m map[string]int) time.Time {\n\tgo F(m)\n\tfor range m {\n\t}\n\treturn time.Now()\n}\n",
		"sim/kernel/k_test.go":     "package kernel\n\nimport (\n\t\"time\"\n\n\t_ \"example.com/m/models\"\n)\n\nfunc g(m map[int]int) {\n\tgo g(m)\n\tfor range m {\n\t}\n\t_ = time.Now()\n}\n",
		"sim/kernel/testdata/t.go": "package t\n\nimport \"time\"\n\nvar _ = time.Now()\n",
		"sim/nodoc/nodoc.go":       "package nodoc\n",
		"models/models.go":         "package models\n\nimport _ \"example.com/m/sim/kernel\"\n",
		"sim/kernel/allow.go":      "package kernel\n\nimport \"time\"\n\nvar T = time.Now() // lint:allow wall-clock the kernel has no exceptions\n",
		"models/clock.go":          "package models\n\nimport \"time\"\n\nfunc F() time.Time {\n\tgo F()\n\treturn time.Now()\n}\n",
		"models/clock_test.go":     "package models\n\nimport \"time\"\n\nfunc g() { go g(); _ = time.Now() }\n",
		"controllers/c/c.go": "package c\n\nimport \"time\"\n\n// F waits.\nfunc F() {\n\t// lint:allow go-statement a reason\n\tgo F()\n" +
			"\ttime.Sleep(0) // lint:allow wall-clock a reason\n\t_ = time.Now() // lint:allow wall-clock\n\t// lint:allow wall-clock another rule's marker\n\tgo F()\n}\n",
		"cmd/tool/main.go": "package main\n\nimport (\n\t\"time\"\n\n\t_ \"example.com/m/sim/kernel\"\n)\n\nfunc main() { go main(); _ = time.Now() }\n",
		"docs/design.md": "# Design\n\n```floors\nsim/, bottom up\n1  sim/scheduler\n2  sim/kernel\n```\n\n```floors\n" +
			"1  operatortest/low\n2  operatortest/high\n```\n",
		"sim/doc.go":                   "// Package sim.\n//\n//   - scheduler: tasks.\n//   - kernel: the rest.\npackage sim\n",
		"sim/scheduler/up.go":          "package scheduler\n\nimport _ \"example.com/m/sim/kernel\"\n",
		"sim/kernel/x_test.go":         "package kernel_test\n\nimport _ \"example.com/m/sim/kernel\"\n",
		"operatortest/low/low.go":      "package low\n\nimport _ \"example.com/m/operatortest/high\"\n",
		"operatortest/high/high.go":    "package high\n\nimport _ \"example.com/m/operatortest/low\"\n",
		"operatortest/high/up_test.go": "package high_test\n\nimport _ \"example.com/m/operatortest/high\"\n",
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
	vs, cov, err := lintRepository(root, "example.com/m", t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, v := range vs {
		got = append(got, fmt.Sprintf("%s:%d %s", v.pos.Filename, v.pos.Line, v.rule))
	}
	want := []string{
		"controllers/c/c.go:10 wall-clock",
		"controllers/c/c.go:12 go-statement",
		"models/clock.go:6 go-statement",
		"models/clock.go:7 wall-clock",
		"models/models.go:3 layering",
		"operatortest/low/low.go:3 layering",
		"sim/doc.go:0 layering",
		"sim/kernel/allow.go:5 wall-clock",
		"sim/kernel/k_test.go:6 layering",
		"sim/kernel/kernel.go:6 go-statement",
		"sim/kernel/kernel.go:7 map-order",
		"sim/kernel/kernel.go:9 wall-clock",
		"sim/nodoc:0 known-gaps",
		"sim/nodoc:0 layering",
		"sim/scheduler/up.go:3 layering",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if cov.typed != 8 || cov.untyped != 0 {
		t.Errorf("coverage = %+v, want all 8 kernel files type-checked", cov)
	}
}
