package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

const modulePath = "github.com/evalgate/evalgate/"

// TestArchitectureLayers keeps docs/architecture.md's "Who owns what"
// table true: each package it lists imports none of the packages in its
// "never imports" column, in its code (tests may import more).
func TestArchitectureLayers(t *testing.T) {
	doc, err := os.ReadFile("docs/architecture.md")
	assert.NilError(t, err)
	_, section, ok := strings.Cut(string(doc), "\n## Who owns what\n")
	assert.Assert(t, ok, "docs/architecture.md has no \"## Who owns what\" section")
	section, _, _ = strings.Cut(section, "\n## ")

	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|[^|]*\\| ([^|]*) \\|$")
	name := regexp.MustCompile("`([^`]+)`")
	rows := row.FindAllStringSubmatch(section, -1)
	assert.Assert(t, len(rows) >= 5, "the table of docs/architecture.md lists %d packages", len(rows))
	for _, r := range rows {
		pkg := r[1]
		imports := codeImports(t, pkg)
		for _, never := range name.FindAllStringSubmatch(r[2], -1) {
			assert.Check(t, !slices.Contains(imports, never[1]),
				"%s imports %s, which docs/architecture.md says it never imports", pkg, never[1])
		}
	}
}

// TestRunnerDoesNotScore checks what docs/architecture.md says of runner
// and judges: runner names nothing of judges but the trial it hands to
// the scorer.
func TestRunnerDoesNotScore(t *testing.T) {
	allowed := []string{"Trial", "Observation"}
	for _, f := range codeFiles(t, "runner") {
		judges := ""
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == modulePath+"judges" {
				judges = "judges"
				if imp.Name != nil {
					judges = imp.Name.Name
				}
			}
		}
		if judges == "" {
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == judges {
				assert.Check(t, slices.Contains(allowed, sel.Sel.Name),
					"runner uses judges.%s: runner records trials, judges scores them (docs/architecture.md)", sel.Sel.Name)
			}
			return true
		})
	}
}

// TestLinksNoOpenTelemetrySDK keeps the OpenTelemetry SDK out of the
// evalgate binary (docs/architecture.md, "What every command links"):
// of go.opentelemetry.io it links only the project's protobuf
// definitions, which the trace receiver and the export use.
func TestLinksNoOpenTelemetrySDK(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	assert.NilError(t, err, "go list -deps .")
	var linked []string
	for _, p := range strings.Fields(string(out)) {
		if strings.HasPrefix(p, "go.opentelemetry.io/") && !strings.HasPrefix(p, "go.opentelemetry.io/proto/otlp/") {
			linked = append(linked, p)
		}
	}
	assert.Check(t, len(linked) == 0, "evalgate links %s: every linked package's init runs in every "+
		"command and costs every start its pages, and evalgate needs of OpenTelemetry only its protobuf "+
		"definitions (go.opentelemetry.io/proto/otlp/...); build the OTLP messages with them, as otelexport "+
		"does (docs/architecture.md)", strings.Join(linked, ", "))
}

// codeImports lists the module's packages that dir's code imports, as
// paths inside the module.
func codeImports(t *testing.T, dir string) []string {
	t.Helper()
	var imports []string
	for _, f := range codeFiles(t, dir) {
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			assert.NilError(t, err)
			if rel, ok := strings.CutPrefix(p, modulePath); ok {
				imports = append(imports, rel)
			}
		}
	}
	slices.Sort(imports)
	return slices.Compact(imports)
}

// codeFiles parses the Go files of dir that are not tests.
func codeFiles(t *testing.T, dir string) []*ast.File {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(filepath.FromSlash(dir), "*.go"))
	assert.NilError(t, err)
	assert.Assert(t, len(paths) > 0, "no Go files in %s", dir)
	var files []*ast.File
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		assert.NilError(t, err)
		files = append(files, f)
	}
	return files
}
