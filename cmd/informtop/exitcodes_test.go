package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// docs/usage.md's exit code table is exitCodes, row for row, in the order
// the codes win: what users read is what the binary does.
func TestUsageDocListsTheExitCodes(t *testing.T) {
	doc, err := os.ReadFile("../../docs/usage.md")
	if err != nil {
		t.Fatal(err)
	}
	row := regexp.MustCompile(`(?m)^\| ([0-9]+) \| (.+) \|$`)
	rows := row.FindAllStringSubmatch(string(doc), -1)
	if len(rows) != len(exitCodes) {
		t.Fatalf("docs/usage.md has %d exit code rows, exitCodes %d: write the table from exitCodes", len(rows), len(exitCodes))
	}
	seen := map[int]bool{}
	for i, r := range rows {
		code, _ := strconv.Atoi(r[1])
		want := exitCodes[i]
		if code != want.code || r[2] != want.meaning {
			t.Errorf("row %d of docs/usage.md's exit codes reads\n| %s | %s |\nwant\n| %d | %s |", i+1, r[1], r[2], want.code, want.meaning)
		}
		if seen[code] {
			t.Errorf("exit code %d has two rows", code)
		}
		seen[code] = true
	}
	for _, c := range []int{exitOK, exitNotSynced, exitBadInput, exitDiffers, exitUnverified, exitStalled} {
		if !seen[c] {
			t.Errorf("exit code %d has no row in docs/usage.md", c)
		}
	}
}

// An exit code is named where it is returned: a bare number in a function
// that returns the exit code (run…, …Once) or in an exitError is one
// docs/usage.md's table may not know.
func TestExitCodesAreNamed(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			returnsCode := (strings.HasPrefix(fn.Name.Name, "run") || strings.HasSuffix(fn.Name.Name, "Once")) &&
				fn.Type.Results != nil && isInt(fn.Type.Results.List[0].Type)
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch x := n.(type) {
				case *ast.FuncLit:
					return false // its returns are its own
				case *ast.ReturnStmt:
					if returnsCode && len(x.Results) > 0 && isIntLit(x.Results[0]) {
						t.Errorf("%s: %s returns a bare exit code: use one of exitCodes' names", fset.Position(x.Pos()), fn.Name.Name)
					}
				case *ast.CompositeLit:
					if id, ok := x.Type.(*ast.Ident); ok && id.Name == "exitError" && len(x.Elts) == 1 && isIntLit(x.Elts[0]) {
						t.Errorf("%s: exitError with a bare code: use one of exitCodes' names", fset.Position(x.Pos()))
					}
				}
				return true
			})
		}
	}
}

func isInt(e ast.Expr) bool { id, ok := e.(*ast.Ident); return ok && id.Name == "int" }

func isIntLit(e ast.Expr) bool { l, ok := e.(*ast.BasicLit); return ok && l.Kind == token.INT }
