package pipeline

import (
	"fmt"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/runner"
	"github.com/evalgate/evalgate/suites"
)

// checkKeys reports, before anything runs, an apiKeyEnv of the judge or of
// the user simulator that names a variable that is not set, when a
// planned task needs that model: each of its calls would be refused, and
// the run would end only after every agent ran, with the judge
// "unreachable". It is exit 2, at the setting's place in the file.
func (c *Env) checkKeys(cfg *config.Config, plan []runner.Planned) error {
	var errs config.Errors
	check := func(o *config.OpenAI, where, what string, needs func(*suites.Suite, *suites.TaskRef) (bool, error)) error {
		if o == nil || o.APIKeyEnv == "" || c.Getenv(o.APIKeyEnv) != "" {
			return nil
		}
		n := 0
		for _, p := range plan {
			for _, t := range p.Tasks {
				need, err := needs(p.Suite, t)
				if err != nil {
					return err
				}
				if need {
					n++
				}
			}
		}
		if n == 0 {
			return nil
		}
		errs = append(errs, &config.Error{Pos: o.APIKeyEnvAt, Message: fmt.Sprintf(
			"%s.apiKeyEnv: the environment variable %s is not set, and %d %s %s %s; set it (in GitHub Actions from a secret, "+
				"env: {%s: ${{ secrets.%s }}}), or leave %s out with --task or --tag",
			where, o.APIKeyEnv, n, words.Plural(n, "task", "tasks"), words.Plural(n, "needs", "need"), what, o.APIKeyEnv, o.APIKeyEnv, words.Plural(n, "it", "them"))})
		return nil
	}
	if err := check(cfg.Judge.OpenAI, "judge.openai", "the judge", needsJudge); err != nil {
		return invalid(err)
	}
	if err := check(cfg.User.Simulator, "user.simulator", "the simulated user", needsSimulator); err != nil {
		return invalid(err)
	}
	if len(errs) > 0 {
		return invalid(errs)
	}
	return nil
}

// needsJudge reports whether a task asks the judge: a rubric criterion
// that no check decides, or a refusal to detect. A compact task of a
// large suite counts when it is a rubric task, without decoding it again.
func needsJudge(s *suites.Suite, t *suites.TaskRef) (bool, error) {
	if t.Adversarial != nil && t.Adversarial.ExpectRefusal {
		return true, nil
	}
	if t.Kind != suites.KindRubric {
		return false, nil
	}
	if t.Compact() {
		return true, nil
	}
	full, err := s.Full(t)
	if err != nil {
		return false, err
	}
	for _, cr := range full.Expected.Rubric {
		if cr.Assert == nil && (cr.Scale == nil || !cr.Scale.Deterministic()) {
			return true, nil
		}
	}
	return false, nil
}

// needsSimulator reports whether a task is an open conversation, whose
// user the simulator plays.
func needsSimulator(s *suites.Suite, t *suites.TaskRef) (bool, error) {
	full, err := s.Full(t)
	if err != nil {
		return false, err
	}
	return full.User != nil, nil
}
