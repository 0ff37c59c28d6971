package lint

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// Rule names, as printed in each violation.
const (
	ruleWallClock  = "wall-clock"
	ruleGlobalRand = "global-rand"
	ruleGo         = "go-statement"
	ruleLayering   = "layering"
	ruleMapOrder   = "map-order"
	ruleKnownGaps  = "known-gaps"
)

// schedulerDir is the one package under sim/ that may start goroutines.
const schedulerDir = "sim/scheduler"

// allowMarker, followed by a rule name and a reason, allows one violation of
// that rule on the line it ends, or on the line after it: the annotated
// exception of code under models/ or controllers/ that may use the wall clock
// or start a goroutine (the wall-clock, go-statement and global-rand rules).
// The kernel (sim/) has no exceptions but the scheduler's goroutines.
const allowMarker = "lint:allow"

// scheduledLayers are the directories, besides sim/, whose non-test code runs
// inside the simulator's scheduler (models and reference controllers are
// hosted as tasks there), so wall-clock, global-rand and go-statement apply
// to them too.
var scheduledLayers = []string{"models", "controllers"}

// sameBytes are the packages outside sim/ held to the kernel's rules, with no
// exceptions: what they make of a run must be the same bytes for the same
// run (the pictures and the run inspector, which the catalogue checks in).
var sameBytes = []string{"operatortest/story"}

// orderIndependent marks a range over a map whose order cannot matter, on
// the line before the for statement or at the end of its line; the reason
// follows the marker.
const orderIndependent = "lint:order-independent"

// A violation is one broken rule at one place.
type violation struct {
	pos  token.Position
	rule string
	msg  string
}

func (v violation) String() string {
	if v.pos.Line == 0 {
		return fmt.Sprintf("%s: %s: %s", v.pos.Filename, v.rule, v.msg)
	}
	return fmt.Sprintf("%s:%d: %s: %s", v.pos.Filename, v.pos.Line, v.rule, v.msg)
}

func at(fset *token.FileSet, p token.Pos, rule, format string, args ...any) violation {
	return violation{pos: fset.Position(p), rule: rule, msg: fmt.Sprintf(format, args...)}
}

// wallClock lists the functions of package time that read or wait on the
// wall clock.
var wallClock = []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "NewTimer", "NewTicker", "Tick"}

// randV2Allowed lists the package-level functions of math/rand/v2 that do not
// touch its global source.
var randV2Allowed = []string{"New", "NewPCG", "NewChaCha8"}

// randV2Types lists the exported types of math/rand/v2, which are fine to
// name; it is used only when type information is missing.
var randV2Types = []string{"ChaCha8", "PCG", "Rand", "Source", "Zipf"}

// importName is the name a file refers to an imported package by.
func importName(spec *ast.ImportSpec, importPath string) string {
	if spec.Name != nil {
		return spec.Name.Name
	}
	base := path.Base(importPath)
	if ok, _ := regexp.MatchString(`^v[0-9]+$`, base); ok && strings.Contains(importPath, "/") {
		base = path.Base(path.Dir(importPath))
	}
	return base
}

// refersTo reports whether id names the package importPath. With type
// information a local variable that shadows the import does not count;
// without it, the name alone decides.
func refersTo(id *ast.Ident, importPath string, info *types.Info) bool {
	if info == nil {
		return true
	}
	obj, ok := info.Uses[id]
	if !ok || obj == nil {
		return true // not type-checked: go by the name
	}
	pn, ok := obj.(*types.PkgName)
	return ok && pn.Imported().Path() == importPath
}

// checkClockAndRand enforces wall-clock and global-rand on one non-test file
// under sim/.
func checkClockAndRand(fset *token.FileSet, f *ast.File, info *types.Info) []violation {
	var out []violation
	names := map[string]string{} // local name -> "time" or "math/rand/v2"
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		switch p {
		case "math/rand":
			out = append(out, at(fset, spec.Pos(), ruleGlobalRand,
				`import of "math/rand", whose functions share one global source: use sim/rng streams`))
		case "time", "math/rand/v2":
			rule, use := ruleWallClock, "the virtual clock, sim/clock"
			if p != "time" {
				rule, use = ruleGlobalRand, "sim/rng streams"
			}
			switch n := importName(spec, p); n {
			case ".":
				out = append(out, at(fset, spec.Pos(), rule, "dot import of %q hides its forbidden functions: import it by name and use %s", p, use))
			case "_":
			default:
				names[n] = p
			}
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		id, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		p, ok := names[id.Name]
		if !ok || !refersTo(id, p, info) {
			return true
		}
		name := sel.Sel.Name
		switch p {
		case "time":
			if slices.Contains(wallClock, name) {
				out = append(out, at(fset, sel.Pos(), ruleWallClock,
					"%s.%s reads the wall clock: use the virtual clock, sim/clock", id.Name, name))
			}
		case "math/rand/v2":
			if !slices.Contains(randV2Allowed, name) && isRandV2Func(sel, info) {
				out = append(out, at(fset, sel.Pos(), ruleGlobalRand,
					"%s.%s draws from the global source of math/rand/v2: use sim/rng streams (only %[1]s.New, %[1]s.NewPCG and %[1]s.NewChaCha8 may be called)",
					id.Name, name))
			}
		}
		return true
	})
	return out
}

// notAllowed drops the violations of f that an allowMarker comment naming
// their rule, with a reason, allows: a comment at the end of the violation's
// line, or alone on the line before it. A marker with no reason allows nothing.
func notAllowed(fset *token.FileSet, f *ast.File, vs []violation) []violation {
	src, err := os.ReadFile(fset.Position(f.Pos()).Filename)
	if err != nil {
		return vs
	}
	lines := strings.Split(string(src), "\n")
	allows := map[int][]string{} // line -> rules allowed there
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			_, rest, ok := strings.Cut(c.Text, allowMarker+" ")
			if !ok {
				continue
			}
			fields := strings.Fields(rest)
			if len(fields) < 2 {
				continue
			}
			pos := fset.Position(c.Pos())
			line := pos.Line
			if pos.Line <= len(lines) && pos.Column <= len(lines[pos.Line-1])+1 &&
				strings.TrimSpace(lines[pos.Line-1][:pos.Column-1]) == "" {
				line++ // alone on its line: it allows the next one
			}
			allows[line] = append(allows[line], fields[0])
		}
	}
	var out []violation
	for _, v := range vs {
		if !slices.Contains(allows[v.pos.Line], v.rule) {
			out = append(out, v)
		}
	}
	return out
}

// outsideKernel rewrites what to use instead for code under models/ or
// controllers/, which does not import sim/ (layering) and runs unchanged on a
// real cluster: time from an injected clock, randomness from a seeded source
// the world passes in, concurrency from the controller's workers.
func outsideKernel(v violation) violation {
	for from, to := range map[string]string{ // lint:order-independent at most one matches
		"use the virtual clock, sim/clock": "take an injected k8s.io/utils/clock (the simulator's virtual clock in a world), or annotate an allowed exception with // " + allowMarker + " " + ruleWallClock + " <reason>",
		"use sim/rng streams":              "take a seeded *rand.Rand from the world (a sim/rng stream), or annotate an allowed exception with // " + allowMarker + " " + ruleGlobalRand + " <reason>",
		"the kernel runs one goroutine at a time; let sim/scheduler run concurrent work": "the simulator runs one goroutine at a time: use the controller's workers (MaxConcurrentReconciles), or annotate an allowed exception with // " + allowMarker + " " + ruleGo + " <reason>",
	} {
		v.msg = strings.Replace(v.msg, from, to, 1)
	}
	return v
}

// isRandV2Func reports whether sel names a function (not a type) of math/rand/v2.
func isRandV2Func(sel *ast.SelectorExpr, info *types.Info) bool {
	if info != nil {
		if obj, ok := info.Uses[sel.Sel]; ok && obj != nil {
			_, isFunc := obj.(*types.Func)
			return isFunc
		}
	}
	return !slices.Contains(randV2Types, sel.Sel.Name)
}

// checkGoStatements enforces go-statement on one non-test file under sim/
// outside sim/scheduler.
func checkGoStatements(fset *token.FileSet, f *ast.File) []violation {
	var out []violation
	ast.Inspect(f, func(n ast.Node) bool {
		if g, ok := n.(*ast.GoStmt); ok {
			out = append(out, at(fset, g.Pos(), ruleGo,
				"go statement: the kernel runs one goroutine at a time; let sim/scheduler run concurrent work"))
		}
		return true
	})
	return out
}

// layer is the top-level directory of a slash-separated path relative to the
// module root ("" for the root itself).
func layer(rel string) string {
	first, _, _ := strings.Cut(rel, "/")
	if first == "." {
		return ""
	}
	return first
}

// layerRule says what a layer may not import and what to do instead
// (docs/design.md "Layers").
func layerRule(from, to string) (forbidden bool, instead string) {
	switch from {
	case "sim":
		return to != "sim", "sim/ is the deterministic kernel and imports no project package outside sim/: move the code into sim/ or take it through a small interface owned by sim/"
	case "models":
		return slices.Contains([]string{"sim", "controllers", "scenarios", "cmd", "fuzz"}, to),
			"models/ talk to the cluster only through client.Client and k8s.io/utils/clock, so they run unchanged on a real API server: depend on those interfaces"
	case "controllers":
		return slices.Contains([]string{"sim", "scenarios", "cmd", "fuzz"}, to),
			"controllers/ are ordinary controller-runtime code: take the cluster through client.Client and time through an injected clock; the simulator binds them in scenarios/"
	case "scenarios":
		return slices.Contains([]string{"cmd", "fuzz"}, to),
			"cmd/ and fuzz/ drive scenarios/, not the other way round: move the shared code into scenarios/"
	case "internal", "operatortest", "wallclock", "kcm":
		return slices.Contains([]string{"scenarios", "examples", "cmd", "fuzz"}, to),
			"scenarios/, examples/, cmd/ and fuzz/ use the engine, not the other way round: move what they share below them, or the code that needs them into cmd/ctrlsim/internal"
	}
	return false, ""
}

// checkLayering enforces layering on one file (test or not) of directory dir
// (slash-separated, relative to the module root of module modPath): the
// top-level rule, and inside sim/ and operatortest/ the floors of o.
func checkLayering(fset *token.FileSet, f *ast.File, modPath, dir string, o floorOrder) []violation {
	var out []violation
	from := layer(dir)
	test := strings.HasSuffix(fset.File(f.Pos()).Name(), "_test.go")
	xtest := strings.HasSuffix(f.Name.Name, "_test")
	for _, spec := range f.Imports {
		p, err := strconv.Unquote(spec.Path.Value)
		if err != nil {
			continue
		}
		var to, rel string
		switch {
		case p == modPath:
			to = ""
		case strings.HasPrefix(p, modPath+"/"):
			rel = strings.TrimPrefix(p, modPath+"/")
			to = layer(rel)
		default:
			continue
		}
		if bad, msg := checkFloor(o, dir, rel, xtest); bad {
			out = append(out, at(fset, spec.Pos(), ruleLayering, "%s imports %s: %s", dir, rel, msg))
		}
		if from == "operatortest" && to == "examples" && test {
			continue // operatortest's own tests drive example operators as subjects
		}
		if bad, instead := layerRule(from, to); bad {
			out = append(out, at(fset, spec.Pos(), ruleLayering, "%s/ imports %s: %s", from, p, instead))
		}
	}
	return out
}

// checkMapRange enforces map-order on one non-test file under sim/. info may
// be nil or incomplete; the check then falls back to syntax.
func checkMapRange(fset *token.FileSet, f *ast.File, info *types.Info) []violation {
	marks := map[int]string{} // line -> reason of a lint:order-independent comment
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			text := strings.TrimSpace(strings.TrimPrefix(c.Text, "//"))
			if rest, ok := strings.CutPrefix(text, orderIndependent); ok {
				marks[fset.Position(c.Slash).Line] = strings.TrimSpace(rest)
			}
		}
	}
	var out []violation
	ast.Inspect(f, func(n ast.Node) bool {
		rs, ok := n.(*ast.RangeStmt)
		if !ok || !rangesOverMap(rs.X, info) {
			return true
		}
		line := fset.Position(rs.For).Line
		reason, marked := marks[line-1]
		if !marked {
			reason, marked = marks[line] // a trailing comment on the for line
		}
		switch {
		case !marked:
			out = append(out, at(fset, rs.For, ruleMapOrder,
				"range over map %s: Go randomises map iteration order; range over slices.Sorted(maps.Keys(m)), or if order cannot matter say why on the line before: // %s <reason>",
				types.ExprString(rs.X), orderIndependent))
		case reason == "":
			out = append(out, at(fset, rs.For, ruleMapOrder,
				"// %s needs a reason: say why the order of %s cannot matter", orderIndependent, types.ExprString(rs.X)))
		}
		return true
	})
	return out
}

// rangesOverMap reports whether ranging over x visits a map in Go's random
// order: x is a map, or an iterator from maps.Keys, maps.Values or maps.All.
func rangesOverMap(x ast.Expr, info *types.Info) bool {
	x = ast.Unparen(x)
	if call, ok := x.(*ast.CallExpr); ok {
		if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok && slices.Contains([]string{"Keys", "Values", "All"}, sel.Sel.Name) {
			if info != nil {
				if fn, ok := info.Uses[sel.Sel].(*types.Func); ok {
					return fn.Pkg() != nil && fn.Pkg().Path() == "maps"
				}
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "maps" {
				return true
			}
		}
	}
	if info != nil {
		if t := info.TypeOf(x); t != nil && t != types.Typ[types.Invalid] {
			_, isMap := t.Underlying().(*types.Map)
			return isMap
		}
	}
	// Syntax only: a map literal or make(map...).
	switch e := x.(type) {
	case *ast.CompositeLit:
		_, isMap := e.Type.(*ast.MapType)
		return isMap
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "make" && len(e.Args) > 0 {
			_, isMap := e.Args[0].(*ast.MapType)
			return isMap
		}
	}
	return false
}

// checkKnownGaps enforces known-gaps on directory dir of fsys: a directory
// with a non-test Go file needs a doc.go that contains "Known gaps".
func checkKnownGaps(fsys fs.FS, dir string) []violation {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return []violation{{pos: token.Position{Filename: dir}, rule: ruleKnownGaps, msg: err.Error()}}
	}
	isPackage := slices.ContainsFunc(entries, func(e fs.DirEntry) bool {
		return !e.IsDir() && strings.HasSuffix(e.Name(), ".go") && !strings.HasSuffix(e.Name(), "_test.go")
	})
	if !isPackage {
		return nil
	}
	doc := path.Join(dir, "doc.go")
	src, err := fs.ReadFile(fsys, doc)
	if errors.Is(err, fs.ErrNotExist) {
		return []violation{{pos: token.Position{Filename: dir}, rule: ruleKnownGaps,
			msg: "package has no doc.go: add one that states the package's contract and a \"Known gaps\" section (what it does not model)"}}
	}
	if err != nil {
		return []violation{{pos: token.Position{Filename: doc}, rule: ruleKnownGaps, msg: err.Error()}}
	}
	if !bytes.Contains(src, []byte("Known gaps")) {
		return []violation{{pos: token.Position{Filename: doc, Line: 1}, rule: ruleKnownGaps,
			msg: "doc.go has no \"Known gaps\" section: state plainly what the package does not model (like controller-runtime's pkg/client/fake/doc.go)"}}
	}
	return nil
}

// moduleRoot finds the directory of go.mod above dir and the module path.
func moduleRoot(dir string) (root, modPath string, err error) {
	for d := dir; ; d = filepath.Dir(d) {
		src, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil {
			for _, line := range strings.Split(string(src), "\n") {
				if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
					return d, strings.Trim(strings.TrimSpace(rest), `"`), nil
				}
			}
			return "", "", fmt.Errorf("%s/go.mod has no module line", d)
		}
		if filepath.Dir(d) == d {
			return "", "", fmt.Errorf("no go.mod above %s", dir)
		}
	}
}

// goFiles lists the Go files of the module at root, slash-separated and
// relative to root, in lexical order; it skips testdata, vendor, hidden and
// _-prefixed directories and nested modules.
func goFiles(root string) ([]string, error) {
	var files []string
	err := fs.WalkDir(os.DirFS(root), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p == "." {
				return nil
			}
			name := d.Name()
			if name == "testdata" || name == "vendor" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") {
				return fs.SkipDir
			}
			if _, err := os.Stat(filepath.Join(root, p, "go.mod")); err == nil {
				return fs.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	return files, err
}

// typedFile is one file of a type-checked package.
type typedFile struct {
	fset *token.FileSet
	file *ast.File
	info *types.Info
}

// loadSim type-checks the packages under sim/, models/ and controllers/
// and those of sameBytes (non-test files), taking
// dependencies from export data. Packages that do not compile are still
// returned with what could be checked; their errors are returned for logging.
func loadSim(root string) (map[string]typedFile, []string, error) {
	cfg := &packages.Config{
		Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo,
		Dir:  root,
	}
	patterns := []string{"./sim/..."}
	for _, d := range sameBytes {
		patterns = append(patterns, "./"+d)
	}
	for _, l := range scheduledLayers {
		if fi, err := os.Stat(filepath.Join(root, l)); err == nil && fi.IsDir() {
			patterns = append(patterns, "./"+l+"/...")
		}
	}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, nil, err
	}
	typed := map[string]typedFile{}
	var problems []string
	for _, pkg := range pkgs {
		for _, e := range pkg.Errors {
			problems = append(problems, e.Error())
		}
		for _, f := range pkg.Syntax {
			typed[pkg.Fset.File(f.Pos()).Name()] = typedFile{pkg.Fset, f, pkg.TypesInfo}
		}
	}
	return typed, problems, nil
}

// loadFloors reads the floors of floorsDoc under root and checks that every
// package of floorTrees among files is on one, and that sim/doc.go's map
// names them bottom up.
func loadFloors(root string, files []string) (floorOrder, []violation) {
	md, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(floorsDoc)))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return floorOrder{}, []violation{{pos: token.Position{Filename: floorsDoc}, rule: ruleLayering, msg: err.Error()}}
	}
	order, out := parseFloors(md)
	var pkgs []string
	for _, rel := range files {
		dir := path.Dir(rel)
		if !slices.Contains(floorTrees, layer(dir)) || strings.HasSuffix(rel, "_test.go") || slices.Contains(pkgs, dir) {
			continue
		}
		if dir == layer(dir) && path.Base(rel) == "doc.go" {
			continue // a tree's root with only a doc.go is a map (sim/doc.go), not a package
		}
		pkgs = append(pkgs, dir)
	}
	out = append(out, checkPlaced(order, pkgs)...)
	if src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(simMap))); err == nil {
		out = append(out, checkSimMap(order, src, pkgs)...)
	} else if slices.ContainsFunc(pkgs, func(p string) bool { return layer(p) == "sim" }) {
		out = append(out, violation{pos: token.Position{Filename: simMap}, rule: ruleLayering,
			msg: "no map of the packages below sim/: write sim/doc.go, a bullet \"//   - name: ...\" for each, bottom up"})
	}
	return order, out
}

// coverage counts the non-test files under sim/ by how they were checked.
type coverage struct{ typed, untyped int }

// lintRepository runs every rule over the module at root.
func lintRepository(root, modPath string, logf func(string, ...any)) ([]violation, coverage, error) {
	var cov coverage
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r // go list reports real paths
	}
	files, err := goFiles(root)
	if err != nil {
		return nil, cov, err
	}
	typed := map[string]typedFile{}
	if fi, err := os.Stat(filepath.Join(root, "sim")); err == nil && fi.IsDir() {
		var problems []string
		typed, problems, err = loadSim(root)
		if err != nil {
			return nil, cov, err
		}
		for _, p := range problems {
			logf("type checking (rules fall back to syntax): %s", p)
		}
	}
	order, out := loadFloors(root, files)
	fset := token.NewFileSet()
	dirs := map[string]bool{}
	for _, rel := range files {
		dir := path.Dir(rel)
		inSim := dir == "sim" || strings.HasPrefix(dir, "sim/")
		kernel := (inSim || slices.Contains(sameBytes, dir)) && !strings.HasSuffix(rel, "_test.go")
		scheduled := kernel || slices.Contains(scheduledLayers, layer(dir)) && !strings.HasSuffix(rel, "_test.go")
		if inSim && dir != "sim" {
			dirs[dir] = true
		}
		abs := filepath.Join(root, filepath.FromSlash(rel))
		tf, ok := typed[abs]
		if kernel && ok {
			cov.typed++
		} else if kernel {
			cov.untyped++
			logf("%s: no type information (excluded by build constraints or not loadable): rules fall back to syntax", rel)
		}
		if !ok || !scheduled {
			mode := parser.ParseComments
			if !scheduled {
				mode = parser.ImportsOnly
			}
			f, err := parser.ParseFile(fset, abs, nil, mode)
			if err != nil {
				logf("skipping %s: %v", rel, err)
				continue
			}
			tf = typedFile{fset: fset, file: f}
		}
		out = append(out, checkLayering(tf.fset, tf.file, modPath, dir, order)...)
		if !scheduled {
			continue
		}
		var vs []violation
		vs = append(vs, checkClockAndRand(tf.fset, tf.file, tf.info)...)
		if dir != schedulerDir {
			vs = append(vs, checkGoStatements(tf.fset, tf.file)...)
		}
		if kernel {
			out = append(out, vs...) // the kernel has no annotated exceptions
			out = append(out, checkMapRange(tf.fset, tf.file, tf.info)...)
		} else {
			for _, v := range notAllowed(tf.fset, tf.file, vs) {
				out = append(out, outsideKernel(v))
			}
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		out = append(out, checkKnownGaps(os.DirFS(root), dir)...)
	}
	for i := range out {
		if r, err := filepath.Rel(root, out[i].pos.Filename); err == nil && !strings.HasPrefix(r, "..") {
			out[i].pos.Filename = filepath.ToSlash(r)
		}
	}
	slices.SortStableFunc(out, func(a, b violation) int {
		return cmp.Or(cmp.Compare(a.pos.Filename, b.pos.Filename), cmp.Compare(a.pos.Line, b.pos.Line), cmp.Compare(a.rule, b.rule))
	})
	return out, cov, nil
}

// TestRepository runs every rule over the repository this test lives in.
func TestRepository(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, modPath, err := moduleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	vs, cov, err := lintRepository(root, modPath, t.Logf)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("sim/ non-test files: %d type-checked, %d by syntax only", cov.typed, cov.untyped)
	if cov.untyped > 0 && cov.typed == 0 {
		t.Errorf("no file under sim/ was type-checked: map-order cannot see map variables")
	}
	for _, v := range vs {
		t.Error(v)
	}
}
