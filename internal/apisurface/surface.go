package main

import (
	"fmt"
	"go/types"
	"path"
	"slices"
	"strings"

	"golang.org/x/tools/go/packages"
)

// Faces are the packages an adopter's test imports, whose surface is
// recorded.
var Faces = []string{
	"github.com/ctrlsim/ctrlsim/operatortest",
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo",
}

// Surface loads patterns from dir and returns their surface's lines,
// sorted. module is the import-path prefix of the methods and fields that
// count (promoted ones from elsewhere are another module's surface).
func Surface(dir, module string, patterns ...string) ([]string, error) {
	cfg := &packages.Config{Dir: dir, Mode: packages.NeedName | packages.NeedTypes}
	pkgs, err := packages.Load(cfg, patterns...)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			return nil, fmt.Errorf("%s: %v", p.PkgPath, p.Errors[0])
		}
		lines = append(lines, pkgLines(p.Types, module)...)
	}
	slices.Sort(lines)
	return slices.Compact(lines), nil
}

// pkgLines are the lines of one package's exported names.
func pkgLines(pkg *types.Package, module string) []string {
	var out []string
	add := func(format string, args ...any) {
		out = append(out, "pkg "+pkg.Path()+", "+fmt.Sprintf(format, args...))
	}
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		switch obj := obj.(type) {
		case *types.Const:
			add("const %s %s", name, typeString(obj.Type()))
		case *types.Var:
			add("var %s %s", name, typeString(obj.Type()))
		case *types.Func:
			sig := obj.Type().(*types.Signature)
			add("func %s%s%s", name, typeParams(sig.TypeParams()), signature(sig))
		case *types.TypeName:
			typeLines(add, name, obj.Type(), module)
		}
	}
	return out
}

// typeLines adds a type's lines: its kind, then each exported field (of a
// struct) or method (of an interface), then each exported method of its
// method set declared in module.
func typeLines(add func(string, ...any), name string, t types.Type, module string) {
	t = types.Unalias(t)
	named, _ := t.(*types.Named)
	tparams := ""
	if named != nil {
		tparams = typeParams(named.TypeParams())
	}
	switch u := t.Underlying().(type) {
	case *types.Struct:
		add("type %s%s struct", name, tparams)
		for i := range u.NumFields() {
			f := u.Field(i)
			switch {
			case !f.Exported():
			case f.Embedded():
				add("type %s%s struct, embedded %s", name, tparams, typeString(f.Type()))
			default:
				add("type %s%s struct, %s %s", name, tparams, f.Name(), typeString(f.Type()))
			}
		}
	case *types.Interface:
		add("type %s%s interface", name, tparams)
		for i := range u.NumMethods() {
			m := u.Method(i)
			if m.Exported() {
				add("type %s%s interface, %s%s", name, tparams, m.Name(), signature(m.Type().(*types.Signature)))
			}
		}
		return
	default:
		if named == nil {
			add("type %s %s", name, typeString(t))
		} else {
			add("type %s%s %s", name, tparams, typeString(u))
		}
	}
	if named == nil {
		return
	}
	ms := types.NewMethodSet(types.NewPointer(t))
	for i := range ms.Len() {
		m := ms.At(i).Obj().(*types.Func)
		if !m.Exported() || m.Pkg() == nil || !inModule(m.Pkg().Path(), module) {
			continue
		}
		recv := name
		if _, ptr := m.Type().(*types.Signature).Recv().Type().(*types.Pointer); ptr && len(ms.At(i).Index()) == 1 {
			recv = "*" + name
		}
		add("method (%s) %s%s", recv, m.Name(), signature(m.Type().(*types.Signature)))
	}
}

func inModule(p, module string) bool { return p == module || strings.HasPrefix(p, module+"/") }

// typeParams prints [T constraint, ...], or nothing.
func typeParams(tps *types.TypeParamList) string {
	if tps.Len() == 0 {
		return ""
	}
	var b []string
	for i := range tps.Len() {
		b = append(b, tps.At(i).Obj().Name()+" "+typeString(tps.At(i).Constraint()))
	}
	return "[" + strings.Join(b, ", ") + "]"
}

// signature prints (params) results without names.
func signature(sig *types.Signature) string {
	s := "(" + tuple(sig.Params(), sig.Variadic()) + ")"
	switch r := sig.Results(); r.Len() {
	case 0:
	case 1:
		s += " " + typeString(r.At(0).Type())
	default:
		s += " (" + tuple(r, false) + ")"
	}
	return s
}

func tuple(t *types.Tuple, variadic bool) string {
	var b []string
	for i := range t.Len() {
		ty := t.At(i).Type()
		if variadic && i == t.Len()-1 {
			b = append(b, "..."+typeString(ty.(*types.Slice).Elem()))
			continue
		}
		b = append(b, typeString(ty))
	}
	return strings.Join(b, ", ")
}

// typeString prints t as its source spells it, each name qualified by its
// package's last path element: an alias by its own name (operatortest.Options,
// client.Object), as a caller writes it, not the type it names.
func typeString(t types.Type) string {
	switch t := t.(type) {
	case *types.Alias:
		return qualified(t.Obj(), t.TypeArgs())
	case *types.Basic:
		return t.Name()
	case *types.Named:
		return qualified(t.Obj(), t.TypeArgs())
	case *types.TypeParam:
		return t.Obj().Name()
	case *types.Pointer:
		return "*" + typeString(t.Elem())
	case *types.Slice:
		return "[]" + typeString(t.Elem())
	case *types.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), typeString(t.Elem()))
	case *types.Map:
		return "map[" + typeString(t.Key()) + "]" + typeString(t.Elem())
	case *types.Chan:
		switch t.Dir() {
		case types.SendOnly:
			return "chan<- " + typeString(t.Elem())
		case types.RecvOnly:
			return "<-chan " + typeString(t.Elem())
		}
		return "chan " + typeString(t.Elem())
	case *types.Signature:
		return "func" + signature(t)
	case *types.Struct:
		var b []string
		for i := range t.NumFields() {
			f := t.Field(i)
			if f.Embedded() {
				b = append(b, typeString(f.Type()))
			} else {
				b = append(b, f.Name()+" "+typeString(f.Type()))
			}
		}
		return "struct{" + strings.Join(b, "; ") + "}"
	case *types.Interface:
		var b []string
		for i := range t.NumEmbeddeds() {
			b = append(b, typeString(t.EmbeddedType(i)))
		}
		for i := range t.NumExplicitMethods() {
			m := t.ExplicitMethod(i)
			b = append(b, m.Name()+signature(m.Type().(*types.Signature)))
		}
		return "interface{" + strings.Join(b, "; ") + "}"
	case *types.Union:
		var b []string
		for i := range t.Len() {
			tm := t.Term(i)
			s := typeString(tm.Type())
			if tm.Tilde() {
				s = "~" + s
			}
			b = append(b, s)
		}
		return strings.Join(b, " | ")
	}
	return t.String()
}

// Diff compares a recorded surface with the current one: the recorded lines
// that are gone, and the current lines not recorded.
func Diff(recorded, current []string) (removed, added []string) {
	have := map[string]bool{}
	for _, l := range current {
		have[l] = true
	}
	was := map[string]bool{}
	for _, l := range recorded {
		was[l] = true
		if !have[l] {
			removed = append(removed, l)
		}
	}
	for _, l := range current {
		if !was[l] {
			added = append(added, l)
		}
	}
	return removed, added
}

// qualified prints a type's name, qualified, with its type arguments.
func qualified(obj *types.TypeName, targs *types.TypeList) string {
	s := obj.Name()
	if p := obj.Pkg(); p != nil {
		s = path.Base(p.Path()) + "." + s
	}
	if targs.Len() > 0 {
		var b []string
		for i := range targs.Len() {
			b = append(b, typeString(targs.At(i)))
		}
		s += "[" + strings.Join(b, ", ") + "]"
	}
	return s
}
