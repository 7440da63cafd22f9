package report

import (
	"bytes"
	"cmp"
	"encoding/xml"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/escape"
	"github.com/evalgate/evalgate/results"
)

// A JUnit XML report has the shape the common reporters (Jenkins, GitLab,
// dorny/test-reporter, mikepenz/action-junit-report) accept: testsuites >
// testsuite (with properties) > testcase, with failure and error children.

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
	return atomicfile.Stream(path, 0o644, 0o755, func(w io.Writer) error { return WriteJUnit(w, r) })
}

// WriteJUnit writes a run as JUnit XML: one testsuite per suite (named by
// its suiteId), one testcase per task (see writeJUnitCase), a failure for a
// failed task and an error for an errored one, each saying why in its type
// and body. It carries ids, scores, check ids, reason codes and kinds only,
// never task content. Testcases are written one at a time, so the report
// of 100,000 tasks is never held in memory whole.
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
		if err := writeJUnitSuite(w, enc, r, &r.Suites[i]); err != nil {
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

// writeJUnitSuite writes a suite's testsuite through enc, but for the
// testcases of tasks that did not fail, which it writes to w itself
// (appendJUnitPassed) once enc is flushed.
func writeJUnitSuite(w io.Writer, enc *xml.Encoder, r *results.Run, s *results.Suite) error {
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
	var passed []byte // testcases written by hand, not yet written to w
	flushed := false
	for j := range s.Tasks {
		t := &s.Tasks[j]
		if t.Status != results.StatusFailed && t.Status != results.StatusError {
			if !flushed {
				if err := enc.Flush(); err != nil {
					return err
				}
				flushed = true
			}
			if passed = appendJUnitPassed(passed, s, t); len(passed) >= 64<<10 {
				if _, err := w.Write(passed); err != nil {
					return err
				}
				passed = passed[:0]
			}
			continue
		}
		if _, err := w.Write(passed); err != nil {
			return err
		}
		passed, flushed = passed[:0], false
		if err := writeJUnitCase(enc, s, t); err != nil {
			return err
		}
	}
	if _, err := w.Write(passed); err != nil {
		return err
	}
	return enc.EncodeToken(start.End())
}

// appendJUnitPassed appends the testcase of a task that did not fail
// exactly as writeJUnitCase writes it through an encoder indenting by two
// spaces, at the depth of a testsuite's testcases: a merge of 200,000
// tasks spent a third of the time it took to write its outputs in
// encoding/xml. An element without children leaves the encoder's
// indentation as it was, so the encoder carries on after it as if it had
// written it. TestAppendJUnitPassedIsTheEncoders keeps the two in step.
func appendJUnitPassed(b []byte, s *results.Suite, t *results.Task) []byte {
	b = append(b, "\n    <testcase"...)
	b = appendXMLAttr(b, "classname", s.ID)
	b = appendXMLAttr(b, "name", t.ID)
	if file := filepath.ToSlash(t.File); file != "" {
		b = appendXMLAttr(b, "file", file)
	}
	if t.Line > 0 {
		b = append(b, ` line="`...)
		b = strconv.AppendInt(b, int64(t.Line), 10)
		b = append(b, '"')
	}
	b = append(b, ` time="`...)
	b = strconv.AppendFloat(b, float64(t.LatencyMs)/1000, 'f', 3, 64)
	return append(b, `"></testcase>`...)
}

// appendXMLAttr appends ` name="value"`, value escaped as encoding/xml
// escapes an attribute's (escape.XML).
func appendXMLAttr(b []byte, name, value string) []byte {
	b = append(b, ' ')
	b = append(b, name...)
	b = append(b, '=', '"')
	b = append(b, escape.XML(value)...)
	return append(b, '"')
}

// writeJUnitCase writes a task's testcase (classname = suiteId, name =
// taskId, its file and line) with, when it did not pass, a failure or an
// error: a one-line message, a type saying what kind of problem it is, and
// a body with the details (junitDetail). It is written token by token: a
// body written by EncodeElement would have its line breaks as &#xA;.
func writeJUnitCase(enc *xml.Encoder, s *results.Suite, t *results.Task) error {
	attrs := []xml.Attr{junitAttr("classname", s.ID), junitAttr("name", t.ID)}
	if file := filepath.ToSlash(t.File); file != "" {
		attrs = append(attrs, junitAttr("file", file))
	}
	if t.Line > 0 {
		attrs = append(attrs, junitAttr("line", strconv.Itoa(t.Line)))
	}
	attrs = append(attrs, junitAttr("time", junitSeconds(float64(t.LatencyMs)/1000)))
	start := xml.StartElement{Name: xml.Name{Local: "testcase"}, Attr: attrs}
	tokens := []xml.Token{start}
	var problem, kind string
	switch t.Status {
	case results.StatusError:
		problem, kind = "error", cmp.Or(t.ErrorKind, "error")
	case results.StatusFailed:
		problem, kind = "failure", junitFailureType(t)
	}
	if problem != "" {
		p := xml.StartElement{Name: xml.Name{Local: problem}, Attr: []xml.Attr{
			junitAttr("message", FailureMessage(t)), junitAttr("type", kind),
		}}
		tokens = append(tokens, p, xml.CharData(junitDetail(t)), p.End())
	}
	tokens = append(tokens, start.End())
	for _, tok := range tokens {
		if err := enc.EncodeToken(tok); err != nil {
			return err
		}
	}
	return nil
}

// JUnit failure types: what made a failed task fail, most telling first.
const (
	junitFinding     = "finding"      // a critical or high safety finding
	junitCheckFailed = "check-failed" // a check failed in some trial
	junitBelowBar    = "below-bar"    // the score alone is under the bar
)

// junitFailureType is the type of a failed task's <failure>.
func junitFailureType(t *results.Task) string {
	if len(blockingFindings(t)) > 0 {
		return junitFinding
	}
	if len(t.FailedChecks) > 0 || failedChecks(t) != "" {
		return junitCheckFailed
	}
	return junitBelowBar
}

// junitDetail is the body of a failure or an error: one "name: value" line
// for each thing known about why the task did not pass, content-free (ids,
// fixed reason codes and kinds, counts, scores), so that a reporter showing
// only the body still says why.
func junitDetail(t *results.Task) string {
	var b strings.Builder
	add := func(name, value string) {
		if value != "" {
			b.WriteString(name + ": " + junitOneLine.Replace(value) + "\n")
		}
	}
	add("where", where(t))
	add("error", t.ErrorKind)
	add("error message", t.ErrorMessage)
	add("score", scoreAgainstBar(t))
	if n := len(t.Trials); n > 0 {
		add("trials passed", fmt.Sprintf("%d/%d", t.TrialsPassed, n))
	}
	if len(t.Trials) > 1 {
		for _, tr := range t.Trials {
			add(fmt.Sprintf("trial %d error", tr.Trial), tr.ErrorKind)
			add(fmt.Sprintf("trial %d error message", tr.Trial), tr.ErrorMessage)
		}
	}
	add("failed checks", failedChecks(t))
	add("findings", findingsBySeverity(t.Findings))
	return b.String()
}

// junitOneLine keeps a value of the body on its line: an id holding a line
// break could otherwise start a line of its own, such as a workflow
// command in a CI log that shows the file.
var junitOneLine = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ")

func junitAttr(name, value string) xml.Attr {
	return xml.Attr{Name: xml.Name{Local: name}, Value: value}
}

// FailureMessage says, without any task content, why a task did not pass:
// "failed checks: match, assert[1] (score 0.50 < 1.00)", the error kind of
// an errored task, the findings that failed it, or the trials that did not
// pass. It is empty for a passed task. JUnit failures, SARIF and the GitHub
// annotations share it; what it quotes (check ids, finding kinds) is
// escaped.
func FailureMessage(t *results.Task) string {
	switch t.Status {
	case results.StatusPassed:
		return ""
	case results.StatusError:
		return "task errored: " + errorText(t.ErrorKind, t.ErrorMessage)
	}
	var parts []string
	if checks := failedChecks(t); checks != "" {
		// As the terminal's WHY column says it: each check's reason
		// code, or a graded criterion's level.
		parts = append(parts, "failed checks: "+checks)
	}
	if blocking := blockingFindings(t); len(blocking) > 0 {
		parts = append(parts, "findings: "+strings.Join(blocking, ", "))
	}
	if n := len(t.Trials); n > 1 && t.TrialsPassed < n {
		parts = append(parts, fmt.Sprintf("%d/%d trials passed", t.TrialsPassed, n))
	}
	score := "score " + scoreAgainstBar(t)
	if len(parts) == 0 {
		return score
	}
	return escape.Text(strings.Join(parts, "; ")) + " (" + score + ")"
}

// blockingFindings lists the task's critical and high findings, which fail
// it whatever its score, as "kind (severity)".
func blockingFindings(t *results.Task) []string {
	var blocking []string
	for _, f := range t.Findings {
		if f.Severity == results.SeverityCritical || f.Severity == results.SeverityHigh {
			blocking = append(blocking, f.Kind+" ("+f.Severity+")")
		}
	}
	return blocking
}

// scoreAgainstBar is "0.50 < 1.00": the task's score against its bar.
func scoreAgainstBar(t *results.Task) string {
	op := ">="
	if t.Score < t.PassScore {
		op = "<"
	}
	return fmt.Sprintf("%.2f %s %.2f", t.Score, op, t.PassScore)
}

func junitSeconds(s float64) string {
	return strconv.FormatFloat(s, 'f', 3, 64)
}

func junitScore(v float64) string {
	return strconv.FormatFloat(v, 'f', 4, 64)
}
