package judges

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/internal/inputfile"
	"golang.org/x/sync/errgroup"
)

// DefaultMinAgreement is the Spearman ρ a model grader must reach on human
// labels before its rubric scores should gate anything: the bar of the seed
// specification.
const DefaultMinAgreement = 0.80

// DefaultCalibrationFile is where `evalgate calibrate` writes the figure,
// relative to the project file's folder.
const DefaultCalibrationFile = ".evalgate/calibration.json"

// Label is one human-labelled example: did output meet criterion, in a
// person's view? Human is 0 or 1 for a yes/no label, or a score in between.
type Label struct {
	Line      int // 1-based line in the labels file
	Input     json.RawMessage
	Output    json.RawMessage
	Criterion string
	Human     float64
	// Scale, when set, makes the label graded: Human is then the level a
	// person gave, on it (docs/judges.md, "Graded criteria").
	Scale *RubricScale
}

// LabelError is a problem on one line of a labels file (Pos.Col is 0):
// evalgate's one positioned error, rendered as `file:line: message`.
type LabelError = diag.Error

// LabelErrors is every problem found in a labels file.
type LabelErrors = diag.Errors

// ReadLabels reads a JSON Lines file of labels, one object per line:
//
//	{"input": ..., "output": ..., "criterion": "...", "human": true}
//
// human is true, false or a number from 0 to 1; input may be left out
// (null). A graded label adds the criterion's scale, as a suite writes it,
// and human is the level a person gave:
//
//	{"output": ..., "criterion": "...", "scale": {"min": 0, "max": 4, "levels": {"0": "...", ...}}, "human": 3}
//
// A file holds yes/no labels or graded ones on one scale, not both. Blank lines are skipped. Every problem of the file is returned at
// once as LabelErrors; at least two labels are needed to measure agreement.
func ReadLabels(path string) ([]Label, error) {
	f, err := LabelsFile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("could not read labels %q: %w", path, err)
	}
	defer f.Close()
	return ParseLabels(path, f)
}

// LabelsFile is the kind of input a labels file is (internal/inputfile):
// read a line at a time, each label a few kilobytes.
var LabelsFile = inputfile.Kind{What: "a labels file", Limit: 64 << 20, Hint: "name a JSON Lines file of labelled examples"}

// CalibrationFile is the kind of input a calibration file is: the few
// figures WriteCalibration writes.
var CalibrationFile = inputfile.Kind{What: "a calibration file", Limit: 1 << 20, Hint: "run evalgate calibrate to write it again"}

// maxLabelProblems is how many labels' problems ReadLabels reports before
// it stops reading: a file of the wrong kind has one on every line.
const maxLabelProblems = 20

// ParseLabels parses labels read from r; name is the file name for errors.
func ParseLabels(name string, r io.Reader) ([]Label, error) {
	var (
		labels []Label
		errs   LabelErrors
	)
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		text, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(text)) > 0 {
			l, msg := parseLabel(bytes.TrimSpace(text))
			if msg != "" {
				if len(errs) == maxLabelProblems {
					errs = append(errs, &LabelError{Pos: diag.Pos{File: name, Line: line}, Message: fmt.Sprintf("%d labels have problems; the lines after this one were not read", maxLabelProblems)})
					break
				}
				errs = append(errs, &LabelError{Pos: diag.Pos{File: name, Line: line}, Message: msg})
			} else {
				l.Line = line
				labels = append(labels, l)
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("could not read labels %q: %w", name, err)
		}
	}
	if len(errs) == 0 {
		errs = checkGradedLabels(name, labels)
	}
	if len(errs) == 0 && len(labels) < 2 {
		errs = append(errs, &LabelError{Pos: diag.Pos{File: name}, Message: fmt.Sprintf("expected at least 2 labels to measure agreement, found %d", len(labels))})
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return labels, nil
}

var labelKeys = `"input", "output", "criterion", "human", "scale"`

// parseLabel decodes one line; the message says what is wrong, "" if nothing.
func parseLabel(text []byte) (Label, string) {
	var l Label
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(text, &obj); err != nil || obj == nil {
		return l, "expected one JSON object per line"
	}
	var problems []string
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	_, graded := obj["scale"]
	for _, k := range keys {
		v := obj[k]
		switch k {
		case "scale":
			var p []string
			l.Scale, l.Human, p = gradedLabel(v, obj["human"])
			problems = append(problems, p...)
		case "input":
			l.Input = v
		case "output":
			l.Output = v
		case "criterion":
			if json.Unmarshal(v, &l.Criterion) != nil || strings.TrimSpace(l.Criterion) == "" {
				problems = append(problems, "criterion: expected a non-empty string")
			}
		case "human":
			if graded {
				continue // a level, read with its scale
			}
			var b bool
			var f float64
			switch {
			case string(v) == "null":
				problems = append(problems, "human: expected true, false or a number from 0 to 1")
			case json.Unmarshal(v, &b) == nil:
				if b {
					l.Human = 1
				}
			case json.Unmarshal(v, &f) == nil && f >= 0 && f <= 1:
				l.Human = f
			default:
				problems = append(problems, "human: expected true, false or a number from 0 to 1")
			}
		default:
			problems = append(problems, fmt.Sprintf("unknown key %q; expected one of %s", k, labelKeys))
		}
	}
	for _, req := range []string{"output", "criterion", "human"} {
		if _, ok := obj[req]; !ok {
			problems = append(problems, fmt.Sprintf("%s is required", req))
		}
	}
	if l.Input == nil {
		l.Input = json.RawMessage("null")
	}
	return l, strings.Join(problems, "; ")
}

// JudgeLabels runs judge over every label, one criterion at a time, and
// returns its verdicts in label order (1 met, 0 not met; the level, for a
// graded label). Labels are judged
// concurrently; the judge bounds its own calls. The first failure stops
// the calibration: an agreement measured on part of the labels would not
// be the agreement of the judge.
func JudgeLabels(ctx context.Context, judge Rubric, labels []Label) ([]float64, error) {
	out := make([]float64, len(labels))
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(8)
	for i, l := range labels {
		g.Go(func() error {
			v, err := judge.Decide(gctx, &RubricRequest{
				SuiteID:  "calibration",
				TaskID:   fmt.Sprintf("line-%d", l.Line),
				Criteria: []RubricCriterion{{Criterion: l.Criterion, Weight: 1, Scale: l.Scale}},
				Input:    l.Input,
				Output:   l.Output,
			})
			if err != nil {
				return fmt.Errorf("line %d: %w", l.Line, err)
			}
			if len(v.Met) != 1 {
				return fmt.Errorf("line %d: the judge answered %d criteria, want 1", l.Line, len(v.Met))
			}
			switch {
			case l.Scale != nil && len(v.Levels) == 1:
				out[i] = float64(v.Levels[0])
			case l.Scale != nil:
				return fmt.Errorf("line %d: the judge gave no level", l.Line)
			case v.Met[0]:
				out[i] = 1
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// Confusion counts the judge's verdicts against the human labels, a human
// score of 0.5 or more counting as met.
type Confusion struct {
	BothMet   int `json:"bothMet"`   // judge met, human met
	JudgeOnly int `json:"judgeOnly"` // judge met, human not
	HumanOnly int `json:"humanOnly"` // judge not, human met
	Neither   int `json:"neither"`   // judge not, human not
}

// Agreement is how well a judge agrees with people. Rho and Kappa are nil
// when undefined: when one side gives the same answer every time there is
// no ranking (ρ) or no chance correction (κ) to measure.
type Agreement struct {
	N         int       `json:"n"`
	Rho       *float64  `json:"rho"`   // Spearman rank correlation, ties at average ranks
	Kappa     *float64  `json:"kappa"` // Cohen's kappa on met / not met
	Accuracy  float64   `json:"accuracy"`
	Confusion Confusion `json:"confusion"`
	// Scale is set for graded labels: ρ is then on levels, Kappa the
	// KappaWeights-weighted κ and Accuracy the share of exact levels.
	Scale        *AgreementScale `json:"scale,omitempty"`
	KappaWeights string          `json:"kappaWeights,omitempty"`
}

// Measure compares judge scores with human scores, index by index. Both
// are in [0, 1]; for κ, accuracy and the confusion counts a score of 0.5
// or more is "met".
func Measure(judge, human []float64) Agreement {
	a := Agreement{N: len(judge)}
	jb := make([]bool, len(judge))
	hb := make([]bool, len(human))
	for i := range judge {
		jb[i], hb[i] = judge[i] >= 0.5, human[i] >= 0.5
		switch {
		case jb[i] && hb[i]:
			a.Confusion.BothMet++
		case jb[i]:
			a.Confusion.JudgeOnly++
		case hb[i]:
			a.Confusion.HumanOnly++
		default:
			a.Confusion.Neither++
		}
	}
	if a.N > 0 {
		a.Accuracy = float64(a.Confusion.BothMet+a.Confusion.Neither) / float64(a.N)
	}
	if r, ok := Spearman(judge, human); ok {
		a.Rho = &r
	}
	if k, ok := CohenKappa(jb, hb); ok {
		a.Kappa = &k
	}
	return a
}

// Spearman is the rank correlation of x and y: the Pearson correlation of
// their ranks, tied values sharing the average of their ranks. ok is false
// when it is undefined (fewer than two values, or one side constant).
func Spearman(x, y []float64) (rho float64, ok bool) {
	if len(x) != len(y) || len(x) < 2 {
		return 0, false
	}
	return pearson(ranks(x), ranks(y))
}

// ranks gives each value its 1-based rank; ties get their average rank.
func ranks(v []float64) []float64 {
	idx := make([]int, len(v))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return v[idx[a]] < v[idx[b]] })
	r := make([]float64, len(v))
	for i := 0; i < len(idx); {
		j := i
		for j+1 < len(idx) && v[idx[j+1]] == v[idx[i]] {
			j++
		}
		avg := float64(i+j)/2 + 1
		for k := i; k <= j; k++ {
			r[idx[k]] = avg
		}
		i = j + 1
	}
	return r
}

func pearson(x, y []float64) (float64, bool) {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += dx * dy
		sxx += dx * dx
		syy += dy * dy
	}
	if sxx == 0 || syy == 0 {
		return 0, false
	}
	return sxy / math.Sqrt(sxx*syy), true
}

// CohenKappa is the chance-corrected agreement of two raters on yes/no:
// (po - pe) / (1 - pe). ok is false when it is undefined: no ratings, or
// both raters giving one and the same answer throughout (pe = 1).
func CohenKappa(a, b []bool) (kappa float64, ok bool) {
	if len(a) != len(b) || len(a) == 0 {
		return 0, false
	}
	n := float64(len(a))
	var agree, ya, yb float64
	for i := range a {
		if a[i] == b[i] {
			agree++
		}
		if a[i] {
			ya++
		}
		if b[i] {
			yb++
		}
	}
	po := agree / n
	pe := (ya/n)*(yb/n) + (1-ya/n)*(1-yb/n)
	if pe == 1 {
		return 0, false
	}
	return (po - pe) / (1 - pe), true
}

// Calibration is the content of the calibration file: the agreement a
// judge reached on human labels, and with which judge.
type Calibration struct {
	JudgeID string `json:"judgeId"`
	// Fingerprint is a SHA-256 of the judge's Identity: a changed model,
	// prompt, samples or judge program does not match any more.
	Fingerprint  string    `json:"fingerprint"`
	Labels       string    `json:"labels"` // the labels file, as given
	MinAgreement float64   `json:"minAgreement"`
	Passed       bool      `json:"passed"` // rho >= minAgreement
	Date         time.Time `json:"date"`
	Agreement
}

// Fingerprint is the SHA-256 of a judge identity, as a calibration records it.
func Fingerprint(identity string) string {
	sum := sha256.Sum256([]byte(identity))
	return hex.EncodeToString(sum[:])
}

// Matches reports whether c was measured on the judge with this identity.
func (c *Calibration) Matches(identity string) bool {
	return c.Fingerprint == Fingerprint(identity)
}

// ReadCalibration reads a calibration file. A missing file is (nil, nil):
// the judge was never calibrated.
func ReadCalibration(path string) (*Calibration, error) {
	data, err := CalibrationFile.Read(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("could not read calibration %q: %w", path, err)
	}
	var c Calibration
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("could not parse calibration %q: %s", path, jsonProblem(err))
	}
	return &c, nil
}

// WriteCalibration writes c to path atomically, creating its folder.
func WriteCalibration(path string, c *Calibration) error {
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("could not encode calibration: %w", err)
	}
	if err := atomicfile.WriteFile(path, append(data, '\n'), 0o644, 0o755); err != nil {
		return fmt.Errorf("could not write calibration %q: %w", path, err)
	}
	return nil
}
