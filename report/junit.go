package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/results"
)

// junitTestsuites is the root of a JUnit XML report in the shape the common
// reporters (Jenkins, GitLab, dorny/test-reporter, mikepenz/action-junit-report)
// accept: testsuites > testsuite > testcase, with failure and error children.
type junitTestsuites struct {
	XMLName  xml.Name         `xml:"testsuites"`
	Name     string           `xml:"name,attr"`
	Tests    int              `xml:"tests,attr"`
	Failures int              `xml:"failures,attr"`
	Errors   int              `xml:"errors,attr"`
	Time     string           `xml:"time,attr"`
	Suites   []junitTestsuite `xml:"testsuite"`
}

type junitTestsuite struct {
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Errors     int             `xml:"errors,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Timestamp  string          `xml:"timestamp,attr,omitempty"`
	File       string          `xml:"file,attr,omitempty"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitTestcase `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitTestcase struct {
	Classname string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	File      string        `xml:"file,attr,omitempty"`
	Line      int           `xml:"line,attr,omitempty"`
	Time      string        `xml:"time,attr"`
	Failure   *junitProblem `xml:"failure,omitempty"`
	Error     *junitProblem `xml:"error,omitempty"`
}

type junitProblem struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
}

// JUnit renders a run as JUnit XML: one testsuite per suite (named by its
// suiteId), one testcase per task (classname = suiteId, name = taskId, with
// the task's file and line), a failure naming the failed checks for a failed
// task and an error with the error kind for an errored one. It carries ids,
// scores and check ids only, never task content.
func JUnit(r *results.Run) ([]byte, error) {
	if r == nil {
		return nil, fmt.Errorf("could not render junit: no results")
	}
	doc := junitTestsuites{Name: "evalgate"}
	var total float64
	for i := range r.Suites {
		s := &r.Suites[i]
		ts := junitTestsuite{
			Name: s.ID,
			File: filepath.ToSlash(s.File),
			Properties: []junitProperty{
				{Name: "version", Value: s.Version},
				{Name: "aggregateScore", Value: junitScore(s.AggregateScore)},
				{Name: "passScore", Value: junitScore(s.Thresholds.PassScore)},
				{Name: "passed", Value: strconv.FormatBool(s.Passed)},
			},
		}
		if !r.StartedAt.IsZero() {
			ts.Timestamp = r.StartedAt.UTC().Format("2006-01-02T15:04:05")
		}
		var suiteTime float64
		for j := range s.Tasks {
			t := &s.Tasks[j]
			secs := float64(t.LatencyMs) / 1000
			suiteTime += secs
			tc := junitTestcase{
				Classname: s.ID,
				Name:      t.ID,
				File:      filepath.ToSlash(t.File),
				Line:      t.Line,
				Time:      junitSeconds(secs),
			}
			switch t.Status {
			case results.StatusError:
				kind := t.ErrorKind
				if kind == "" {
					kind = "error"
				}
				tc.Error = &junitProblem{Type: kind, Message: FailureMessage(t)}
				ts.Errors++
			case results.StatusFailed:
				tc.Failure = &junitProblem{Type: "failed", Message: FailureMessage(t)}
				ts.Failures++
			}
			ts.Tests++
			ts.Cases = append(ts.Cases, tc)
		}
		ts.Time = junitSeconds(suiteTime)
		total += suiteTime
		doc.Tests += ts.Tests
		doc.Failures += ts.Failures
		doc.Errors += ts.Errors
		doc.Suites = append(doc.Suites, ts)
	}
	if !r.StartedAt.IsZero() && r.FinishedAt.After(r.StartedAt) {
		total = r.FinishedAt.Sub(r.StartedAt).Seconds()
	}
	doc.Time = junitSeconds(total)

	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("could not render junit: %w", err)
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}

// FailureMessage says, without any task content, why a task did not pass:
// "failed checks: match, assert[1] (score 0.50 < 1.00)", the error kind of
// an errored task, the findings that failed it, or the trials that did not
// pass. It is empty for a passed task. JUnit failures, SARIF and the GitHub
// annotations share it.
func FailureMessage(t *results.Task) string {
	switch t.Status {
	case results.StatusPassed:
		return ""
	case results.StatusError:
		kind := t.ErrorKind
		if kind == "" {
			kind = "unknown"
		}
		return "task errored: " + kind
	}
	var parts []string
	if len(t.FailedChecks) > 0 {
		parts = append(parts, "failed checks: "+strings.Join(t.FailedChecks, ", "))
	}
	var blocking []string
	for _, f := range t.Findings {
		if f.Severity == results.SeverityCritical || f.Severity == results.SeverityHigh {
			blocking = append(blocking, f.Kind+" ("+f.Severity+")")
		}
	}
	if len(blocking) > 0 {
		parts = append(parts, "findings: "+strings.Join(blocking, ", "))
	}
	if n := len(t.Trials); n > 1 && t.TrialsPassed < n {
		parts = append(parts, fmt.Sprintf("%d/%d trials passed", t.TrialsPassed, n))
	}
	cmp := ">="
	if t.Score < t.PassScore {
		cmp = "<"
	}
	score := fmt.Sprintf("score %.2f %s %.2f", t.Score, cmp, t.PassScore)
	if len(parts) == 0 {
		return score
	}
	return strings.Join(parts, "; ") + " (" + score + ")"
}

func junitSeconds(s float64) string {
	return strconv.FormatFloat(s, 'f', 3, 64)
}

func junitScore(v float64) string {
	return strconv.FormatFloat(v, 'f', 4, 64)
}
