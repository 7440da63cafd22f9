package cli

import (
	"errors"

	"github.com/evalgate/evalgate/runner"
)

// configureRubric sets the rubric judge from the config's judge block.
func (j *job) configureRubric(opts *runner.Options) error {
	if j.cfg.Judge.OpenAI != nil || len(j.cfg.Judge.Exec) > 0 {
		return invalid(errors.New("judge: rubric judges are not available in this build"))
	}
	return nil
}
