// Reference call graph of a Go module tree, by go/types: every call expression's callee
// object (a function, or a method through its selection) and where it is declared.
//
//	go run . ROOT > ref.json
//
// Output: the same JSON as ref_python.py. Defs are function and method declarations; a call
// inside a function literal belongs to the declaration around it, one in a package-level
// variable's initialiser to the file's top level. Packages of the module are type-checked from
// source, the standard library by the "source" importer; other modules are left out (empty
// packages: their calls count as unresolved). A call of an interface's method, or of a
// variable, field or parameter of function type, is left unresolved: which function runs is
// the runtime's choice. Conversions and builtins are not calls.
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type def struct {
	Path   string  `json:"path"`
	Name   string  `json:"name"`
	Line   int     `json:"line"`
	End    int     `json:"end"`
	Kind   string  `json:"kind"`
	Class  *string `json:"class"`
	Ctor   bool    `json:"ctor"`
	Lambda bool    `json:"in_lambda"`
}
type edge struct {
	Caller string `json:"caller"`
	Callee string `json:"callee"`
	Site   string `json:"site"`
	How    string `json:"how"`
}
type unres struct {
	Caller string `json:"caller"`
	Site   string `json:"site"`
	Why    string `json:"why"`
}

var (
	root    string
	module  string
	fset    = token.NewFileSet()
	std     = importer.ForCompiler(fset, "source", nil)
	pkgs    = map[string]*types.Package{}
	files   = map[string][]*ast.File{}
	infos   = map[string]*types.Info{}
	defs    = map[string]def{}
	edges   []edge
	unreses []unres
	extern  int
)

func rel(p string) string { r, _ := filepath.Rel(root, p); return r }

type imp struct{}

func (imp) Import(path string) (*types.Package, error) {
	if path == module || strings.HasPrefix(path, module+"/") {
		return check(path), nil
	}
	if !strings.Contains(strings.Split(path, "/")[0], ".") {
		return std.Import(path)
	}
	return types.NewPackage(path, filepath.Base(path)), nil // another module: left out
}

func check(path string) *types.Package {
	if p, ok := pkgs[path]; ok {
		return p
	}
	dir := filepath.Join(root, strings.TrimPrefix(strings.TrimPrefix(path, module), "/"))
	parsed, _ := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, parser.ParseComments)
	var fs []*ast.File
	names := make([]string, 0, len(parsed))
	for n := range parsed {
		if !strings.HasSuffix(n, "_test") && n != "main" || len(parsed) == 1 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	if len(names) > 0 {
		for _, f := range parsed[names[0]].Files {
			fs = append(fs, f)
		}
	}
	sort.Slice(fs, func(i, j int) bool { return fset.File(fs[i].Pos()).Name() < fset.File(fs[j].Pos()).Name() })
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}, Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Importer: imp{}, Error: func(error) {}}
	p, _ := conf.Check(path, fset, fs, info)
	pkgs[path], files[path], infos[path] = p, fs, info
	return p
}

func key(pos token.Pos) (string, bool) {
	p := fset.Position(pos)
	if !strings.HasPrefix(p.Filename, root+string(os.PathSeparator)) {
		return "", false
	}
	return fmt.Sprintf("%s:%d", rel(p.Filename), p.Line), true
}

func main() {
	root, _ = filepath.Abs(os.Args[1])
	mod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		panic(err)
	}
	for _, l := range strings.Split(string(mod), "\n") {
		if strings.HasPrefix(l, "module ") {
			module = strings.TrimSpace(strings.TrimPrefix(l, "module "))
		}
	}
	var dirs []string
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			b := fi.Name()
			if p != root && (strings.HasPrefix(b, ".") || b == "testdata" || b == "vendor") {
				return filepath.SkipDir
			}
			dirs = append(dirs, p)
		}
		return nil
	})
	for _, d := range dirs {
		path := module
		if r := rel(d); r != "." {
			path = module + "/" + filepath.ToSlash(r)
		}
		check(path)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		for _, f := range files[p] {
			scan(f, infos[p])
		}
	}
	out := map[string]any{"tool": "go/types " + strings.TrimPrefix(goVersion(), "go"), "defs": defs, "edges": edges, "unresolved": unreses, "skipped": map[string]int{}, "external_sites": extern}
	if out["edges"] == nil {
		out["edges"] = []edge{}
	}
	json.NewEncoder(os.Stdout).Encode(out)
}

func scan(f *ast.File, info *types.Info) {
	top := "<" + rel(fset.File(f.Pos()).Name()) + ">"
	for _, d := range f.Decls {
		caller := top
		if fd, ok := d.(*ast.FuncDecl); ok {
			k, _ := key(fd.Name.Pos())
			var cls *string
			if fd.Recv != nil && len(fd.Recv.List) > 0 {
				t := fd.Recv.List[0].Type
				for {
					switch x := t.(type) {
					case *ast.StarExpr:
						t = x.X
						continue
					case *ast.IndexExpr:
						t = x.X
						continue
					case *ast.IndexListExpr:
						t = x.X
						continue
					}
					break
				}
				if id, ok := t.(*ast.Ident); ok {
					if o := info.Uses[id]; o != nil {
						if ck, ok := key(o.Pos()); ok {
							cls = &ck
						}
					}
				}
			}
			kind := "function"
			if fd.Body == nil {
				kind = "abstract"
			}
			defs[k] = def{Path: rel(fset.Position(fd.Pos()).Filename), Name: fd.Name.Name, Line: fset.Position(fd.Name.Pos()).Line, End: fset.Position(fd.End()).Line, Kind: kind, Class: cls}
			caller = k
		}
		ast.Inspect(d, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			call(c, caller, info)
			return true
		})
	}
}

func call(c *ast.CallExpr, caller string, info *types.Info) {
	fun := unparen(c.Fun)
	var id *ast.Ident
	var sel *ast.SelectorExpr
	switch x := fun.(type) {
	case *ast.Ident:
		id = x
	case *ast.SelectorExpr:
		id, sel = x.Sel, x
	case *ast.IndexExpr: // f[T](...)
		if i, ok := unparen(x.X).(*ast.Ident); ok {
			id = i
		}
	}
	at := c.Lparen
	if id != nil {
		at = id.Pos()
	}
	p := fset.Position(at)
	site := fmt.Sprintf("%s:%d:%d", rel(p.Filename), p.Line, p.Column)
	if tv, ok := info.Types[c.Fun]; ok && (tv.IsType() || tv.IsBuiltin()) {
		return // a conversion or a builtin
	}
	if id == nil {
		unreses = append(unreses, unres{caller, site, "callee is not a name"})
		return
	}
	var obj types.Object
	if sel != nil {
		if s := info.Selections[sel]; s != nil {
			obj = s.Obj()
		}
	}
	if obj == nil {
		obj = info.Uses[id]
	}
	fn, ok := obj.(*types.Func)
	if !ok {
		if obj == nil {
			unreses = append(unreses, unres{caller, site, "not resolved"})
		} else {
			unreses = append(unreses, unres{caller, site, "callee is a value of function type"})
		}
		return
	}
	if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
		if types.IsInterface(sig.Recv().Type()) {
			unreses = append(unreses, unres{caller, site, "interface method"})
			return
		}
	}
	fn = fn.Origin()
	k, ok := key(fn.Pos())
	if !ok {
		extern++
		return
	}
	edges = append(edges, edge{caller, k, site, "call"})
}

func unparen(e ast.Expr) ast.Expr {
	for {
		p, ok := e.(*ast.ParenExpr)
		if !ok {
			return e
		}
		e = p.X
	}
}
