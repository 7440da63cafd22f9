package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/judges"
)

// CalibrateRequest is one `evalgate calibrate` (docs/judges.md): its flags,
// checked by cli.
type CalibrateRequest struct {
	Labels       string  // the JSON Lines file of human labels
	Config       string  // the project file; "" finds evalgate.yaml
	MinAgreement float64 // the Spearman ρ the judge must reach
	NoCache      bool    // ask the judge again
}

// Calibrate measures how well the project's rubric judge agrees with the
// human labels, writes the calibration file and the agreement report; a
// judge below the bar is ErrGateFailed.
func (c *Env) Calibrate(ctx context.Context, r *CalibrateRequest) error {
	cfg, err := c.LoadConfig(r.Config)
	if err != nil {
		return invalid(err)
	}
	if o := cfg.Judge.OpenAI; o != nil && o.APIKeyEnv != "" && c.Getenv(o.APIKeyEnv) == "" {
		return invalid(&config.Error{Pos: o.APIKeyEnvAt, Message: fmt.Sprintf(
			"judge.openai.apiKeyEnv: the environment variable %s is not set; the judge needs it to be calibrated", o.APIKeyEnv)})
	}
	rj, err := c.NewRubricJudge(cfg, r.NoCache, 0)
	if err != nil {
		return invalid(err)
	}
	if rj == nil {
		return invalid(errors.New("no judge configured: set judge.openai or judge.exec in evalgate.yaml"))
	}
	labels, err := judges.ReadLabels(r.Labels)
	if err != nil {
		var les judges.LabelErrors
		if errors.As(err, &les) {
			return invalid(fmt.Errorf("invalid labels:\n%w", err))
		}
		return invalid(err)
	}

	scores, err := judges.JudgeLabels(ctx, rj.Rubric, labels)
	c.WarnCacheRejected(rj)
	switch {
	case err != nil && ctx.Err() != nil:
		return &Error{Outcome: Interrupted, Err: errors.New("interrupted: nothing was written")}
	case err != nil:
		if uerr := JudgeDown(cfg, rj.Unavailable()); uerr != nil {
			return uerr
		}
		return runError(fmt.Errorf("could not calibrate the judge on %s: %w", r.Labels, err))
	}
	human := make([]float64, len(labels))
	for i, l := range labels {
		human[i] = l.Human
	}
	cal := &judges.Calibration{
		JudgeID:      rj.Judge.ID(),
		Fingerprint:  judges.Fingerprint(rj.Judge.Identity()),
		Labels:       r.Labels,
		MinAgreement: r.MinAgreement,
		Date:         time.Now().UTC().Truncate(time.Second),
		Agreement:    judges.Measure(scores, human),
	}
	if sc := labels[0].Scale; sc != nil {
		cal.Agreement = judges.MeasureGraded(scores, human, sc.Min, sc.Max)
	}
	cal.Passed = cal.Rho != nil && *cal.Rho >= r.MinAgreement
	path := CalibrationFile(cfg)
	if err := judges.WriteCalibration(path, cal); err != nil {
		return runError(err)
	}
	c.printCalibration(c.Stdout, cal, path)
	if !cal.Passed {
		return ErrGateFailed
	}
	return nil
}

// printCalibration writes the agreement report of a calibration.
func (c *Env) printCalibration(w io.Writer, cal *judges.Calibration, path string) {
	a := cal.Agreement
	c.Say(w, "judge %s on %d labels from %s\n\n", cal.JudgeID, a.N, cal.Labels)
	fmt.Fprintf(w, "  Spearman ρ  %s  (bar %.2f)\n", figure(a.Rho), cal.MinAgreement)
	if a.Scale != nil {
		printGradedAgreement(w, a)
	} else {
		printConfusion(w, a)
	}
	switch {
	case a.Rho == nil:
		fmt.Fprintf(w, "not calibrated: ρ is undefined (the judge or the labels give one answer to every example); add labels of both kinds\n")
	case cal.Passed:
		fmt.Fprintf(w, "calibrated: ρ %.3f ≥ %.2f\n", *a.Rho, cal.MinAgreement)
	default:
		fmt.Fprintf(w, "not calibrated: ρ %.3f < %.2f; do not let this judge gate until it agrees with people\n", *a.Rho, cal.MinAgreement)
	}
	c.Say(w, "wrote %s; commit it: every run reads it to say whether the judge is calibrated\n", path)
}

// printConfusion writes κ, accuracy and the confusion table of yes/no labels.
func printConfusion(w io.Writer, a judges.Agreement) {
	fmt.Fprintf(w, "  Cohen's κ   %s\n", figure(a.Kappa))
	fmt.Fprintf(w, "  accuracy    %.3f  (%d of %d)\n\n", a.Accuracy, a.Confusion.BothMet+a.Confusion.Neither, a.N)
	fmt.Fprintf(w, "  %-14s %9s %14s\n", "", "human met", "human not met")
	fmt.Fprintf(w, "  %-14s %9d %14d\n", "judge met", a.Confusion.BothMet, a.Confusion.JudgeOnly)
	fmt.Fprintf(w, "  %-14s %9d %14d\n\n", "judge not met", a.Confusion.HumanOnly, a.Confusion.Neither)
}

// printGradedAgreement writes the weighted κ and exact agreement of graded
// labels.
func printGradedAgreement(w io.Writer, a judges.Agreement) {
	fmt.Fprintf(w, "  weighted κ  %s  (quadratic, levels %d to %d)\n", figure(a.Kappa), a.Scale.Min, a.Scale.Max)
	fmt.Fprintf(w, "  exact level %.3f  (%d of %d)\n\n", a.Accuracy, int(math.Round(a.Accuracy*float64(a.N))), a.N)
}

func figure(v *float64) string {
	if v == nil {
		return "undefined"
	}
	return fmt.Sprintf("%.3f", *v)
}
