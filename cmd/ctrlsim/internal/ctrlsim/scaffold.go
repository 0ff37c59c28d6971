package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/yaml"
)

// cmdScaffold writes an operatortest test for a kubebuilder project:
//
//	ctrlsim scaffold [--dir DIR] [--out FILE] [--name TestName] [--manager-per-controller] [--force]
//
// It reads the project as kubebuilder lays it out, without building it:
// go.mod (the module path), cmd/main.go (or main.go; parsed with go/parser)
// for the scheme (its X.AddToScheme calls) and the controllers and webhooks
// it wires (`(&pkg.XReconciler{...}).SetupWithManager(mgr)` and
// `pkg.SetupXWebhookWithManager(mgr)`), the packages under api/ (or apis/)
// that declare AddToScheme, config/crd/bases/*.yaml (the CRDs: their scope
// says which samples are namespaced) and config/samples/*.yaml (the seed
// objects, decoded with the scheme when the test runs). The test goes beside
// the first controller's package (internal/controller/ctrlsim_test.go) unless
// --out says where; an existing file is kept unless --force.
//
// All controllers run in one Manager (one process, as main.go runs them: a
// crash takes them all down, they share one cache); --manager-per-controller
// gives each its own. A field of a reconciler that main.go sets from one of
// its own variables is left out of the written literal, with a comment
// saying so: the test compiles, and its author sets the field.
func cmdScaffold(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("scaffold")
	dir := fs.String("dir", ".", "the kubebuilder project's root (its go.mod, cmd/main.go, config/)")
	out := fs.String("out", "", "the test file to write (default: ctrlsim_test.go in the first controller's package)")
	name := fs.String("name", "TestOperatorUnderFaults", "the test function's name")
	split := fs.Bool("manager-per-controller", false, "one Manager (process) per controller instead of one for all, as main.go runs them")
	force := fs.Bool("force", false, "overwrite the test file if it exists")
	if err := parse(fs, args, stdout); err != nil {
		return err
	}
	if !strings.HasPrefix(*name, "Test") || !token.IsIdentifier(*name) {
		return usagef("bad --name %q: want a Go test function name (TestX)", *name)
	}
	p, err := readProject(*dir)
	if err != nil {
		return err
	}
	outPath := *out
	if outPath == "" {
		outPath = filepath.Join(p.pkgDir(p.setups[0].pkgPath), "ctrlsim_test.go")
	} else if !filepath.IsAbs(outPath) {
		outPath = filepath.Join(p.root, outPath)
	}
	if !strings.HasSuffix(outPath, "_test.go") {
		return usagef("bad --out %q: a test file's name ends in _test.go", *out)
	}
	if st, err := os.Stat(filepath.Dir(outPath)); err != nil || !st.IsDir() {
		return usagef("--out %s: no directory %s", outPath, filepath.Dir(outPath))
	}
	if _, err := os.Stat(outPath); err == nil && !*force {
		return usagef("%s exists (--force overwrites it)", p.rel(outPath))
	}
	src, err := p.testSource(filepath.Dir(outPath), *name, *split)
	if err != nil {
		return err
	}
	if err := os.WriteFile(outPath, src, 0o644); err != nil {
		return err
	}
	managers := 1
	if *split {
		managers = len(p.setups)
	}
	pkgRel := "./" + filepath.ToSlash(p.rel(filepath.Dir(outPath)))
	fmt.Fprintf(stdout, "ctrlsim scaffold: wrote %s (%d controllers and webhooks in %d Manager(s), %d scheme packages, %d CRD files, %d sample files); run it: go test %s -run '^%s$'\n",
		p.rel(outPath), len(p.setups), managers, len(p.schemes), len(p.crdFiles), len(p.samples), pkgRel, *name)
	return nil
}

// project is what scaffold read from a kubebuilder project.
type project struct {
	root, module, mainFile string
	imports                map[string]string // main.go's import names -> paths
	mgrVar                 string            // main.go's manager variable
	schemes                []importRef       // packages whose AddToScheme builds the scheme
	setups                 []setup           // main.go's SetupWithManager calls, in order
	crdFiles, samples      []string          // absolute paths
	clusterScoped          []string          // "group/Kind" of the CRDs with scope Cluster
}

type importRef struct{ name, path string }

// setup is one SetupWithManager call of main.go.
type setup struct {
	pkgName, pkgPath string // the package of the reconciler type or the setup function
	typeName         string // XReconciler; "" for a function call
	funcName         string // SetupXWebhookWithManager for a function call
	fields           []field
	positional       string // the literal's elements when they are not keyed
}

type field struct {
	name, value string
	from        string // set when the value uses main.go's own variables: left out
}

func (p *project) rel(path string) string {
	r, err := filepath.Rel(p.root, path)
	if err != nil {
		return path
	}
	return r
}

// pkgDir is the directory of a package of the project's module.
func (p *project) pkgDir(pkgPath string) string {
	if pkgPath == p.module {
		return p.root
	}
	if rest, ok := strings.CutPrefix(pkgPath, p.module+"/"); ok {
		return filepath.Join(p.root, filepath.FromSlash(rest))
	}
	return p.root
}

func readProject(dir string) (*project, error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, usagef("%v", err)
	}
	if st, err := os.Stat(root); err != nil || !st.IsDir() {
		return nil, usagef("--dir %s: no such directory", dir)
	}
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return nil, usagef("%s has no go.mod: run scaffold in a kubebuilder project's root, or give --dir", dir)
	}
	p := &project{root: root, imports: map[string]string{}}
	for _, line := range strings.Split(string(gomod), "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), "module "); ok {
			p.module = strings.Trim(strings.TrimSpace(rest), `"`)
			break
		}
	}
	if p.module == "" {
		return nil, usagef("%s: no module line", filepath.Join(dir, "go.mod"))
	}
	for _, f := range []string{"cmd/main.go", "main.go"} {
		if _, err := os.Stat(filepath.Join(root, f)); err == nil {
			p.mainFile = filepath.Join(root, f)
			break
		}
	}
	if p.mainFile == "" {
		return nil, usagef("%s has neither cmd/main.go nor main.go: scaffold reads the controllers' wiring from kubebuilder's main", dir)
	}
	if err := p.readMain(); err != nil {
		return nil, err
	}
	if err := p.readAPIs(); err != nil {
		return nil, err
	}
	if err := p.readCRDs(); err != nil {
		return nil, err
	}
	samples, _ := filepath.Glob(filepath.Join(root, "config", "samples", "*.yaml"))
	for _, s := range samples {
		if filepath.Base(s) != "kustomization.yaml" {
			p.samples = append(p.samples, s)
		}
	}
	return p, nil
}

// readMain parses main.go: its imports, its AddToScheme calls and its
// SetupWithManager wiring.
func (p *project) readMain() error {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, p.mainFile, nil, parser.SkipObjectResolution)
	if err != nil {
		return usagef("%v", err)
	}
	for _, imp := range f.Imports {
		ipath, _ := strconv.Unquote(imp.Path.Value)
		name := guessName(ipath)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name != "_" && name != "." {
			p.imports[name] = ipath
		}
	}
	var problems []string
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		switch {
		case sel.Sel.Name == "AddToScheme":
			if id, ok := sel.X.(*ast.Ident); ok && p.imports[id.Name] != "" {
				p.addScheme(importRef{id.Name, p.imports[id.Name]})
			}
		case sel.Sel.Name == "SetupWithManager":
			s, err := p.readSetup(fset, sel.X)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %v", fset.Position(call.Pos()), err))
				return true
			}
			p.setMgr(call)
			p.setups = append(p.setups, s)
		case strings.HasPrefix(sel.Sel.Name, "Setup") && strings.HasSuffix(sel.Sel.Name, "WithManager") && len(call.Args) == 1:
			// kubebuilder's webhooks: webhookv1.SetupSiteWebhookWithManager(mgr)
			id, ok := sel.X.(*ast.Ident)
			if !ok || p.imports[id.Name] == "" {
				return true
			}
			p.setMgr(call)
			p.setups = append(p.setups, setup{pkgName: id.Name, pkgPath: p.imports[id.Name], funcName: sel.Sel.Name})
		}
		return true
	})
	if len(p.setups) == 0 {
		if len(problems) > 0 {
			return usagef("%s", problems[0])
		}
		return usagef("%s wires no controller: no `(&pkg.XReconciler{...}).SetupWithManager(mgr)` call found", p.rel(p.mainFile))
	}
	if p.mgrVar == "" {
		p.mgrVar = "mgr"
	}
	// main's values that use main's own variables are left out; say so.
	known := map[string]bool{p.mgrVar: true}
	for name := range p.imports {
		known[name] = true
	}
	for i := range p.setups {
		for j := range p.setups[i].fields {
			fl := &p.setups[i].fields[j]
			if free := freeIdents(fl.value, known); len(free) > 0 {
				fl.from = strings.Join(free, ", ")
			}
		}
	}
	return nil
}

func (p *project) setMgr(call *ast.CallExpr) {
	if len(call.Args) == 1 {
		if id, ok := call.Args[0].(*ast.Ident); ok && p.mgrVar == "" {
			p.mgrVar = id.Name
		}
	}
}

func (p *project) addScheme(r importRef) {
	if !slices.ContainsFunc(p.schemes, func(s importRef) bool { return s.path == r.path }) {
		p.schemes = append(p.schemes, r)
	}
}

// readSetup reads the receiver of a SetupWithManager call:
// (&pkg.XReconciler{...}), &pkg.XReconciler{...} or pkg.XReconciler{...}.
func (p *project) readSetup(fset *token.FileSet, x ast.Expr) (setup, error) {
	for {
		switch e := x.(type) {
		case *ast.ParenExpr:
			x = e.X
			continue
		case *ast.UnaryExpr:
			if e.Op == token.AND {
				x = e.X
				continue
			}
		}
		break
	}
	lit, ok := x.(*ast.CompositeLit)
	if !ok {
		return setup{}, fmt.Errorf("SetupWithManager on %s: scaffold reads `(&pkg.XReconciler{...}).SetupWithManager(mgr)`", nodeString(fset, x))
	}
	sel, ok := lit.Type.(*ast.SelectorExpr)
	if !ok {
		return setup{}, fmt.Errorf("SetupWithManager on %s: the reconciler type is not from an imported package", nodeString(fset, lit.Type))
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok || p.imports[id.Name] == "" {
		return setup{}, fmt.Errorf("SetupWithManager on %s: unknown package", nodeString(fset, lit.Type))
	}
	s := setup{pkgName: id.Name, pkgPath: p.imports[id.Name], typeName: sel.Sel.Name}
	var positional []string
	for _, elt := range lit.Elts {
		kv, ok := elt.(*ast.KeyValueExpr)
		key, isIdent := ast.Expr(nil), false
		if ok {
			key = kv.Key
			_, isIdent = key.(*ast.Ident)
		}
		if !ok || !isIdent {
			positional = append(positional, nodeString(fset, elt))
			continue
		}
		s.fields = append(s.fields, field{name: key.(*ast.Ident).Name, value: nodeString(fset, kv.Value)})
	}
	if len(positional) > 0 {
		s.fields = nil
		s.positional = strings.Join(positional, ", ")
	}
	return s, nil
}

// readAPIs adds the packages under api/ and apis/ that declare AddToScheme
// and that main.go's scheme does not already have.
func (p *project) readAPIs() error {
	for _, top := range []string{"api", "apis"} {
		base := filepath.Join(p.root, top)
		if _, err := os.Stat(base); err != nil {
			continue
		}
		err := filepath.WalkDir(base, func(dir string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			if n := d.Name(); dir != base && (n == "testdata" || strings.HasPrefix(n, ".") || strings.HasPrefix(n, "_")) {
				return filepath.SkipDir
			}
			if !declaresAddToScheme(dir) {
				return nil
			}
			rel, _ := filepath.Rel(p.root, dir)
			ipath := p.module + "/" + filepath.ToSlash(rel)
			if slices.ContainsFunc(p.schemes, func(s importRef) bool { return s.path == ipath }) {
				return nil
			}
			name := p.freeName(apiName(rel))
			p.imports[name] = ipath
			p.addScheme(importRef{name, ipath})
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// declaresAddToScheme says whether the package in dir declares AddToScheme
// at top level (kubebuilder's groupversion_info.go: a var).
func declaresAddToScheme(dir string) bool {
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.SkipObjectResolution)
	if err != nil {
		return false
	}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, decl := range f.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil && d.Name.Name == "AddToScheme" {
						return true
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						if vs, ok := spec.(*ast.ValueSpec); ok && slices.ContainsFunc(vs.Names, func(n *ast.Ident) bool { return n.Name == "AddToScheme" }) {
							return true
						}
					}
				}
			}
		}
	}
	return false
}

// readCRDs finds config/crd/bases/*.yaml and the cluster-scoped kinds they
// define.
func (p *project) readCRDs() error {
	files, _ := filepath.Glob(filepath.Join(p.root, "config", "crd", "bases", "*.yaml"))
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			return err
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		defined := false
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return usagef("%s: %v", p.rel(file), err)
			}
			var crd apiextensionsv1.CustomResourceDefinition
			if err := yaml.Unmarshal(doc, &crd); err != nil {
				return usagef("%s: %v", p.rel(file), err)
			}
			if crd.Kind != "CustomResourceDefinition" {
				continue
			}
			defined = true
			if crd.Spec.Scope == apiextensionsv1.ClusterScoped {
				p.clusterScoped = append(p.clusterScoped, crd.Spec.Group+"/"+crd.Spec.Names.Kind)
			}
		}
		if defined {
			p.crdFiles = append(p.crdFiles, file)
		}
	}
	return nil
}

// freeName is name, or name with a number, unused by main.go's imports.
func (p *project) freeName(name string) string {
	for i := 2; ; i++ {
		if _, taken := p.imports[name]; !taken && !reserved[name] {
			return name
		}
		name = strings.TrimRight(name, "0123456789") + strconv.Itoa(i)
	}
}

// fixedImports are the written test's own imports.
var fixedImports = map[string]string{
	"bufio": "bufio", "bytes": "bytes", "errors": "errors", "io": "io", "os": "os", "testing": "testing",
	"runtime": "k8s.io/apimachinery/pkg/runtime", "schema": "k8s.io/apimachinery/pkg/runtime/schema",
	"serializer": "k8s.io/apimachinery/pkg/runtime/serializer", "utilruntime": "k8s.io/apimachinery/pkg/util/runtime",
	"utilyaml": "k8s.io/apimachinery/pkg/util/yaml", "clientgoscheme": "k8s.io/client-go/kubernetes/scheme",
	"client": "sigs.k8s.io/controller-runtime/pkg/client", "manager": "sigs.k8s.io/controller-runtime/pkg/manager",
	"sigsyaml": "sigs.k8s.io/yaml", "operatortest": "github.com/ctrlsim/ctrlsim/operatortest",
}

// reserved are the names the written test uses for itself.
var reserved = map[string]bool{
	"bufio": true, "bytes": true, "errors": true, "io": true, "os": true, "testing": true,
	"runtime": true, "schema": true, "serializer": true, "utilruntime": true, "utilyaml": true,
	"client": true, "manager": true, "operatortest": true, "clientgoscheme": true, "sigsyaml": true,
	"t": true, "scheme": true, "mgr": true,
}

// apiName names an api package's import: api/v1 -> apiv1, apis/web/v1 -> webv1.
func apiName(rel string) string {
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if len(parts) > 2 {
		parts = parts[len(parts)-2:]
	}
	var b strings.Builder
	for _, r := range strings.ToLower(strings.Join(parts, "")) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// guessName is the package name an import path most likely has (its last
// element, without a major version suffix, "go-" or ".go" or dashes).
func guessName(ipath string) string {
	parts := strings.Split(ipath, "/")
	last := parts[len(parts)-1]
	if len(parts) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = parts[len(parts)-2]
	}
	last = strings.TrimPrefix(last, "go-")
	last = strings.TrimSuffix(last, ".go")
	if i := strings.IndexByte(last, '.'); i >= 0 {
		last = last[:i]
	}
	return strings.ReplaceAll(last, "-", "")
}

// freeIdents are the identifiers of expression src that are neither known
// (the manager's variable, an import) nor predeclared: main.go's own
// variables.
func freeIdents(src string, known map[string]bool) []string {
	e, err := parser.ParseExpr(src)
	if err != nil {
		return []string{src}
	}
	var free []string
	var walk func(n ast.Node) bool
	walk = func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			ast.Inspect(n.X, walk)
			return false
		case *ast.KeyValueExpr:
			if _, ok := n.Key.(*ast.Ident); !ok {
				ast.Inspect(n.Key, walk)
			}
			ast.Inspect(n.Value, walk)
			return false
		case *ast.FuncLit:
			free = append(free, "a function literal")
			return false
		case *ast.Ident:
			if !known[n.Name] && !predeclared[n.Name] && !slices.Contains(free, n.Name) {
				free = append(free, n.Name)
			}
		}
		return true
	}
	ast.Inspect(e, walk)
	return free
}

var predeclared = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`true false nil iota any bool byte comparable complex64 complex128 error float32 float64
		int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr
		append cap clear close complex copy delete imag len make max min new panic print println real recover`) {
		predeclared[n] = true
	}
}

// usedImports are the import names an expression's selectors use.
func usedImports(src string, imports map[string]string, into map[string]bool) {
	e, err := parser.ParseExpr(src)
	if err != nil {
		return
	}
	ast.Inspect(e, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok && imports[id.Name] != "" {
				into[id.Name] = true
			}
		}
		return true
	})
}

func nodeString(fset *token.FileSet, n ast.Node) string {
	var b bytes.Buffer
	_ = printer.Fprint(&b, fset, n)
	return b.String()
}

// testPackage is the package clause of a test in dir: the external test
// package of the package there, or a package named after dir.
func testPackage(dir string) string {
	pkgs, err := parser.ParseDir(token.NewFileSet(), dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.PackageClauseOnly)
	if err == nil {
		names := make([]string, 0, len(pkgs))
		for name := range pkgs {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			if name != "main" {
				return name + "_test"
			}
		}
		if len(names) > 0 {
			return names[0] + "_test"
		}
	}
	name := apiName(filepath.Base(dir))
	if name == "" || !token.IsIdentifier(name) {
		name = "ctrlsim"
	}
	return name + "_test"
}

// testSource writes the test for the directory testDir.
func (p *project) testSource(testDir, name string, split bool) ([]byte, error) {
	relTo := func(abs string) string {
		r, err := filepath.Rel(testDir, abs)
		if err != nil {
			return abs
		}
		return filepath.ToSlash(r)
	}
	used := map[string]bool{}
	for _, s := range p.schemes {
		used[s.name] = true
	}
	var setups []string
	for _, s := range p.setups {
		used[s.pkgName] = true
		var b strings.Builder
		if s.typeName == "" {
			fmt.Fprintf(&b, "if err := %s.%s(%s); err != nil {\nreturn err\n}\n", s.pkgName, s.funcName, p.mgrVar)
			setups = append(setups, b.String())
			continue
		}
		fmt.Fprintf(&b, "if err := (&%s.%s{", s.pkgName, s.typeName)
		if s.positional != "" {
			b.WriteString(s.positional)
			usedImports(s.positional, p.imports, used)
		} else {
			b.WriteString("\n")
			for _, f := range s.fields {
				if f.from != "" {
					fmt.Fprintf(&b, "// %s: %s sets it to %s (from its own %s): set it here.\n", f.name, filepath.ToSlash(p.rel(p.mainFile)), singleLine(f.value), f.from)
					continue
				}
				fmt.Fprintf(&b, "%s: %s,\n", f.name, f.value)
				usedImports(f.value, p.imports, used)
			}
		}
		fmt.Fprintf(&b, "}).SetupWithManager(%s); err != nil {\nreturn err\n}\n", p.mgrVar)
		setups = append(setups, b.String())
	}
	var managers strings.Builder
	if split {
		for i, s := range setups {
			fmt.Fprintf(&managers, "{Name: %q, Setup: func(%s manager.Manager) error {\n%sreturn nil\n}},\n", managerName(p.setups[i]), p.mgrVar, s)
		}
	} else {
		fmt.Fprintf(&managers, "{Name: \"controller-manager\", Setup: func(%s manager.Manager) error {\n%sreturn nil\n}},\n", p.mgrVar, strings.Join(setups, ""))
	}

	imports := []importRef{}
	for n := range used {
		imports = append(imports, importRef{n, p.imports[n]})
	}
	sort.Slice(imports, func(i, j int) bool { return imports[i].path < imports[j].path })

	var b strings.Builder
	b.WriteString("// Written by `ctrlsim scaffold` from cmd/main.go, config/crd/bases and config/samples;\n")
	b.WriteString("// it is yours now: edit it (properties, budget, fault profile: see the operatortest package doc).\n\n")
	fmt.Fprintf(&b, "package %s\n\n", testPackage(testDir))
	b.WriteString(`import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/ctrlsim/ctrlsim/operatortest"

`)
	for _, imp := range imports {
		if fixedImports[imp.name] == imp.path || imp.path == "k8s.io/client-go/kubernetes/scheme" {
			continue
		}
		if imp.name == path.Base(imp.path) {
			fmt.Fprintf(&b, "\t%q\n", imp.path)
		} else {
			fmt.Fprintf(&b, "\t%s %q\n", imp.name, imp.path)
		}
	}
	b.WriteString(")\n\n")

	fmt.Fprintf(&b, "// %s explores the operator's controllers, wired as %s wires them, under\n", name, filepath.ToSlash(p.rel(p.mainFile)))
	b.WriteString("// faults, from the sample objects of config/samples.\n")
	fmt.Fprintf(&b, "func %s(t *testing.T) {\n", name)
	b.WriteString("scheme := runtime.NewScheme()\nutilruntime.Must(clientgoscheme.AddToScheme(scheme))\n")
	for _, s := range p.schemes {
		if s.path == "k8s.io/client-go/kubernetes/scheme" {
			continue
		}
		fmt.Fprintf(&b, "utilruntime.Must(%s.AddToScheme(scheme))\n", s.name)
	}
	b.WriteString("operatortest.Run(t, operatortest.Options{\nScheme: scheme,\n")
	if len(p.crdFiles) > 0 {
		fmt.Fprintf(&b, "CRDFiles: []string{%q},\n", relTo(filepath.Join(p.root, "config", "crd", "bases"))+"/*.yaml")
	}
	fmt.Fprintf(&b, "Managers: []operatortest.Manager{\n%s},\n", managers.String())
	if len(p.samples) == 0 {
		b.WriteString("// config/samples has no sample: give the objects the operator reconciles.\n")
		b.WriteString("Objects: nil,\n")
	} else {
		b.WriteString("Objects: samples(t, scheme, clusterScoped,\n")
		for _, s := range p.samples {
			fmt.Fprintf(&b, "%q,\n", relTo(s))
		}
		b.WriteString("),\n")
	}
	b.WriteString("})\n}\n\n")
	b.WriteString("// clusterScoped are the kinds of the CRDs whose scope is Cluster: their samples get no namespace.\n")
	b.WriteString("var clusterScoped = map[schema.GroupKind]bool{")
	for _, gk := range p.clusterScoped {
		g, k, _ := strings.Cut(gk, "/")
		fmt.Fprintf(&b, "\n{Group: %q, Kind: %q}: true,", g, k)
	}
	if len(p.clusterScoped) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}\n\n")
	b.WriteString(samplesHelper)
	src, err := format.Source([]byte(b.String()))
	if err != nil {
		return nil, fmt.Errorf("the written test does not parse (a bug of ctrlsim scaffold): %v\n%s", err, b.String())
	}
	return src, nil
}

func managerName(s setup) string {
	n := s.typeName
	if n == "" {
		n = strings.TrimSuffix(strings.TrimPrefix(s.funcName, "Setup"), "WithManager")
	}
	n = strings.TrimSuffix(n, "Reconciler")
	return strings.ToLower(n) + "-manager"
}

func singleLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// samplesHelper decodes the samples when the test runs, so that a sample
// edited later is the one tested.
const samplesHelper = `// samples decodes the objects of YAML files as the scheme's types; one
// without a namespace goes to "default", as kubectl apply puts it, unless its
// kind is cluster-scoped.
func samples(t *testing.T, scheme *runtime.Scheme, clusterScoped map[schema.GroupKind]bool, files ...string) []client.Object {
	t.Helper()
	decoder := serializer.NewCodecFactory(scheme).UniversalDeserializer()
	var objs []client.Object
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			var meta struct{ Kind string }
			if err := sigsyaml.Unmarshal(doc, &meta); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if meta.Kind == "" {
				continue // an empty document, or comments only
			}
			obj, gvk, err := decoder.Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			o, ok := obj.(client.Object)
			if !ok {
				t.Fatalf("%s: a %s is not an object", file, gvk.Kind)
			}
			if o.GetNamespace() == "" && !clusterScoped[gvk.GroupKind()] {
				o.SetNamespace("default")
			}
			objs = append(objs, o)
		}
	}
	return objs
}
`
