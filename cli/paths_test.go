package cli

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
)

// monorepoSuite sits in sub/evals/ of a repository. Its agent echoes the
// input: "wrong" fails at line 12, and "contact" passes with a pii-leak
// finding at line 17.
const monorepoSuite = `suiteId: acme.mono.evals.echo
version: 1.0.0
description: An echo agent, one task failing, one with a finding.
modes: [golden, adversarial]
thresholds: {passScore: 0.5}
tasks:
  - taskId: right
    input: ok
    expected:
      kind: golden
      match: {strategy: exact, value: ok}
  - taskId: wrong
    input: bye
    expected:
      kind: golden
      match: {strategy: exact, value: hello}
  - taskId: contact
    input: write to jane.doe@example.com
    expected:
      kind: golden
      match: {strategy: contains, value: write}
    adversarial:
      detectors: [pii]
`

// newMonorepo is a git repository with evalgate set up in sub/.
func newMonorepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	repo := t.TempDir()
	git(t, repo, "init", "-q")
	writeFiles(t, repo, map[string]string{
		"sub/evals/echo.yaml": monorepoSuite,
		"sub/echo.sh":         "#!/bin/sh\ncat\n",
		"sub/evalgate.yaml":   "suites: [evals/]\nagent:\n  plain: [sh, echo.sh]\n",
	})
	return repo
}

// actionsEnv is the environment of a GitHub Actions step writing its
// files under dir; workspace is GITHUB_WORKSPACE ("" for none).
func actionsEnv(dir, workspace string) map[string]string {
	return map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_WORKSPACE":    workspace,
		"GITHUB_SERVER_URL":   "https://github.com",
		"GITHUB_REPOSITORY":   "acme/mono",
		"GITHUB_SHA":          "0123abc",
		"GITHUB_EVENT_NAME":   "push",
		"GITHUB_EVENT_PATH":   "",
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"INPUT_COMMENT":       "never",
		"INPUT_GITHUB_TOKEN":  "",
		"GITHUB_TOKEN":        "",
	}
}

// outputPaths is every path and link to a suite file that the outputs of
// a run hold.
type outputPaths struct {
	Annotations []string // file=…,line=… of each workflow command
	SARIF       []string // artifactLocation uri (and base) of each result
	JUnit       []string // file attributes of testsuites and testcases
	Scorecard   []string // link targets in scorecard.md
	Summary     []string // link targets in the job summary
	Results     []string // file of each suite and task in results.json
}

var (
	annotationFile = regexp.MustCompile(`^::(?:error|warning) (file=[^,]*(?:,line=\d+)?)`)
	markdownLink   = regexp.MustCompile(`\]\((https://[^)]*)\)`)
)

// sarifLog is what the tests read of findings.sarif.
type sarifLog struct {
	Runs []struct {
		Results []struct {
			RuleID    string `json:"ruleId"`
			Locations []struct {
				PhysicalLocation struct {
					ArtifactLocation struct {
						URI       string `json:"uri"`
						URIBaseID string `json:"uriBaseId"`
					} `json:"artifactLocation"`
					Region struct {
						StartLine int `json:"startLine"`
					} `json:"region"`
				} `json:"physicalLocation"`
			} `json:"locations"`
		} `json:"results"`
	} `json:"runs"`
}

func readSARIF(t *testing.T, path string) sarifLog {
	t.Helper()
	var log sarifLog
	assert.NilError(t, json.Unmarshal([]byte(regrReadFile(t, path)), &log))
	return log
}

func collectOutputPaths(t *testing.T, stdout, out, summary string) outputPaths {
	t.Helper()
	var p outputPaths
	for _, line := range strings.Split(stdout, "\n") {
		if m := annotationFile.FindStringSubmatch(line); m != nil {
			p.Annotations = append(p.Annotations, m[1])
		}
	}

	sarif := readSARIF(t, filepath.Join(out, "findings.sarif"))
	for _, res := range sarif.Runs[0].Results {
		pl := res.Locations[0].PhysicalLocation
		p.SARIF = append(p.SARIF, fmt.Sprintf("%s %s:%d", pl.ArtifactLocation.URIBaseID, pl.ArtifactLocation.URI, pl.Region.StartLine))
	}

	var junit struct {
		Suites []struct {
			File  string `xml:"file,attr"`
			Cases []struct {
				File string `xml:"file,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	assert.NilError(t, xml.Unmarshal([]byte(regrReadFile(t, filepath.Join(out, "junit.xml"))), &junit))
	for _, s := range junit.Suites {
		p.JUnit = append(p.JUnit, s.File)
		for _, c := range s.Cases {
			p.JUnit = append(p.JUnit, c.File)
		}
	}

	links := func(md string) []string {
		var out []string
		for _, m := range markdownLink.FindAllStringSubmatch(md, -1) {
			out = append(out, m[1])
		}
		sort.Strings(out)
		return out
	}
	p.Scorecard = links(regrReadFile(t, filepath.Join(out, "scorecard.md")))
	p.Summary = links(regrReadFile(t, summary))

	r := regrReadRun(t, out)
	for _, s := range r.Suites {
		p.Results = append(p.Results, s.File)
		for _, task := range s.Tasks {
			p.Results = append(p.Results, task.File)
		}
	}
	return p
}

// TestOutputsRepoRelative: wherever evalgate runs from in the repository,
// every output names the suite file from the repository root, and the
// scorecard links to its line at the commit.
func TestOutputsRepoRelative(t *testing.T) {
	type testCase struct {
		name      string
		cwd       string // relative to the repository
		workspace bool   // GITHUB_WORKSPACE is the repository
		args      []string
		out       string // the output folder, relative to the repository
	}
	const file = "sub/evals/echo.yaml"
	const blob = "https://github.com/acme/mono/blob/0123abc/" + file
	want := outputPaths{
		Annotations: []string{"file=" + file + ",line=12"},
		SARIF:       []string{"%SRCROOT% " + file + ":17"},
		JUnit:       []string{file, file, file, file},
		Scorecard:   []string{blob + "#L12", blob + "#L17"},
		Summary:     []string{blob + "#L12", blob + "#L17"},
		Results:     []string{file, file, file, file},
	}
	run := func(t *testing.T, tc testCase) {
		repo := newMonorepo(t)
		// The repository's path as git prints it, symbolic links resolved.
		top, err := filepath.EvalSymlinks(repo)
		assert.NilError(t, err)
		ci := t.TempDir()
		env := actionsEnv(ci, "")
		if tc.workspace {
			env["GITHUB_WORKSPACE"] = top
		}
		r := runCLI(t, filepath.Join(repo, tc.cwd), env, append([]string{"run"}, tc.args...)...)
		assert.Equal(t, r.code, 0, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

		out := filepath.Join(repo, tc.out)
		got := collectOutputPaths(t, r.stdout, out, env["GITHUB_STEP_SUMMARY"])
		assert.DeepEqual(t, got, want)
		// The step outputs name the files from the repository root too.
		outputs := regrReadFile(t, env["GITHUB_OUTPUT"])
		assert.Assert(t, strings.Contains(outputs, "\n"+filepath.ToSlash(filepath.Join(tc.out, "results.json"))+"\n"), outputs)
		regrValidResults(t, out)

		// A report made later, from elsewhere, links the same lines.
		again := runCLI(t, t.TempDir(), env, "report", "--format", "md", filepath.Join(out, "results.json"))
		assert.Equal(t, again.code, 0, again.stderr)
		assert.Equal(t, again.stdout, regrReadFile(t, filepath.Join(out, "scorecard.md")))
	}
	for _, tc := range []testCase{
		{name: "from the subfolder", cwd: "sub", out: "sub/evalgate-out"},
		{name: "from the root with its config", cwd: ".", args: []string{"--config", "sub/evalgate.yaml"}, out: "evalgate-out"},
		{name: "from the root with the suites named", cwd: ".", args: []string{"--config", "sub/evalgate.yaml", "sub/evals/echo.yaml"}, out: "evalgate-out"},
		{name: "from the subfolder with GITHUB_WORKSPACE", cwd: "sub", workspace: true, out: "sub/evalgate-out"},
		{name: "from the suite folder", cwd: "sub/evals", args: []string{"--config", "../evalgate.yaml", "--out", "../evalgate-out"}, out: "sub/evalgate-out"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestOutputsOutsideRepo: a suite outside the repository keeps its path
// from the working directory, and nothing links to it or annotates it.
func TestOutputsOutsideRepo(t *testing.T) {
	repo := newMonorepo(t)
	top, err := filepath.EvalSymlinks(repo)
	assert.NilError(t, err)
	shared := t.TempDir() // a sibling of the repository
	writeFiles(t, shared, map[string]string{"echo.yaml": monorepoSuite})

	ci := t.TempDir()
	env := actionsEnv(ci, top)
	rel := filepath.ToSlash(filepath.Join("..", filepath.Base(shared), "echo.yaml"))
	r := runCLI(t, repo, env, "run", "--config", "sub/evalgate.yaml", "--gate", "passRate == 1", rel)
	assert.Equal(t, r.code, 1, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)

	run := regrReadRun(t, filepath.Join(repo, "evalgate-out"))
	assert.Equal(t, run.Suites[0].File, rel)
	assert.Assert(t, !results.InRepo(run.Suites[0].File))
	assert.Assert(t, strings.Contains(r.stdout, "::error title=evalgate%3A task wrong failed::"+rel+":12: acme.mono.evals.echo/wrong: "), r.stdout)
	assert.Assert(t, !strings.Contains(r.stdout, "file="), r.stdout)
	scorecard := regrReadFile(t, filepath.Join(repo, "evalgate-out", "scorecard.md"))
	assert.Assert(t, strings.Contains(scorecard, "| `"+rel+":12` |"), scorecard)
	assert.Assert(t, !strings.Contains(scorecard, "/blob/"), scorecard)
}

// TestAnnotationLevelsThroughRun: the same failing task is a warning when
// every gate holds and an error when a gate fails.
func TestAnnotationLevelsThroughRun(t *testing.T) {
	type testCase struct {
		name     string
		gate     string
		wantCode int
		want     string
	}
	run := func(t *testing.T, tc testCase) {
		repo := newMonorepo(t)
		env := actionsEnv(t.TempDir(), "")
		r := runCLI(t, filepath.Join(repo, "sub"), env, "run", "--gate", tc.gate)
		assert.Equal(t, r.code, tc.wantCode, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
		assert.Assert(t, strings.Contains(r.stdout, "\n"+tc.want), r.stdout)
		assert.Equal(t, strings.Count(r.stdout, "file=sub/evals/echo.yaml"), 1, r.stdout)
	}
	for _, tc := range []testCase{
		{name: "every gate holds", gate: "passRate >= 0.5", wantCode: 0,
			want: "::warning file=sub/evals/echo.yaml,line=12,title=evalgate%3A task wrong failed::acme.mono.evals.echo/wrong: failed checks: match (mismatch) (score 0.00 < 0.50)"},
		{name: "a gate fails", gate: "passRate == 1", wantCode: 1,
			want: "::error file=sub/evals/echo.yaml,line=12,title=evalgate%3A task wrong failed::"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestInvalidSuiteOutputs: a run stopped by an invalid suite (exit 2)
// puts each problem at its line from the repository root, as an error
// annotation in GitHub Actions and as a suite-invalid result in
// findings.sarif, and writes nothing else.
func TestInvalidSuiteOutputs(t *testing.T) {
	repo := newMonorepo(t)
	writeFiles(t, repo, map[string]string{"sub/evals/echo.yaml": strings.Replace(monorepoSuite, "taskId: wrong", "taskId: Wrong Id", 1)})
	env := actionsEnv(t.TempDir(), "")
	r := runCLI(t, filepath.Join(repo, "sub"), env, "run")
	assert.Equal(t, r.code, 2, "stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	assert.Assert(t, strings.Contains(r.stderr, "evals/echo.yaml:12:13: /tasks/1/taskId: expected a string matching"), r.stderr)
	assert.Assert(t, strings.Contains(r.stdout, "::error col=13,file=sub/evals/echo.yaml,line=12,title=evalgate%3A invalid suite::/tasks/1/taskId: expected a string matching"), r.stdout)

	out := filepath.Join(repo, "sub", "evalgate-out")
	sarif := readSARIF(t, filepath.Join(out, "findings.sarif"))
	assert.Assert(t, len(sarif.Runs[0].Results) > 0)
	for _, res := range sarif.Runs[0].Results {
		pl := res.Locations[0].PhysicalLocation
		assert.Equal(t, res.RuleID, "suite-invalid")
		assert.Equal(t, fmt.Sprintf("%s:%d", pl.ArtifactLocation.URI, pl.Region.StartLine), "sub/evals/echo.yaml:12")
	}
	entries, err := os.ReadDir(out)
	assert.NilError(t, err)
	assert.Equal(t, len(entries), 1, "the output folder holds only findings.sarif")
}
