package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testHatch is the one exported function of source/local that hands out
// the engine: for tests that look inside the pipeline. Non-test code
// calling it fails TestNoEngineHatchOutsideTests.
const testHatch = "EngineOf"

// engineLeaks names the exported declarations of one file whose results,
// fields or aliased types carry an engine type: an engine value handed
// across a layer. allowed names exceptions (the test hatch).
func engineLeaks(fset *token.FileSet, f *ast.File, allowed map[string]bool) []string {
	engines := map[string]bool{} // local names of the engine's packages
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		rel, ok := strings.CutPrefix(path, module+"/")
		if !ok || !isEngine(rel) {
			continue
		}
		name := rel[strings.LastIndex(rel, "/")+1:]
		if im.Name != nil {
			name = im.Name.Name
		}
		engines[name] = true
	}
	if len(engines) == 0 {
		return nil
	}
	mentions := func(e ast.Expr) bool {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := sel.X.(*ast.Ident); ok && engines[id.Name] {
					found = true
				}
			}
			return !found
		})
		return found
	}
	var out []string
	at := func(n ast.Node, what string) { out = append(out, fset.Position(n.Pos()).String()+": "+what) }
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() || allowed[d.Name.Name] || d.Type.Results == nil {
				continue
			}
			if d.Recv != nil && !exportedReceiver(d.Recv.List[0].Type) {
				continue
			}
			for _, r := range d.Type.Results.List {
				if mentions(r.Type) {
					at(d, d.Name.Name+" returns an engine type")
				}
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				ts, ok := s.(*ast.TypeSpec)
				if !ok || !ts.Name.IsExported() {
					continue
				}
				if ts.Assign.IsValid() && mentions(ts.Type) {
					at(ts, ts.Name.Name+" is an alias of an engine type")
				}
				if st, ok := ts.Type.(*ast.StructType); ok {
					for _, fl := range st.Fields.List {
						if len(fl.Names) > 0 && fl.Names[0].IsExported() && mentions(fl.Type) {
							at(fl, ts.Name.Name+"."+fl.Names[0].Name+" is of an engine type")
						}
					}
				}
			}
		}
	}
	return out
}

func exportedReceiver(e ast.Expr) bool {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}

// goFiles parses a package directory's files, tests or not.
func goFiles(t *testing.T, fset *token.FileSet, dir string, tests bool) []*ast.File {
	t.Helper()
	ents, err := os.ReadDir(filepath.Join(root, dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []*ast.File
	for _, e := range ents {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") != tests {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(root, dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

// Packages that speak the engine (its adapter, the agent's engine
// server) keep it inside: no exported function, method, field or alias
// of theirs hands an engine value to a layer that must not import it.
func TestNoEngineValueCrossesALayer(t *testing.T) {
	fset := token.NewFileSet()
	for name, p := range packages(t) {
		if l := layers[name]; l == engineLayer || l == toolLayer {
			continue
		}
		speaks := false
		for _, d := range p.imports {
			speaks = speaks || isEngine(d)
		}
		if !speaks {
			continue
		}
		allowed := map[string]bool{}
		if name == "source/local" {
			allowed[testHatch] = true
		}
		for _, f := range goFiles(t, fset, name, false) {
			for _, leak := range engineLeaks(fset, f, allowed) {
				t.Errorf("%s: add a method that returns what the caller needs in the model instead", leak)
			}
		}
	}
}

// The check above would catch the accessor this package once had.
func TestEngineLeakCheckCatchesAnAccessor(t *testing.T) {
	const src = `package local
import eng "github.com/informtop/informtop/engine"
type Informer struct{ inf *eng.Informer }
type Meter = eng.TransformMeter
type Spec struct{ Inf *eng.Informer; inf *eng.Informer }
func (i *Informer) Engine() *eng.Informer { return i.inf }
func (i *Informer) engine() *eng.Informer { return i.inf }
func (i *Informer) Name() string { return "" }
func EngineOf(i *Informer) *eng.Informer { return i.inf }
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "local.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := engineLeaks(fset, f, map[string]bool{testHatch: true})
	want := []string{"Meter is an alias", "Spec.Inf is of an engine type", "Engine returns an engine type"}
	if len(got) != len(want) {
		t.Fatalf("found %q, want %d leaks: %q", got, len(want), want)
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("leak %d is %q, want one saying %q", i, got[i], w)
		}
	}
}

// The test hatch serves tests only.
func TestNoEngineHatchOutsideTests(t *testing.T) {
	fset := token.NewFileSet()
	for name := range packages(t) {
		if name == "source/local" {
			continue
		}
		for _, f := range goFiles(t, fset, name, false) {
			local := ""
			for _, im := range f.Imports {
				if path, _ := strconv.Unquote(im.Path.Value); path == module+"/source/local" {
					local = "local"
					if im.Name != nil {
						local = im.Name.Name
					}
				}
			}
			if local == "" {
				continue
			}
			ast.Inspect(f, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok && sel.Sel.Name == testHatch {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == local {
						t.Errorf("%s: local.%s outside a test: use a method of local.Informer", fset.Position(sel.Pos()), testHatch)
					}
				}
				return true
			})
		}
	}
}
