package operatortest_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/operatortest"
)

const module = "github.com/ctrlsim/ctrlsim/"

// Every type of ctrlsim's that filling Options takes has a name in
// operatortest, so that a test fills its Options importing operatortest
// alone (once, Options.Shard was world.Shard; Manager.LeaderElection was
// sim/process's, Faults.Classes sim/plan's, Faults.API sim/apiserver's): the
// types of Options' exported fields, and of theirs, down through slices,
// maps, pointers and the parameters and results of func fields (a
// Property's Check takes a *History). The element (or key) of a named
// slice, array or map type that has a name here needs none of its own: a
// composite literal of the named type elides it (operatortest.Args{{Key:
// "k", Value: "v"}}, plan.Arg unnamed). And every constant of such a type
// (an enum: a StepKind, a FaultKind) that a test may give has a name here
// too. A name here is an alias or constant declared in operatortest's
// source that leads, alias by alias, to the type or constant.
func TestEveryTypeOptionsTakeHasANameInOperatortest(t *testing.T) {
	names := surfaceNames(t)
	for _, ty := range reached(reflect.TypeFor[operatortest.Options]()) {
		if !names[ty.PkgPath()+"."+ty.Name()] {
			t.Errorf("Options reach %s.%s (a %s), which operatortest does not name", ty.PkgPath(), ty.Name(), ty.Kind())
		}
		if ty.Kind() == reflect.Struct || ty.Kind() == reflect.Func {
			continue
		}
		for _, c := range constsOf(t, ty) {
			if harness[c] == "" && !names[c] {
				t.Errorf("%s is a %s that a test may give, which operatortest does not name", c, ty.Name())
			}
		}
	}
	o := operatortest.Options{Shard: operatortest.Shard{Index: 1, Count: 2},
		Managers: []operatortest.Manager{{Name: "op", LeaderElection: &operatortest.LeaderElection{}}},
		Faults: operatortest.Faults{Processes: []string{operatortest.KubeControllerManager},
			Classes: []operatortest.FaultKind{operatortest.Crash, operatortest.API},
			API:     []operatortest.APIFault{{Verb: "update", Code: 409}}},
		Workload: operatortest.Workload{Domain: []operatortest.DomainStep{{Name: "x", Draw: func(*rapid.T) operatortest.Args {
			return operatortest.Args{{Key: "k", Value: "v"}}
		}}}}}
	if o.Shard.String() == "" || o.Faults.Processes[0] != "kube-controller-manager" || o.Faults.Classes[0] != "crash" {
		t.Errorf("Options filled with operatortest's names: %+v", o)
	}
}

// maxDocLines is how many lines `go doc -short` of operatortest may print:
// the package's whole surface on one screen. Helpers of one
// kind of operator live in a package of their own (operatortest/clientgo),
// and an element type a composite literal elides (plan.Arg, in Args) needs
// no alias here.
const maxDocLines = 35

// go doc -short lists operatortest's surface in at most maxDocLines lines.
func TestGoDocShortFitsOnAScreen(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH:", err)
	}
	out, err := exec.Command(goCmd, "doc", "-short", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go doc -short .: %v\n%s", err, out)
	}
	deprecated := deprecatedNames(t)
	var lines []string
	for l := range strings.SplitSeq(strings.TrimRight(string(out), "\n"), "\n") {
		if !deprecated[docName(l)] {
			lines = append(lines, l)
		}
	}
	if len(deprecated) == 0 {
		t.Error("operatortest keeps no deprecated name (deprecated.go): a moved name keeps its alias for a release")
	}
	if len(lines) > maxDocLines {
		t.Errorf("go doc -short prints %d lines besides the deprecated names', more than %d; move what a test of one kind of operator needs to a package of its own, or fold declarations into one block:\n%s",
			len(lines), maxDocLines, out)
	}
}

// docName is the name a line of go doc -short declares ("func X(", "type
// X ", "    func X(").
func docName(line string) string {
	f := strings.Fields(line)
	if len(f) < 2 {
		return ""
	}
	name := f[1]
	if i := strings.IndexAny(name, "[("); i >= 0 {
		name = name[:i]
	}
	return name
}

// deprecatedNames are operatortest's top-level names whose doc says
// "Deprecated:" (kept for a release after a move; they do not count
// against the screen).
func deprecatedNames(t *testing.T) map[string]bool {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	dep := func(g *ast.CommentGroup) bool { return g != nil && strings.Contains(g.Text(), "\nDeprecated: ") }
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && dep(d.Doc) {
					out[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					if s, ok := s.(*ast.TypeSpec); ok && (dep(s.Doc) || len(d.Specs) == 1 && dep(d.Doc)) {
						out[s.Name.Name] = true
					}
				}
			}
		}
	}
	return out
}

// harness are the constants of a type Options take that are no test's to
// give, and why.
var harness = map[string]string{
	module + "sim/plan.Stop":  "a clean stop the harness replays for the fault-free run of the same downtime",
	module + "sim/plan.Blind": "the blind time the harness replays for the fault-free run of the same blind time",
}

// reached are the named types of ctrlsim's packages that a value of ty
// holds or takes and that a test writes by name, ty's own name first, each
// once: not those reached only as the element or key of a named slice,
// array or map type (a composite literal elides them), or of a slice,
// array, map or pointer there.
func reached(ty reflect.Type) []reflect.Type {
	var out []reflect.Type
	type at struct {
		ty     reflect.Type
		elided bool
	}
	seen, named := map[at]bool{}, map[reflect.Type]bool{}
	var walk func(ty reflect.Type, elided bool)
	walk = func(ty reflect.Type, elided bool) {
		if seen[at{ty, elided}] || ty.Name() != "" && !strings.HasPrefix(ty.PkgPath(), module) {
			return
		}
		seen[at{ty, elided}] = true
		if ty.Name() != "" && !elided && !named[ty] {
			named[ty] = true
			out = append(out, ty)
		}
		switch ty.Kind() {
		case reflect.Pointer:
			walk(ty.Elem(), elided)
		case reflect.Slice, reflect.Array:
			walk(ty.Elem(), elided || ty.Name() != "")
		case reflect.Map:
			walk(ty.Key(), elided || ty.Name() != "")
			walk(ty.Elem(), elided || ty.Name() != "")
		case reflect.Struct:
			for i := range ty.NumField() {
				if f := ty.Field(i); f.IsExported() {
					walk(f.Type, false)
				}
			}
		case reflect.Func:
			for i := range ty.NumIn() {
				walk(ty.In(i), false)
			}
			for i := range ty.NumOut() {
				walk(ty.Out(i), false)
			}
		}
	}
	walk(ty, false)
	return out
}

// surfaceNames are the types and constants operatortest's own source names
// ("<import path>.<name>"), each alias and constant followed to the
// declaration it stands for.
func surfaceNames(t *testing.T) map[string]bool {
	out := map[string]bool{}
	for _, d := range decls(t, module+"operatortest") {
		if ast.IsExported(d.name) {
			out[resolve(t, module+"operatortest", d.name)] = true
		}
	}
	return out
}

// constsOf are the exported constants declared with ty as their type in
// ty's package ("<import path>.<name>").
func constsOf(t *testing.T, ty reflect.Type) []string {
	var out []string
	for _, d := range decls(t, ty.PkgPath()) {
		if d.tok == token.CONST && ast.IsExported(d.name) && d.typ == ty.Name() {
			out = append(out, ty.PkgPath()+"."+d.name)
		}
	}
	slices.Sort(out)
	return out
}

// decl is a top-level type or constant of a package's source: its name,
// what it is declared as when that is another package's name (an alias
// "= world.Shard", a constant "= plan.Crash": the package's import path and
// the name), and a constant's explicit type.
type decl struct {
	name, pkg, sel, typ string
	tok                 token.Token
}

var parsed = map[string][]decl{}

// decls parses the non-test source of the package at import path pkg
// (within this module).
func decls(t *testing.T, pkg string) []decl {
	if d, ok := parsed[pkg]; ok {
		return d
	}
	dir := filepath.Join("..", strings.TrimPrefix(pkg, module))
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no source of %s in %s: %v", pkg, dir, err)
	}
	var out []decl
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		imports := map[string]string{}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			local := p[strings.LastIndex(p, "/")+1:]
			if im.Name != nil {
				local = im.Name.Name
			}
			imports[local] = p
		}
		other := func(e ast.Expr) (string, string) {
			if s, ok := e.(*ast.SelectorExpr); ok {
				if x, ok := s.X.(*ast.Ident); ok {
					return imports[x.Name], s.Sel.Name
				}
			}
			return "", ""
		}
		for _, g := range f.Decls {
			g, ok := g.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range g.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					d := decl{name: s.Name.Name, tok: token.TYPE}
					if s.Assign.IsValid() {
						d.pkg, d.sel = other(s.Type)
					}
					out = append(out, d)
				case *ast.ValueSpec:
					if g.Tok != token.CONST {
						continue
					}
					for i, n := range s.Names {
						d := decl{name: n.Name, tok: token.CONST}
						if id, ok := s.Type.(*ast.Ident); ok {
							d.typ = id.Name
						}
						if len(s.Values) == len(s.Names) {
							d.pkg, d.sel = other(s.Values[i])
						}
						out = append(out, d)
					}
				}
			}
		}
	}
	parsed[pkg] = out
	return out
}

// resolve follows the name of package pkg, alias by alias, to the
// declaration it stands for ("<import path>.<name>").
func resolve(t *testing.T, pkg, name string) string {
	for range 10 {
		i := slices.IndexFunc(decls(t, pkg), func(d decl) bool { return d.name == name })
		if i < 0 {
			return pkg + "." + name
		}
		d := decls(t, pkg)[i]
		if !strings.HasPrefix(d.pkg, module) {
			return pkg + "." + name
		}
		pkg, name = d.pkg, d.sel
	}
	panic(fmt.Sprintf("%s.%s: an alias chain longer than 10", pkg, name))
}
