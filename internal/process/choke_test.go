package process

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// startersOf are the functions, by package, that start a process other
// than through Start.
var startersOf = map[string]map[string]bool{
	"os":                    {"StartProcess": true},
	"syscall":               {"ForkExec": true, "StartProcess": true, "Exec": true},
	"golang.org/x/sys/unix": {"Exec": true},
}

// TestOnlyThisPackageStartsProcesses: no production code of the module
// outside this package imports os/exec or calls a function that starts a
// process, so every child evalgate starts goes through the one lifecycle
// (lifecycle.go). Tests start what they like, and so does
// internal/testenv, which only tests import; scripts/ are build tools,
// not part of evalgate; bench/spawnfloor measures what starting agents
// costs without that lifecycle, so it starts them as plainly as it can.
func TestOnlyThisPackageStartsProcesses(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	assert.NilError(t, err)
	self, err := filepath.Abs(".")
	assert.NilError(t, err)
	checked := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path == self || path == filepath.Join(root, "scripts") || path == filepath.Join(root, "bench", "spawnfloor") || path == filepath.Join(root, "internal", "testenv") || name == "testdata" || name == "node_modules" || strings.HasPrefix(name, ".") && path != root {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		checked++
		for _, problem := range processStarts(t, path) {
			rel, _ := filepath.Rel(root, path)
			t.Errorf("%s:%s: start processes with internal/process (Start or Run), which holds every child in one lifecycle", rel, problem)
		}
		return nil
	})
	assert.NilError(t, err)
	assert.Assert(t, checked > 100, "only %d files checked", checked)
}

// processStarts lists where the file at path imports os/exec or calls a
// function of startersOf.
func processStarts(t *testing.T, path string) []string {
	t.Helper()
	src, err := os.ReadFile(path)
	assert.NilError(t, err)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution)
	assert.NilError(t, err)
	var problems []string
	names := map[string]string{} // local name to import path
	for _, imp := range f.Imports {
		p, _ := strconv.Unquote(imp.Path.Value)
		if p == "os/exec" {
			problems = append(problems, strconv.Itoa(fset.Position(imp.Pos()).Line)+": imports os/exec")
		}
		name := p[strings.LastIndexByte(p, '/')+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = p
	}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if x, ok := sel.X.(*ast.Ident); ok && startersOf[names[x.Name]][sel.Sel.Name] {
			problems = append(problems, strconv.Itoa(fset.Position(sel.Pos()).Line)+": calls "+names[x.Name]+"."+sel.Sel.Name)
		}
		return true
	})
	return problems
}

// TestProcessStartsFound: the check finds each way of starting a process.
func TestProcessStartsFound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "starts.go")
	assert.NilError(t, os.WriteFile(path, []byte(`package x

import (
	"os"
	"os/exec"
	sys "syscall"
)

func f() {
	exec.Command("git")
	os.StartProcess("git", nil, nil)
	sys.ForkExec("git", nil, nil)
}
`), 0o644))
	assert.DeepEqual(t, processStarts(t, path), []string{"5: imports os/exec", "11: calls os.StartProcess", "12: calls syscall.ForkExec"})
}
