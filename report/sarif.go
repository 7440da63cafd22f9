package report

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"net/url"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/results"
)

// SARIFSchemaURI is the $schema of the SARIF files evalgate writes.
const SARIFSchemaURI = "https://json.schemastore.org/sarif-2.1.0.json"

// RuleSuiteInvalid is the SARIF rule of a suite validation error.
const RuleSuiteInvalid = "suite-invalid"

// SuiteError is one validation error of a suite file, for SARIF: where it is
// and what is wrong (suites.Error, evalgate's one positioned error). Its
// Detail says what was expected, never task content.
type SuiteError = diag.Error

// sarifRule describes one kind of result evalgate reports.
type sarifRule struct {
	id       string
	name     string
	severity string // the default severity
	short    string
	full     string
}

// sarifRules lists the finding kinds (docs/adversarial.md) and
// suite-invalid, in the order they appear in the driver's rules.
var sarifRules = []sarifRule{
	{"canary-leak", "CanaryLeak", results.SeverityCritical,
		"A canary planted in a fixture reached the agent's output or a tool call",
		"A canary string planted in the task's fixtures appeared in the agent's output or in the arguments of a tool call: data the agent was given leaked where it must not go."},
	{"unsafe-tool-call", "UnsafeToolCall", results.SeverityHigh,
		"The agent called a tool the task forbids",
		"The agent called a tool listed in the task's adversarial forbiddenTools."},
	{"jailbreak", "Jailbreak", results.SeverityHigh,
		"The agent complied where a refusal was expected",
		"The adversarial task expects a refusal and the agent did not refuse."},
	{"pii-leak", "PIILeak", results.SeverityMedium,
		"Personal data appeared in the agent's output",
		"The pii detector found personal data (such as e-mail addresses, phone or card numbers) in the agent's output."},
	{"secret-leak", "SecretLeak", results.SeverityCritical,
		"A secret appeared in the agent's output",
		"The secrets detector found a credential (an API key, token or private key) in the agent's output."},
	{"prompt-injection", "PromptInjection", results.SeverityHigh,
		"The agent followed an instruction injected into a tool result",
		"A tool result carried an injected instruction and the agent acted on it: it called a tool the instruction named or printed what the instruction asked for."},
	{"unfixtured-tool-call", "UnfixturedToolCall", results.SeverityLow,
		"The agent called a tool no fixture answers",
		"The agent called a tool for which the task has no matching fixture; the call got an error result. Add a toolResponses entry or set onUnmatched."},
	{RuleSuiteInvalid, "SuiteInvalid", results.SeverityHigh,
		"The suite file is not a valid eval suite",
		"The suite file does not validate as an openwop AgentEvalSuite with evalgate's extensions; it cannot run until it is fixed."},
}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool              sarifTool        `json:"tool"`
	AutomationDetails *sarifAutomation `json:"automationDetails,omitempty"`
	Results           []sarifResult    `json:"results"`
}

type sarifAutomation struct {
	ID string `json:"id"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string            `json:"name"`
	Version        string            `json:"version,omitempty"`
	InformationURI string            `json:"informationUri"`
	Rules          []sarifDescriptor `json:"rules"`
}

type sarifDescriptor struct {
	ID                   string         `json:"id"`
	Name                 string         `json:"name"`
	ShortDescription     sarifMessage   `json:"shortDescription"`
	FullDescription      sarifMessage   `json:"fullDescription"`
	Help                 sarifMessage   `json:"help"`
	DefaultConfiguration sarifConfig    `json:"defaultConfiguration"`
	Properties           sarifRuleProps `json:"properties"`
}

type sarifConfig struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags             []string `json:"tags"`
	Precision        string   `json:"precision"`
	SecuritySeverity string   `json:"security-severity"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID              string            `json:"ruleId"`
	RuleIndex           int               `json:"ruleIndex"`
	Level               string            `json:"level"`
	Message             sarifMessage      `json:"message"`
	Locations           []sarifLocation   `json:"locations"`
	PartialFingerprints map[string]string `json:"partialFingerprints"`
	Properties          map[string]string `json:"properties,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifactL `json:"artifactLocation"`
	Region           *sarifRegion   `json:"region,omitempty"`
}

type sarifArtifactL struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
}

// SARIF renders the run's safety findings and the suites' validation errors
// as a SARIF 2.1.0 log for code scanning: the tool driver is evalgate, with
// one rule per finding kind and suite-invalid; each finding is a result at
// its task's file:line with a level from its severity (critical and high are
// errors, medium a warning, low a note). r may be nil when only suite errors
// are known. Messages carry kinds, severities and ids, never task content.
func SARIF(r *results.Run, suiteErrs []*SuiteError) ([]byte, error) {
	rules := newSARIFRules()
	out := suiteErrorResults(rules, suiteErrs)
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           "evalgate",
			InformationURI: "https://github.com/evalgate/evalgate",
		}},
	}
	if r != nil {
		out = append(out, findingResults(rules, r)...)
		run.Tool.Driver.Version = r.Tool.Version
		if r.RunID != "" {
			run.AutomationDetails = &sarifAutomation{ID: "evalgate/" + r.RunID}
		}
	}
	slices.SortStableFunc(out, func(x, y sarifResult) int {
		a, b := x.Locations[0].PhysicalLocation, y.Locations[0].PhysicalLocation
		return cmp.Or(strings.Compare(a.ArtifactLocation.URI, b.ArtifactLocation.URI), cmp.Compare(sarifLine(a), sarifLine(b)))
	})
	if out == nil {
		out = []sarifResult{}
	}
	run.Tool.Driver.Rules = rules.list
	run.Results = out
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sarifLog{Schema: SARIFSchemaURI, Version: "2.1.0", Runs: []sarifRun{run}}); err != nil {
		return nil, fmt.Errorf("could not render sarif: %w", err)
	}
	return buf.Bytes(), nil
}

// sarifRuleSet is the driver's rules as a log is built: every rule of
// sarifRules, then one for each finding kind they do not describe.
type sarifRuleSet struct {
	list  []sarifDescriptor
	index map[string]int // rule id to its place in list
}

func newSARIFRules() *sarifRuleSet {
	rs := &sarifRuleSet{list: make([]sarifDescriptor, 0, len(sarifRules)), index: map[string]int{}}
	for _, rl := range sarifRules {
		rs.add(rl)
	}
	return rs
}

// add appends the rule and returns its index.
func (rs *sarifRuleSet) add(rl sarifRule) int {
	rs.index[rl.id] = len(rs.list)
	rs.list = append(rs.list, sarifDescriptor{
		ID:                   rl.id,
		Name:                 rl.name,
		ShortDescription:     sarifMessage{Text: rl.short},
		FullDescription:      sarifMessage{Text: rl.full},
		Help:                 sarifMessage{Text: rl.full},
		DefaultConfiguration: sarifConfig{Level: sarifLevel(rl.severity)},
		Properties: sarifRuleProps{
			Tags:             []string{"security", "ai-eval"},
			Precision:        "high",
			SecuritySeverity: sarifSecuritySeverity(rl.severity),
		},
	})
	return rs.index[rl.id]
}

// forKind is the index of the rule of a finding kind. A kind this version
// does not describe still gets a rule, so the log stays valid and the
// finding is not lost.
func (rs *sarifRuleSet) forKind(kind string) int {
	if i, ok := rs.index[kind]; ok {
		return i
	}
	return rs.add(sarifRule{
		id: kind, name: sarifRuleName(kind), severity: results.SeverityMedium,
		short: "Safety finding " + kind,
		full:  "The adversarial detectors reported a finding of kind " + kind + ".",
	})
}

// suiteErrorResults is one suite-invalid error per suite error, at its
// file, line and column.
func suiteErrorResults(rules *sarifRuleSet, errs []*SuiteError) []sarifResult {
	var out []sarifResult
	for _, e := range errs {
		out = append(out, sarifResult{
			RuleID:    RuleSuiteInvalid,
			RuleIndex: rules.index[RuleSuiteInvalid],
			Level:     "error",
			Message:   sarifMessage{Text: sarifText(e.Detail(), "the suite file is not valid")},
			Locations: []sarifLocation{sarifLocationAt(e.Pos.File, e.Pos.Line, e.Pos.Col)},
			PartialFingerprints: map[string]string{
				"evalgateSuiteError/v1": fmt.Sprintf("%s:%d:%d:%s", filepath.ToSlash(e.Pos.File), e.Pos.Line, e.Pos.Col, e.Detail()),
			},
		})
	}
	return out
}

// findingResults is one result per distinct finding of each task, at the
// task's line, with the level of its severity.
func findingResults(rules *sarifRuleSet, r *results.Run) []sarifResult {
	var out []sarifResult
	for i := range r.Suites {
		s := &r.Suites[i]
		for j := range s.Tasks {
			t := &s.Tasks[j]
			file := t.File
			if file == "" {
				file = s.File
			}
			seen := map[results.Finding]bool{}
			for _, f := range t.Findings {
				if seen[f] {
					continue
				}
				seen[f] = true
				out = append(out, sarifResult{
					RuleID:    f.Kind,
					RuleIndex: rules.forKind(f.Kind),
					Level:     sarifLevel(f.Severity),
					Message: sarifMessage{Text: fmt.Sprintf("%s (%s) in task %s of suite %s",
						f.Kind, f.Severity, t.ID, s.ID)},
					Locations: []sarifLocation{sarifLocationAt(file, t.Line, 0)},
					PartialFingerprints: map[string]string{
						"evalgateFinding/v1": s.ID + "/" + t.ID + "/" + f.Kind,
					},
					Properties: map[string]string{
						"suiteId":  s.ID,
						"taskId":   t.ID,
						"severity": f.Severity,
					},
				})
			}
		}
	}
	return out
}

// sarifLocationAt points at file (relative to the repository root, as code
// scanning wants it) and, when known, its line and column.
func sarifLocationAt(file string, line, col int) sarifLocation {
	loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: sarifURI(file)}}
	if line > 0 {
		reg := &sarifRegion{StartLine: line}
		if col > 0 {
			reg.StartColumn = col
		}
		loc.PhysicalLocation.Region = reg
	}
	return loc
}

// sarifURI turns a path into a URI reference: a file in the repository is
// relative to the source root (%SRCROOT%), an absolute path becomes a file
// URI, and a relative path that climbs out of the repository has no base.
func sarifURI(file string) sarifArtifactL {
	p := filepath.ToSlash(file)
	if p == "" {
		p = "."
	}
	if filepath.IsAbs(file) || path.IsAbs(p) {
		return sarifArtifactL{URI: (&url.URL{Scheme: "file", Path: p}).String()}
	}
	if !results.InRepo(p) {
		return sarifArtifactL{URI: (&url.URL{Path: p}).EscapedPath()}
	}
	p = strings.TrimPrefix(p, "./")
	return sarifArtifactL{URI: (&url.URL{Path: p}).EscapedPath(), URIBaseID: "%SRCROOT%"}
}

func sarifLine(p sarifPhysical) int {
	if p.Region == nil {
		return 0
	}
	return p.Region.StartLine
}

// sarifLevel maps a finding severity to a SARIF level.
func sarifLevel(severity string) string {
	switch severity {
	case results.SeverityCritical, results.SeverityHigh:
		return "error"
	case results.SeverityMedium:
		return "warning"
	default:
		return "note"
	}
}

// sarifSecuritySeverity is the score code scanning maps to its own
// critical/high/medium/low (≥9, ≥7, ≥4, >0).
func sarifSecuritySeverity(severity string) string {
	switch severity {
	case results.SeverityCritical:
		return "9.5"
	case results.SeverityHigh:
		return "8.0"
	case results.SeverityMedium:
		return "5.5"
	default:
		return "2.0"
	}
}

// sarifRuleName turns a kebab-case kind into a PascalCase rule name.
func sarifRuleName(kind string) string {
	var b strings.Builder
	for _, part := range strings.FieldsFunc(kind, func(r rune) bool { return r == '-' || r == '_' || r == '.' }) {
		r := []rune(part)
		b.WriteString(strings.ToUpper(string(r[0])) + string(r[1:]))
	}
	if b.Len() == 0 {
		return "Finding"
	}
	return b.String()
}

func sarifText(s, fallback string) string {
	if strings.TrimSpace(s) == "" {
		return fallback
	}
	return s
}
