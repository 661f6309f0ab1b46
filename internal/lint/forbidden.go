package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Finding is one forbidden use, with the position of the offending
// expression and the reason it is forbidden.
type Finding struct {
	Pos    token.Position
	Use    string
	Reason string
}

// String formats the finding as file:line:col: use: reason.
func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s: %s", f.Pos.Filename, f.Pos.Line, f.Pos.Column, f.Use, f.Reason)
}

const (
	wallClock  = "reads or waits on the wall clock; use the cluster clock"
	globalRand = "uses the global random source; use a seeded stream"
	protoTimer = "runs a protoactor timer on the wall clock; use the cluster clock"
)

// forbiddenTime lists the functions of package time that read or wait on
// the wall clock. Types, constants and pure conversions stay allowed.
var forbiddenTime = map[string]bool{
	"Now": true, "Since": true, "Until": true, "Sleep": true, "After": true,
	"AfterFunc": true, "NewTimer": true, "NewTicker": true, "Tick": true,
}

// allowedRand lists what math/rand and math/rand/v2 may be used for:
// building a seeded generator and naming its types. Every other package
// level name draws from the shared global source.
var allowedRand = map[string]bool{
	"New": true, "NewSource": true, "NewPCG": true, "NewChaCha8": true, "NewZipf": true,
	"Rand": true, "Source": true, "Source64": true, "PCG": true, "ChaCha8": true, "Zipf": true,
}

// forbiddenMethods are protoactor calls that arm wall-clock timers or block
// on futures with wall-clock timeouts, whatever their receiver.
var forbiddenMethods = map[string]bool{
	"SetReceiveTimeout": true, "RequestFuture": true, "StopFuture": true,
	"PoisonFuture": true, "ReenterAfter": true,
}

const schedulerPkg = "github.com/asynkron/protoactor-go/scheduler"

// CheckDirs parses every Go file (tests included) under each directory,
// skipping testdata, and returns the forbidden uses sorted by position.
func CheckDirs(dirs ...string) ([]Finding, error) {
	var all []Finding
	for _, dir := range dirs {
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") {
				return nil
			}
			found, err := CheckFile(path, nil)
			all = append(all, found...)
			return err
		})
		if err != nil {
			return all, err
		}
	}
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i].Pos, all[j].Pos
		if a.Filename != b.Filename {
			return a.Filename < b.Filename
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Column < b.Column
	})
	return all, nil
}

// CheckFile parses one file (from src when it is not nil, as
// go/parser.ParseFile does) and returns its forbidden uses in source order.
func CheckFile(filename string, src any) ([]Finding, error) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filename, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	c := checker{fset: fset, pkgs: map[string]string{}}
	c.readImports(file)
	ast.Inspect(file, c.visit)
	return c.found, nil
}

type checker struct {
	fset  *token.FileSet
	pkgs  map[string]string // local name -> import path, for the packages we watch
	found []Finding
}

func (c *checker) report(pos token.Pos, use, reason string) {
	c.found = append(c.found, Finding{Pos: c.fset.Position(pos), Use: use, Reason: reason})
}

func (c *checker) readImports(file *ast.File) {
	for _, imp := range file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if path == schedulerPkg {
			c.report(imp.Pos(), "import "+path, protoTimer)
			continue
		}
		if path != "time" && path != "math/rand" && path != "math/rand/v2" {
			continue
		}
		name := defaultName(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		if name == "." {
			c.report(imp.Pos(), "dot import of "+path, "hides which names are used; import it by name")
			continue
		}
		c.pkgs[name] = path
	}
}

func defaultName(path string) string {
	if path == "math/rand/v2" {
		return "rand"
	}
	return path[strings.LastIndex(path, "/")+1:]
}

func (c *checker) visit(n ast.Node) bool {
	sel, ok := n.(*ast.SelectorExpr)
	if !ok {
		return true
	}
	name := sel.Sel.Name
	if id, ok := sel.X.(*ast.Ident); ok {
		switch c.pkgs[id.Name] {
		case "time":
			if forbiddenTime[name] {
				c.report(sel.Pos(), "time."+name, wallClock)
			}
			return true
		case "math/rand", "math/rand/v2":
			if !allowedRand[name] {
				c.report(sel.Pos(), c.pkgs[id.Name]+"."+name, globalRand)
			}
			return true
		}
	}
	if forbiddenMethods[name] {
		c.report(sel.Sel.Pos(), name, protoTimer)
	}
	return true
}
