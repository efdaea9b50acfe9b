// Command doors measures the window's doors for scripts/doors.sh: how many
// methods each interface of a package has (the methods of the interfaces
// it embeds from the same package counted in), and every type assertion
// or type switch case in its non-test files that looks for an interface
// the package declares, or for an interface literal: a window that finds
// a workflow's door by asking what else it is.
//
//	go run ./scripts/doors -dir ui -max 15
//
// It prints one line per interface and per assertion, and exits 1 when an
// interface has more than -max methods or an assertion was found (2 when
// the package cannot be read). It parses; it does not type-check, so an
// interface embedded from another package is named, not counted (none of
// ui's is today).
package main

import (
	"flag"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	dir := flag.String("dir", "ui", "the package's folder")
	limit := flag.Int("max", 15, "the most methods an interface may have")
	flag.Parse()
	ifaces, asserts, err := measure(*dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "doors:", err)
		os.Exit(2)
	}
	miss := false
	names := make([]string, 0, len(ifaces))
	for n := range ifaces {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		count, foreign := ifaces.methods(n, nil)
		verdict := "ok"
		if count > *limit {
			verdict, miss = "over", true
		}
		extra := ""
		if len(foreign) > 0 {
			extra = " (and what it embeds from other packages, not counted: " + strings.Join(foreign, ", ") + ")"
		}
		fmt.Printf("interface %s.%s: %d methods, limit %d: %s%s\n", filepath.Base(*dir), n, count, *limit, verdict, extra)
	}
	for _, a := range asserts {
		fmt.Printf("type assertion to an interface: %s: found\n", a)
		miss = true
	}
	if len(asserts) == 0 {
		fmt.Printf("type assertions to an interface of %s: none: ok\n", filepath.Base(*dir))
	}
	if miss {
		os.Exit(1)
	}
}

// interfaces are a package's interface types by name.
type interfaces map[string]*ast.InterfaceType

// methods counts n's methods, those of the interfaces it embeds from the
// package included (once each, however often embedded), and names what
// it embeds from elsewhere.
func (is interfaces) methods(n string, seen map[string]bool) (int, []string) {
	if seen == nil {
		seen = map[string]bool{}
	}
	if seen[n] {
		return 0, nil
	}
	seen[n] = true
	count := 0
	var foreign []string
	for _, f := range is[n].Methods.List {
		switch t := f.Type.(type) {
		case *ast.FuncType:
			count += len(f.Names)
		case *ast.Ident:
			if _, ok := is[t.Name]; ok {
				c, fo := is.methods(t.Name, seen)
				count += c
				foreign = append(foreign, fo...)
			} else {
				foreign = append(foreign, t.Name)
			}
		default:
			foreign = append(foreign, types(f.Type))
		}
	}
	return count, foreign
}

// measure reads the non-test files of dir: its interfaces, and the places
// that assert one of them or an interface literal.
func measure(dir string) (interfaces, []string, error) {
	fset := token.NewFileSet()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, nil, err
	}
	var parsed []*ast.File
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, nil, err
		}
		parsed = append(parsed, f)
	}
	if len(parsed) == 0 {
		return nil, nil, fmt.Errorf("no Go files in %s", dir)
	}
	is := interfaces{}
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			if ts, ok := n.(*ast.TypeSpec); ok {
				if it, ok := ts.Type.(*ast.InterfaceType); ok {
					is[ts.Name.Name] = it
				}
			}
			return true
		})
	}
	var asserts []string
	toInterface := func(t ast.Expr) bool {
		switch t := t.(type) {
		case *ast.InterfaceType:
			return true
		case *ast.Ident:
			_, ok := is[t.Name]
			return ok
		}
		return false
	}
	for _, f := range parsed {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.TypeAssertExpr:
				if n.Type != nil && toInterface(n.Type) {
					asserts = append(asserts, fmt.Sprintf("%s .(%s)", fset.Position(n.Pos()), types(n.Type)))
				}
			case *ast.TypeSwitchStmt:
				for _, c := range n.Body.List {
					for _, t := range c.(*ast.CaseClause).List {
						if toInterface(t) {
							asserts = append(asserts, fmt.Sprintf("%s case %s", fset.Position(t.Pos()), types(t)))
						}
					}
				}
			}
			return true
		})
	}
	return is, asserts, nil
}

// types names a type expression as written.
func types(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return types(e.X) + "." + e.Sel.Name
	case *ast.InterfaceType:
		return "interface{…}"
	}
	return fmt.Sprintf("%T", e)
}
