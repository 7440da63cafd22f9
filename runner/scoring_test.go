package runner

import (
	"github.com/evalgate/evalgate/gates"
	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/results"
)

// scoring is the pipeline's Scorer in the runner's tests: the embedded
// judges.Scorer scores each trial, package gates aggregates.
type scoring struct{ *judges.Scorer }

func (scoring) AggregateTask(t *results.Task)   { gates.AggregateTask(t) }
func (scoring) AggregateSuite(s *results.Suite) { gates.AggregateSuite(s) }

// scored is a Scorer with no judge, no detectors and no program checks.
func scored() Scorer { return scoring{&judges.Scorer{}} }
