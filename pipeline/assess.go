package pipeline

import (
	"path/filepath"

	"github.com/evalgate/evalgate/assess"
	"github.com/evalgate/evalgate/report"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// runAssessment is the assessment of a run or a merge whose config has
// `assessment:` (docs/assessment.md): its history, read before anything runs, and
// the assessment once the run is over.
type runAssessment struct {
	opts       assess.Options
	assessment *assess.Assessment
}

// prepareAssessment reads the assessment's history and warns of task
// domains outside the taxonomy; nil without `assessment:`. A history file
// that cannot be read is exit 2, before anything runs.
func (j *job) prepareAssessment(loaded []*suites.Suite) error {
	if j.cfg.Assessment == nil {
		return nil
	}
	ra := &runAssessment{opts: j.cfg.Assessment.Options()}
	var err error
	if ra.opts.History, err = ReadHistory(HistoryPaths(j.cfg, nil), ra.opts); err != nil {
		return invalid(err)
	}
	j.c.WarnSuiteDomains(loaded, ra.opts.Taxonomy)
	j.assess = ra
	return nil
}

// assessRun assesses the finished run, identified by its run id and dated
// by its end, against the baseline's assessment when the baseline carries
// one, and records the summary in results.json. An interrupted run is not
// assessed: like its gates, its assessment would judge the tasks that
// happened to finish.
func (j *job) assessRun(run *results.Run) {
	if j.assess == nil || run.Interrupted {
		return
	}
	opts := j.assess.opts
	opts.ID, opts.Now = run.RunID, run.FinishedAt
	a := assess.Assess([]*results.Run{run}, opts)
	if j.cmp != nil {
		a.Compare(j.cmp.base.RunID, j.cmp.base.Assessment)
	}
	j.assess.assessment = a
	run.Assessment = a.Summary()
}

// writeAssessmentOutputs writes assessment.json, .svg, .png and .md into
// the output folder, which the run holds locked.
func (j *job) writeAssessmentOutputs() error {
	if j.assess == nil || j.assess.assessment == nil {
		return nil
	}
	files, err := report.AssessmentFiles(j.assess.assessment, "all", j.c.Version)
	if err != nil {
		return err
	}
	return writeOutputFiles(j.out, files)
}

// WarnSuiteDomains warns, at the task's line, of every task of the loaded
// suites whose domain the assessment's taxonomy does not have.
func (c *Env) WarnSuiteDomains(loaded []*suites.Suite, taxonomy []string) {
	for _, s := range loaded {
		for _, t := range s.Tasks {
			if t.Metadata == nil {
				continue
			}
			if w := assess.DomainWarning(t.ID, t.Metadata.Domain, taxonomy); w != "" {
				pos := t.Pos
				pos.File = c.outputPath(pos.File)
				c.Say(c.Stderr, "%s: warning: %s\n", pos, w)
			}
		}
	}
}

// sayAssessment prints the assessment in one line with where its badge
// is, and its notices (provisional axes, a flagged movement), before the
// run's verdict; nothing with --quiet.
func (j *job) sayAssessment() {
	if j.assess == nil || j.assess.assessment == nil || j.flags.Quiet {
		return
	}
	a := j.assess.assessment
	j.c.Say(j.c.Stdout, "%s (badge %s)\n", AssessmentLine(a), filepath.Join(j.out, report.AssessmentSVGFile))
	for _, n := range report.AssessmentNotices(a) {
		j.c.Say(j.c.Stdout, "  %s\n", n)
	}
}
