package verdict_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/verdict"
	"github.com/ctrlsim/ctrlsim/operatortest/world"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// The table is well formed: each case once, by a short kebab-case name, of
// a principle of reference's doc (or 0), applied by generic oracles, said in
// one sentence.
func TestEachExcuseIsACaseOfAPrincipleInOneSentence(t *testing.T) {
	kebab := regexp.MustCompile(`^[a-z]+(-[a-z]+)*$`)
	seen := map[string]bool{}
	for _, e := range verdict.Excuses {
		if !kebab.MatchString(e.Name) || seen[e.Name] {
			t.Errorf("excuse %q: a name is kebab-case and once in the table", e.Name)
		}
		seen[e.Name] = true
		if e.Principle < 0 || e.Principle > 3 {
			t.Errorf("%s: principle %d (1, 2 or 3 of reference's doc; 0: none)", e.Name, e.Principle)
		}
		if len(e.Oracles) == 0 {
			t.Errorf("%s: no oracle applies it", e.Name)
		}
		for _, o := range e.Oracles {
			if !slices.Contains(world.Oracles(), o) {
				t.Errorf("%s: %q is no generic oracle or kernel verdict", e.Name, o)
			}
		}
		if r := strings.TrimSpace(e.Rule); r == "" || !strings.HasSuffix(r, ".") || strings.Count(r, ". ") > 0 {
			t.Errorf("%s: the rule is one sentence: %q", e.Name, e.Rule)
		}
		if e.Principle == 3 && e.References == "" {
			t.Errorf("%s: a case of principle 3 withdraws an excuse by a run that shows the operator's own doing: name it", e.Name)
		}
	}
}

// Every name a verdict can record is the table's, and every case of the
// table is recorded by some code path: the names are constants
// (excuses.go), each used outside the table, and no verdict is excused by
// a string written where it is recorded.
func TestEveryExcuseRecordedIsInTheTableAndEveryCaseIsRecorded(t *testing.T) {
	root := filepath.Join("..", "..")
	consts := excuseConstants(t, filepath.Join(root, "operatortest", "verdict", "excuses.go"))
	var names []string
	for _, e := range verdict.Excuses {
		names = append(names, e.Name)
	}
	var values []string
	for _, v := range consts {
		values = append(values, v)
	}
	slices.Sort(names)
	slices.Sort(values)
	if !slices.Equal(names, values) {
		t.Fatalf("the table's names %v and excuses.go's constants %v differ", names, values)
	}
	used := map[string]bool{}
	fset := token.NewFileSet()
	for _, dir := range []string{"operatortest", "sim"} {
		err := filepath.WalkDir(filepath.Join(root, dir), func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "excuses.go") {
				return err
			}
			f, err := parser.ParseFile(fset, path, nil, 0)
			if err != nil {
				return err
			}
			inVerdict := f.Name.Name == "verdict"
			ast.Inspect(f, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.SelectorExpr:
					if id, ok := x.X.(*ast.Ident); ok && id.Name == "verdict" {
						if _, ok := consts[x.Sel.Name]; ok {
							used[x.Sel.Name] = true
						}
					}
					if id, ok := x.X.(*ast.Ident); ok && id.Name == "cluster" && x.Sel.Name == "StallStormExcuse" {
						used["StallStorm"] = true
					}
				case *ast.Ident:
					if _, ok := consts[x.Name]; ok && inVerdict {
						used[x.Name] = true
					}
					if x.Name == "StallStormExcuse" && f.Name.Name == "cluster" {
						used["StallStorm"] = true
					}
				case *ast.CallExpr:
					if sel, ok := x.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Excuse" {
						for _, a := range x.Args {
							if _, ok := a.(*ast.BasicLit); ok {
								t.Errorf("%s: an excuse recorded by a string, not the table's constant", fset.Position(a.Pos()))
							}
						}
					}
				case *ast.KeyValueExpr:
					if k, ok := x.Key.(*ast.Ident); ok && (k.Name == "Excused" || k.Name == "Excuses") {
						ast.Inspect(x.Value, func(n ast.Node) bool {
							if _, ok := n.(*ast.BasicLit); ok {
								t.Errorf("%s: an excuse recorded by a string, not the table's constant", fset.Position(n.Pos()))
							}
							return true
						})
					}
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, value := range consts {
		if !used[name] {
			t.Errorf("excuse %s (%s) is in the table, and no code records it", value, name)
		}
	}
}

// excuseConstants are the constants of excuses.go's const block, by name,
// with their values.
func excuseConstants(t *testing.T, path string) map[string]string {
	f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, n := range vs.Names {
				switch v := vs.Values[i].(type) {
				case *ast.BasicLit:
					s, err := strconv.Unquote(v.Value)
					if err != nil {
						t.Fatal(err)
					}
					out[n.Name] = s
				case *ast.SelectorExpr:
					if v.Sel.Name != "StallStormExcuse" {
						t.Fatalf("%s: a constant of another package", n.Name)
					}
					out[n.Name] = cluster.StallStormExcuse
				}
			}
		}
	}
	return out
}
