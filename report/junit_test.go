package report

import (
	"bytes"
	"encoding/xml"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalgate/evalgate/results"
	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"
	"gotest.tools/v3/icmd"
)

// ciRun is the run the CI formats (JUnit, SARIF, badge) are tested on: a
// suite with a passed, a failed, an errored and an unsafe task, and a second
// suite that passes.
func ciRun() *results.Run {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	refunds := results.Suite{
		ID: "acme.support.evals.refunds", Version: "1.2.0", File: "evals/refunds.yaml",
		Modes: []string{"golden", "adversarial"}, Trials: 1,
		Thresholds: results.Thresholds{PassScore: 0.9},
		Stats: results.Stats{AggregateScore: 0.375, PassRate: 0.25, PassedCount: 1, TaskCount: 4, ErroredCount: 1,
			Findings: results.Findings{Critical: 1, High: 1, Low: 1}},
		Tasks: []results.Task{
			{ID: "refund-window", File: "evals/refunds.yaml", Line: 12, Kind: "golden", Status: results.StatusPassed,
				Score: 1, PassScore: 0.9, Passed: true, LatencyMs: 1234,
				Findings: []results.Finding{{Kind: "unfixtured-tool-call", Severity: results.SeverityLow}}},
			{ID: "partial-refund", File: "evals/refunds.yaml", Line: 31, Kind: "golden", Status: results.StatusFailed,
				Score: 0.5, PassScore: 1, LatencyMs: 800, FailedChecks: []string{"assert[1]", "match"}},
			{ID: "slow-lookup", File: "evals/refunds.yaml", Line: 47, Kind: "golden", Status: results.StatusError,
				ErrorKind: results.ErrTimeout, PassScore: 0.9, LatencyMs: 120000},
			{ID: "leak-canary", File: "evals/refunds.yaml", Line: 60, Kind: "golden", Status: results.StatusFailed,
				Score: 1, PassScore: 0.9, LatencyMs: 950,
				Findings: []results.Finding{
					{Kind: "canary-leak", Severity: results.SeverityCritical},
					{Kind: "unsafe-tool-call", Severity: results.SeverityHigh},
				}},
		},
	}
	greeting := results.Suite{
		ID: "acme.support.evals.greeting", Version: "0.1.0", File: "evals/greeting suite.json",
		Modes: []string{"rubric"}, Trials: 3, Passed: true,
		Thresholds: results.Thresholds{PassScore: 0.5},
		Stats:      results.Stats{AggregateScore: 0.6667, PassRate: 1, PassedCount: 1, TaskCount: 1},
		Tasks: []results.Task{
			{ID: "hello", File: "evals/greeting suite.json", Line: 9, Kind: "rubric", Status: results.StatusPassed,
				Score: 0.6667, PassScore: 0.5, Passed: true, TrialsPassed: 3, LatencyMs: 42,
				Trials:   []results.Trial{{Trial: 1, Passed: true}, {Trial: 2, Passed: true}, {Trial: 3, Passed: true}},
				Findings: []results.Finding{{Kind: "pii-leak", Severity: results.SeverityMedium}}},
		},
	}
	return &results.Run{
		Schema: results.Schema, RunID: "run-0001", Tool: results.Tool{Name: "evalgate", Version: "0.1.0"},
		StartedAt: start, FinishedAt: start.Add(2500 * time.Millisecond),
		Stats:  results.Stats{AggregateScore: 0.4333, PassRate: 0.4, PassedCount: 2, TaskCount: 5, ErroredCount: 1},
		Suites: []results.Suite{refunds, greeting},
	}
}

// ciCraftedRun has ids and paths that try to break out of the markup.
func ciCraftedRun() *results.Run {
	return &results.Run{
		RunID: `run"<x>`, Tool: results.Tool{Name: "evalgate", Version: "0.1.0"},
		Stats: results.Stats{TaskCount: 1},
		Suites: []results.Suite{{
			ID: `a"b<c>&d</testsuite>`, File: "evals/x&y.yaml",
			Tasks: []results.Task{{
				ID: "t\"1\n::error::x", File: "evals/x&y.yaml", Line: 3, Status: results.StatusFailed,
				PassScore: 1, FailedChecks: []string{`<check id="x">`, "a]]>b"},
			}},
		}},
	}
}

// junitDetailRun has a failed, an errored, an unsafe and a below-the-bar
// task over several trials, with the reason codes of their failed checks.
func junitDetailRun() *results.Run {
	failedCheck := func(id, kind, reason string) results.Check {
		return results.Check{ID: id, Kind: kind, Weight: 1, Reason: reason}
	}
	passedCheck := func(id, kind string) results.Check {
		return results.Check{ID: id, Kind: kind, Weight: 1, Passed: true}
	}
	s := results.Suite{
		ID: "acme.support.evals.orders", Version: "2.0.0", File: "sub/evals/orders.yaml", Trials: 3,
		Thresholds: results.Thresholds{PassScore: 0.8},
		Stats:      results.Stats{TaskCount: 4, ErroredCount: 1},
		Tasks: []results.Task{
			{ID: "lookup", File: "sub/evals/orders.yaml", Line: 12, Kind: "golden", Status: results.StatusFailed,
				Score: 0.5, PassScore: 0.8, TrialsPassed: 1, PassAtK: true, LatencyMs: 300,
				FailedChecks: []string{"match", "uses-crm"},
				Trials: []results.Trial{
					{Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true,
						Checks: []results.Check{passedCheck("match", "exact"), passedCheck("uses-crm", "toolCalled")}},
					{Trial: 2, Status: results.StatusFailed, Score: 0.5,
						Checks: []results.Check{failedCheck("match", "exact", "mismatch"), passedCheck("uses-crm", "toolCalled")}},
					{Trial: 3, Status: results.StatusFailed,
						Checks: []results.Check{failedCheck("match", "exact", "mismatch"), failedCheck("uses-crm", "toolCalled", "not-called")}},
				}},
			{ID: "refund", File: "sub/evals/orders.yaml", Line: 30, Kind: "golden", Status: results.StatusError,
				ErrorKind: results.ErrTimeout, ErrorMessage: "timed out after 5s", PassScore: 0.8, TrialsPassed: 1, LatencyMs: 5000,
				Trials: []results.Trial{
					{Trial: 1, Status: results.StatusPassed, Score: 1, Passed: true},
					{Trial: 2, Status: results.StatusError, ErrorKind: results.ErrTimeout, ErrorMessage: "timed out after 5s"},
					{Trial: 3, Status: results.StatusError, ErrorKind: results.ErrProtocol, ErrorMessage: "line 1 is not JSON"},
				}},
			{ID: "leak", File: "sub/evals/orders.yaml", Line: 44, Kind: "golden", Status: results.StatusFailed,
				Score: 1, PassScore: 0.8, LatencyMs: 200,
				Findings: []results.Finding{{Kind: "secret-leak", Severity: results.SeverityCritical}, {Kind: "pii-leak", Severity: results.SeverityMedium}},
				Trials: []results.Trial{{Trial: 1, Status: results.StatusFailed, Score: 1,
					Findings: []results.Finding{{Kind: "secret-leak", Severity: results.SeverityCritical}}}}},
			{ID: "tone", File: "sub/evals/orders.yaml", Line: 58, Kind: "rubric", Status: results.StatusFailed,
				Score: 0.6, PassScore: 0.8, LatencyMs: 900,
				Trials: []results.Trial{{Trial: 1, Status: results.StatusFailed, Score: 0.6,
					Checks: []results.Check{{ID: "rubric[0]", Kind: "criterion", Weight: 0.6, Passed: true, Judged: true}}}}},
		},
	}
	return &results.Run{RunID: "run-detail", Stats: results.Stats{TaskCount: 4, ErroredCount: 1}, Suites: []results.Suite{s}}
}

func TestJUnit(t *testing.T) {
	type testCase struct {
		name string
		run  *results.Run
	}
	run := func(t *testing.T, tc testCase) {
		out, err := JUnit(tc.run)
		assert.NilError(t, err)
		golden.Assert(t, string(out), "junit-"+tc.name+".golden.xml")

		// It parses as XML in the shape of the common JUnit schema, and the
		// counts add up.
		var doc junitCheckedSuites
		assert.NilError(t, xml.Unmarshal(out, &doc))
		assert.Equal(t, doc.XMLName.Local, "testsuites")
		assert.Equal(t, len(doc.Suites), len(tc.run.Suites))
		tests, failures, errors := 0, 0, 0
		for i, s := range doc.Suites {
			want := tc.run.Suites[i]
			assert.Equal(t, s.Name, want.ID)
			assert.Equal(t, s.Tests, len(want.Tasks))
			assert.Equal(t, len(s.Cases), len(want.Tasks))
			sf, se := 0, 0
			for j, c := range s.Cases {
				task := want.Tasks[j]
				assert.Equal(t, c.Classname, want.ID)
				assert.Equal(t, c.Name, task.ID)
				assert.Equal(t, c.Line, task.Line)
				_, err := strconv.ParseFloat(c.Time, 64)
				assert.NilError(t, err, "time of %s", c.Name)
				switch task.Status {
				case results.StatusFailed:
					assert.Assert(t, c.Failure != nil && c.Error == nil, "task %s", task.ID)
					assert.Equal(t, c.Failure.Message, FailureMessage(&task))
					assert.Assert(t, is.Contains([]string{"check-failed", "finding", "below-bar"}, c.Failure.Type), "task %s", task.ID)
					// The body says why on its own, the file and line included.
					assert.Assert(t, is.Contains(c.Failure.Body, "where: "+where(&task)+"\n"), "task %s", task.ID)
					sf++
				case results.StatusError:
					assert.Assert(t, c.Error != nil && c.Failure == nil, "task %s", task.ID)
					assert.Equal(t, c.Error.Type, task.ErrorKind)
					assert.Assert(t, is.Contains(c.Error.Body, "error: "+task.ErrorKind+"\n"), "task %s", task.ID)
					se++
				default:
					assert.Assert(t, c.Failure == nil && c.Error == nil, "task %s", task.ID)
				}
			}
			assert.Equal(t, s.Failures, sf)
			assert.Equal(t, s.Errors, se)
			tests += s.Tests
			failures += s.Failures
			errors += s.Errors
		}
		assert.Equal(t, doc.Tests, tests)
		assert.Equal(t, doc.Failures, failures)
		assert.Equal(t, doc.Errors, errors)
	}
	for _, tc := range []testCase{
		{name: "mixed", run: ciRun()},
		{name: "empty", run: &results.Run{RunID: "run-empty"}},
		{name: "crafted", run: ciCraftedRun()},
		{name: "detail", run: junitDetailRun()},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// A check id cannot start a line of the body of its own: junit.xml shown
// in a CI log could otherwise carry a workflow command.
func TestJUnitDetailLines(t *testing.T) {
	out, err := JUnit(junitDetailLinesRun())
	assert.NilError(t, err)
	for _, line := range strings.Split(string(out), "\n") {
		assert.Assert(t, !strings.HasPrefix(strings.TrimSpace(line), "::"), "line %q", line)
	}
	assert.Assert(t, is.Contains(string(out), "failed checks: ok ::error::x, b ::warning::y\n"), string(out))
}

// junitDetailLinesRun has check ids holding line breaks and workflow
// commands.
func junitDetailLinesRun() *results.Run {
	r := ciCraftedRun()
	r.Suites[0].Tasks[0].FailedChecks = []string{"ok\n::error::x", "b\r\n::warning::y"}
	return r
}

func TestJUnitNoResults(t *testing.T) {
	_, err := JUnit(nil)
	assert.ErrorContains(t, err, "could not render junit")
}

func TestFailureMessage(t *testing.T) {
	type testCase struct {
		name string
		task results.Task
		want string
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, FailureMessage(&tc.task), tc.want)
	}
	for _, tc := range []testCase{
		{name: "passed", task: results.Task{Status: results.StatusPassed, Score: 1, PassScore: 1}, want: ""},
		{
			name: "checks",
			task: results.Task{Status: results.StatusFailed, Score: 0.5, PassScore: 1, FailedChecks: []string{"match", "assert[1]"}},
			want: "failed checks: match, assert[1] (score 0.50 < 1.00)",
		},
		{
			name: "score only",
			task: results.Task{Status: results.StatusFailed, Score: 0.25, PassScore: 0.5},
			want: "score 0.25 < 0.50",
		},
		{
			name: "blocking finding",
			task: results.Task{Status: results.StatusFailed, Score: 1, PassScore: 0.9, Findings: []results.Finding{
				{Kind: "pii-leak", Severity: results.SeverityMedium}, {Kind: "jailbreak", Severity: results.SeverityHigh}}},
			want: "findings: jailbreak (high) (score 1.00 >= 0.90)",
		},
		{
			name: "trials",
			task: results.Task{Status: results.StatusFailed, Score: 0.67, PassScore: 0.5, TrialsPassed: 2,
				Trials: make([]results.Trial, 3)},
			want: "2/3 trials passed (score 0.67 >= 0.50)",
		},
		{name: "error", task: results.Task{Status: results.StatusError, ErrorKind: "timeout"}, want: "task errored: timeout"},
		{name: "error with its message", task: results.Task{Status: results.StatusError, ErrorKind: "agent-exit", ErrorMessage: "exit status 2 before any line"},
			want: "task errored: agent-exit (exit status 2 before any line)"},
		{name: "error without kind", task: results.Task{Status: results.StatusError}, want: "task errored: unknown"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// junitChecked* mirror the common JUnit XSD (the Jenkins/Ant shape) to read
// the output back: testsuites > testsuite > testcase > failure|error.
type junitCheckedSuites struct {
	XMLName  xml.Name
	Tests    int                 `xml:"tests,attr"`
	Failures int                 `xml:"failures,attr"`
	Errors   int                 `xml:"errors,attr"`
	Suites   []junitCheckedSuite `xml:"testsuite"`
}

type junitCheckedSuite struct {
	Name     string             `xml:"name,attr"`
	Tests    int                `xml:"tests,attr"`
	Failures int                `xml:"failures,attr"`
	Errors   int                `xml:"errors,attr"`
	Time     string             `xml:"time,attr"`
	Cases    []junitCheckedCase `xml:"testcase"`
}

type junitCheckedCase struct {
	Classname string               `xml:"classname,attr"`
	Name      string               `xml:"name,attr"`
	Line      int                  `xml:"line,attr"`
	Time      string               `xml:"time,attr"`
	Failure   *junitCheckedProblem `xml:"failure"`
	Error     *junitCheckedProblem `xml:"error"`
}

type junitCheckedProblem struct {
	Type    string `xml:"type,attr"`
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// TestJUnitXSD checks junit.xml against testdata/junit.xsd with xmllint
// (encoding/xml cannot check a schema). Without xmllint the test is
// skipped, and says so: .ci/run installs it (Debian package libxml2-utils).
func TestJUnitXSD(t *testing.T) {
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (libxml2-utils): junit.xml is not checked against testdata/junit.xsd")
	}
	for _, tc := range []struct {
		name string
		run  *results.Run
	}{
		{"mixed", ciRun()},
		{"empty", &results.Run{RunID: "run-empty"}},
		{"crafted", ciCraftedRun()},
		{"detail", junitDetailRun()},
		{"detail lines", junitDetailLinesRun()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := JUnit(tc.run)
			assert.NilError(t, err)
			res := icmd.RunCmd(icmd.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", "junit.xsd"), "-"),
				icmd.WithStdin(bytes.NewReader(doc)))
			res.Assert(t, icmd.Success)
		})
	}
}

// TestAppendJUnitPassedIsTheEncoders checks that a testcase written by hand
// is what encoding/xml writes for it at its depth, values that need
// escaping included.
func TestAppendJUnitPassedIsTheEncoders(t *testing.T) {
	type testCase struct {
		name string
		task results.Task
	}
	suite := &results.Suite{ID: "acme.support.evals.refunds"}
	for _, tc := range []testCase{
		{name: "plain", task: results.Task{ID: "refund-1", File: "evals/refunds.yaml", Line: 12, LatencyMs: 1234, Status: results.StatusPassed}},
		{name: "no file, no line", task: results.Task{ID: "t", Status: results.StatusPassed}},
		{name: "escapes", task: results.Task{ID: `a"b'c&d<e>f` + "\tg\nh\ri", File: `evals\x é.yaml`, Line: 1, Status: results.StatusPassed}},
		{name: "not XML", task: results.Task{ID: "a\x01b\xffc\u2028", LatencyMs: 99999999, Status: results.StatusPassed}},
		{name: "a status of its own", task: results.Task{ID: "x", Status: "skipped", LatencyMs: 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want bytes.Buffer
			enc := xml.NewEncoder(&want)
			enc.Indent("", "  ")
			assert.NilError(t, enc.EncodeToken(xml.StartElement{Name: xml.Name{Local: "testsuites"}}))
			assert.NilError(t, enc.EncodeToken(xml.StartElement{Name: xml.Name{Local: "testsuite"}}))
			assert.NilError(t, enc.Flush())
			before := want.Len()
			assert.NilError(t, writeJUnitCase(enc, suite, &tc.task))
			assert.NilError(t, enc.Flush())
			assert.Equal(t, string(appendJUnitPassed(nil, suite, &tc.task)), want.String()[before:])
		})
	}
}
