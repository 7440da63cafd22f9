package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/results"
)

// junitTestcase is one task of a JUnit XML report, which has the shape the
// common reporters (Jenkins, GitLab, dorny/test-reporter,
// mikepenz/action-junit-report) accept: testsuites > testsuite (with
// properties) > testcase, with failure and error children.
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

type junitProperties struct {
	Property []junitProperty `xml:"property"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// JUnit renders a run as JUnit XML (see WriteJUnit).
func JUnit(r *results.Run) ([]byte, error) {
	var buf bytes.Buffer
	if err := WriteJUnit(&buf, r); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteJUnitFile writes the run's JUnit XML to path, atomically.
func WriteJUnitFile(path string, r *results.Run) error {
	return streamFileAtomic(path, 0o644, 0o755, func(w io.Writer) error { return WriteJUnit(w, r) })
}

// WriteJUnit writes a run as JUnit XML: one testsuite per suite (named by
// its suiteId), one testcase per task (classname = suiteId, name = taskId,
// with the task's file and line), a failure naming the failed checks for a
// failed task and an error with the error kind for an errored one. It
// carries ids, scores and check ids only, never task content. Testcases
// are written one at a time, so the report of 100,000 tasks is never held
// in memory whole.
func WriteJUnit(w io.Writer, r *results.Run) error {
	if r == nil {
		return fmt.Errorf("could not render junit: no results")
	}
	var tests, failures, errs int
	var total float64
	for i := range r.Suites {
		n, f, e, secs := junitCounts(&r.Suites[i])
		tests, failures, errs, total = tests+n, failures+f, errs+e, total+secs
	}
	if !r.StartedAt.IsZero() && r.FinishedAt.After(r.StartedAt) {
		total = r.FinishedAt.Sub(r.StartedAt).Seconds()
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	root := xml.StartElement{Name: xml.Name{Local: "testsuites"}, Attr: []xml.Attr{
		junitAttr("name", "evalgate"), junitAttr("tests", strconv.Itoa(tests)), junitAttr("failures", strconv.Itoa(failures)),
		junitAttr("errors", strconv.Itoa(errs)), junitAttr("time", junitSeconds(total)),
	}}
	if err := enc.EncodeToken(root); err != nil {
		return fmt.Errorf("could not render junit: %w", err)
	}
	for i := range r.Suites {
		if err := writeJUnitSuite(enc, r, &r.Suites[i]); err != nil {
			return fmt.Errorf("could not render junit: %w", err)
		}
	}
	if err := enc.EncodeToken(root.End()); err != nil {
		return fmt.Errorf("could not render junit: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("could not render junit: %w", err)
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// junitCounts counts a suite's tasks, failed and errored tasks, and sums
// their latencies in seconds.
func junitCounts(s *results.Suite) (tests, failures, errs int, secs float64) {
	for j := range s.Tasks {
		t := &s.Tasks[j]
		secs += float64(t.LatencyMs) / 1000
		switch t.Status {
		case results.StatusError:
			errs++
		case results.StatusFailed:
			failures++
		}
	}
	return len(s.Tasks), failures, errs, secs
}

func writeJUnitSuite(enc *xml.Encoder, r *results.Run, s *results.Suite) error {
	tests, failures, errs, secs := junitCounts(s)
	attrs := []xml.Attr{
		junitAttr("name", s.ID), junitAttr("tests", strconv.Itoa(tests)), junitAttr("failures", strconv.Itoa(failures)),
		junitAttr("errors", strconv.Itoa(errs)), junitAttr("skipped", "0"), junitAttr("time", junitSeconds(secs)),
	}
	if !r.StartedAt.IsZero() {
		attrs = append(attrs, junitAttr("timestamp", r.StartedAt.UTC().Format("2006-01-02T15:04:05")))
	}
	if file := filepath.ToSlash(s.File); file != "" {
		attrs = append(attrs, junitAttr("file", file))
	}
	start := xml.StartElement{Name: xml.Name{Local: "testsuite"}, Attr: attrs}
	if err := enc.EncodeToken(start); err != nil {
		return err
	}
	props := junitProperties{Property: []junitProperty{
		{Name: "version", Value: s.Version},
		{Name: "aggregateScore", Value: junitScore(s.AggregateScore)},
		{Name: "passScore", Value: junitScore(s.Thresholds.PassScore)},
		{Name: "passed", Value: strconv.FormatBool(s.Passed)},
	}}
	if err := enc.EncodeElement(props, xml.StartElement{Name: xml.Name{Local: "properties"}}); err != nil {
		return err
	}
	caseStart := xml.StartElement{Name: xml.Name{Local: "testcase"}}
	for j := range s.Tasks {
		t := &s.Tasks[j]
		tc := junitTestcase{
			Classname: s.ID,
			Name:      t.ID,
			File:      filepath.ToSlash(t.File),
			Line:      t.Line,
			Time:      junitSeconds(float64(t.LatencyMs) / 1000),
		}
		switch t.Status {
		case results.StatusError:
			kind := t.ErrorKind
			if kind == "" {
				kind = "error"
			}
			tc.Error = &junitProblem{Type: kind, Message: FailureMessage(t)}
		case results.StatusFailed:
			tc.Failure = &junitProblem{Type: "failed", Message: FailureMessage(t)}
		}
		if err := enc.EncodeElement(tc, caseStart); err != nil {
			return err
		}
	}
	return enc.EncodeToken(start.End())
}

func junitAttr(name, value string) xml.Attr {
	return xml.Attr{Name: xml.Name{Local: name}, Value: value}
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
