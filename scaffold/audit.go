package scaffold

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"
)

// auditDefaultFile is the definition the audit grades when init is given
// none.
const auditDefaultFile = "AGENTS.md"

// auditSuiteFile is the audit's suite, a task per definition file.
const auditSuiteFile = "evals/agent-audit.yaml"

// auditSuite is the audit suite's template: one task per definition file,
// the first holding the ten graded criteria and the others referring to it.
// It is parsed when init first needs it, not when every command starts.
var auditSuite = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("suite").Funcs(template.FuncMap{
		"quote": func(s string) string { b, _ := json.Marshal(s); return string(b) }, // a JSON string is a YAML one
	}).ParseFS(embedded, "files/agent-audit/suite.yaml.tmpl")).Lookup("suite.yaml.tmpl")
})

// auditTask is one definition file the audit grades.
type auditTask struct{ ID, Path string }

// auditFiles are the files `init --template agent-audit` writes for the
// definition files paths (relative to the project folder): the project
// file, the suite with a task per file, and the workflow.
func auditFiles(paths []string) ([]file, error) {
	if len(paths) == 0 {
		paths = []string{auditDefaultFile}
	}
	tasks := make([]auditTask, len(paths))
	seen := map[string]bool{}
	for i, p := range paths {
		if filepath.IsAbs(p) || p == "" {
			return nil, fmt.Errorf("expected definition files relative to the project folder (--dir), got %q", p)
		}
		id := auditTaskID(p)
		for n := 2; seen[id]; n++ {
			id = auditTaskID(p) + "-" + strconv.Itoa(n)
		}
		seen[id] = true
		tasks[i] = auditTask{ID: id, Path: filepath.ToSlash(p)}
	}
	var suite bytes.Buffer
	if err := auditSuite().Execute(&suite, struct{ Files []auditTask }{tasks}); err != nil {
		return nil, err
	}
	suite.WriteString("\n")
	return []file{
		{src: "files/agent-audit/evalgate.yaml", dst: "evalgate.yaml", mode: 0o644},
		{dst: auditSuiteFile, mode: 0o644, data: suite.Bytes()},
		{src: "files/workflow.yml", dst: workflowFile, mode: 0o644},
	}, nil
}

var notID = regexp.MustCompile(`[^a-z0-9]+`)

// auditTaskID is a task id for a definition file: its path without the
// extension, in lowercase letters, digits and dashes.
func auditTaskID(p string) string {
	p = strings.TrimSuffix(filepath.ToSlash(p), filepath.Ext(p))
	id := strings.Trim(notID.ReplaceAllString(strings.ToLower(p), "-"), "-")
	if id == "" {
		return "definition"
	}
	return id
}

// auditNextSteps says what to do after `init --template agent-audit`, and
// which of the definition files are not there yet.
func auditNextSteps(w io.Writer, dir string, show func(string) string, paths []string) {
	if len(paths) == 0 {
		paths = []string{auditDefaultFile}
	}
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			fmt.Fprintf(w, "note: %s is not there yet; the audit grades it once it is\n", show(p))
		}
	}
	cd := ""
	if filepath.Clean(dir) != "." {
		cd = "cd " + shellQuote(show(".")) + " && "
	}
	fmt.Fprintf(w, "\nNext steps:\n"+
		"  1. export JUDGE_API_KEY=... (or set judge.exec in evalgate.yaml), then\n"+
		"     %sevalgate run\n"+
		"     grades each definition 0-4 on ten dimensions; one below needs-work\n"+
		"     (20 of 34 points, as a share) fails the gate. docs/audit.md explains the tiers.\n"+
		"  2. Add a definition: a task in evals/agent-audit.yaml with its path as input\n"+
		"     and `expected: *audit`.\n"+
		"  3. Promote a baseline (evalgate baseline promote) and set baseline: in\n"+
		"     evalgate.yaml: pull requests then show level changes such as \"tools 4 → 2\".\n", cd)
}
