package inputfile

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// opens are the functions that open or read a file by its name, by the
// package that has them. Production code calls them only here, and in the
// places deliberateOpens lists.
var opens = map[string][]string{
	"os":                    {"Open", "OpenFile", "ReadFile", "OpenRoot", "OpenInRoot", "DirFS", "NewFile"},
	"io/ioutil":             {"ReadFile", "ReadDir"},
	"syscall":               {"Open", "Openat"},
	"golang.org/x/sys/unix": {"Open", "Openat", "Openat2"},
}

// deliberateOpens are the places that open a file otherwise than through
// this package, each for a reason: none of them is a file an input names.
// A place is "path/of/file.go:Function" (or Type.Method), or a package's
// folder "path/" when every file of it may.
var deliberateOpens = map[string]string{
	"internal/dirlock/lock_unix.go:openNoFollow":  "the output folder's own lock file, created and locked, never read",
	"internal/dirlock/open_other.go:openNoFollow": "the output folder's own lock file, created and locked, never read",
	"internal/process/":                           "the system's /proc entries of evalgate's descendants, read to end them; no input names them",
	"action/outputs.go:appendFile":                "appends to $GITHUB_OUTPUT and the runner's other file commands, never reads them",
}

// deliberate returns the entry of deliberateOpens that allows place.
func deliberate(place string) (string, bool) {
	if _, ok := deliberateOpens[place]; ok {
		return place, true
	}
	for p := range deliberateOpens {
		if strings.HasSuffix(p, "/") && strings.HasPrefix(place, p) && !strings.Contains(place[len(p):], "/") {
			return p, true
		}
	}
	return "", false
}

// TestEveryInputFileGoesThroughInputfile is the one reader's guarantee
// made structural: a production file of evalgate (a package the binary
// is built from) that opens a file by name any other way than through
// this package (os.Open, os.ReadFile, os.OpenFile, an os.Root, a system
// call) fails it, unless the place is one of deliberateOpens, which says
// why. A new kind of input declares an inputfile.Kind instead
// (TestNewKind). Tests, and the packages only tests and tools import (the
// benchmarks, the release, the examples, test helpers), read no input of
// evalgate's.
func TestEveryInputFileGoesThroughInputfile(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	assert.NilError(t, err)
	const module = "github.com/evalgate/evalgate"
	imports := map[string][]string{} // by package folder, from the root
	places := map[string][]string{}  // by package folder
	fset := token.NewFileSet()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if d.Name() == "testdata" || d.Name() == "node_modules" || (strings.HasPrefix(d.Name(), ".") && rel != ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(rel))
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p == module {
				imports[dir] = append(imports[dir], ".")
			} else if rest, ok := strings.CutPrefix(p, module+"/"); ok {
				imports[dir] = append(imports[dir], rest)
			}
		}
		for _, place := range openCalls(f) {
			places[dir] = append(places[dir], rel+":"+place)
		}
		return nil
	})
	assert.NilError(t, err)

	// The packages the binary is built from: main's, and what it imports.
	built := map[string]bool{".": true}
	for queue := []string{"."}; len(queue) > 0; queue = queue[1:] {
		for _, dep := range imports[queue[0]] {
			if !built[dep] {
				built[dep] = true
				queue = append(queue, dep)
			}
		}
	}
	assert.Assert(t, built["internal/inputfile"] && built["cli"], "the walk of main's imports found %d packages", len(built))

	used := map[string]bool{}
	for dir, found := range places {
		if !built[dir] || dir == "internal/inputfile" {
			continue
		}
		for _, place := range found {
			entry, ok := deliberate(place)
			if !ok {
				t.Errorf("%s opens a file by name: read an input file through internal/inputfile (a Kind, ReadIn, OpenIn), or add the place to deliberateOpens with the reason it is not an input", place)
			}
			used[entry] = true
		}
	}
	for place := range deliberateOpens {
		if !used[place] {
			t.Errorf("deliberateOpens lists %s, which opens no file any more: remove it", place)
		}
	}
}

// openCalls returns the functions of f (Function, or Type.Method) that
// call one of opens, once each.
func openCalls(f *ast.File) []string {
	names := map[string]string{} // the name a file imports a package by, to its path
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		if _, ok := opens[path]; !ok {
			continue
		}
		name := path[strings.LastIndex(path, "/")+1:]
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
	}
	var places []string
	for _, decl := range f.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Body == nil {
			continue
		}
		place := fn.Name.Name
		if fn.Recv != nil && len(fn.Recv.List) > 0 {
			typ := fn.Recv.List[0].Type
			if star, ok := typ.(*ast.StarExpr); ok {
				typ = star.X
			}
			if id, ok := typ.(*ast.Ident); ok {
				place = id.Name + "." + place
			}
		}
		ast.Inspect(fn.Body, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			if path, ok := names[pkg.Name]; ok && slices.Contains(opens[path], sel.Sel.Name) && !slices.Contains(places, place) {
				places = append(places, place)
			}
			return true
		})
	}
	return places
}
