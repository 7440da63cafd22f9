package pipeline

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/internal/words"
	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// RubricJudge is the configured rubric judge of a run or a calibration.
type RubricJudge struct {
	Judge  judges.Identified // the judge itself
	Rubric judges.Rubric     // what callers use: the judge behind the cache, unless --no-cache
	cache  *judges.Cache     // nil with --no-cache
	// Unavailable is non-nil when every call of the judge failed to reach it.
	Unavailable func() error
}

// NewRubricJudge builds the judge of the config's judge block; nil when the
// config has none. timeout bounds one judge call (0: the judge's default).
func (c *Env) NewRubricJudge(cfg *config.Config, noCache bool, timeout time.Duration) (*RubricJudge, error) {
	jc := cfg.Judge
	var rj RubricJudge
	switch {
	case jc.OpenAI != nil:
		o := judges.NewOpenAI(judges.OpenAIOptions{
			BaseURL:     jc.OpenAI.BaseURL,
			Model:       jc.OpenAI.Model,
			APIKey:      apiKey(c, jc.OpenAI.APIKeyEnv),
			Samples:     jc.Samples,
			Concurrency: jc.Concurrency,
			Pricing:     jc.OpenAI.Pricing,
			Timeout:     timeout,
		})
		rj.Judge, rj.Unavailable = o, o.Unavailable
	case len(jc.Exec) > 0:
		e, err := judges.NewExec(judges.ExecOptions{
			Command: jc.Exec,
			Dir:     cfg.Path("."),
			Env:     process.ScrubEnv(os.Environ(), judgeKeys(cfg), nil),
			Samples: jc.Samples,
			Timeout: timeout,
		})
		if err != nil {
			return nil, err
		}
		rj.Judge, rj.Unavailable = e, e.Unavailable
	default:
		return nil, nil
	}
	rj.Rubric = rj.Judge
	if !noCache {
		// Next to evalgate.yaml, like the rest of the project's .evalgate/,
		// so the cache is the same from any working directory.
		rj.cache = &judges.Cache{Dir: cfg.Path(judges.DefaultCacheDir), Judge: rj.Judge, Key: c.cacheKey(cfg)}
		rj.Rubric = rj.cache
	}
	return &rj, nil
}

// CacheKeyEnv names the variable holding the secret the caches' entries
// (judge verdicts, simulated users' messages) are signed with
// (docs/security.md).
const CacheKeyEnv = "EVALGATE_CACHE_KEY"

// cacheKey is the secret of the judge cache: EVALGATE_CACHE_KEY, else the
// judge's API key; "" without either, and the cache then reads and writes
// nothing (internal/signedcache).
func (c *Env) cacheKey(cfg *config.Config) string {
	if k := c.Getenv(CacheKeyEnv); k != "" {
		return k
	}
	if cfg.Judge.OpenAI != nil {
		return apiKey(c, cfg.Judge.OpenAI.APIKeyEnv)
	}
	return ""
}

// simulatorCacheKey is the secret of the user simulator's cache:
// EVALGATE_CACHE_KEY, else the simulator's own API key, else the judge's;
// "" without any, and the cache then reads and writes nothing.
func (c *Env) simulatorCacheKey(cfg *config.Config) string {
	if k := c.Getenv(CacheKeyEnv); k != "" {
		return k
	}
	if us := cfg.User.Simulator; us != nil {
		if k := apiKey(c, us.APIKeyEnv); k != "" {
			return k
		}
	}
	return c.cacheKey(cfg)
}

// cacheRejected is how many judge cache entries failed their MAC.
func (rj *RubricJudge) cacheRejected() int {
	if rj == nil || rj.cache == nil {
		return 0
	}
	return rj.cache.Rejected()
}

// WarnCacheRejected says on stderr how many judge cache entries were
// ignored because their MAC did not verify, and what to do about it.
func (c *Env) WarnCacheRejected(rj *RubricJudge) {
	n := rj.cacheRejected()
	if n == 0 {
		return
	}
	c.Say(c.Stderr, "evalgate: warning: %d judge cache %s in %s failed %s check and %s ignored; the judge was asked again. "+
		"%s not written by evalgate under this run's key (%s, else the judge's API key): planted, written under another key, or by an older evalgate. "+
		"Keep .evalgate/cache/ out of the repository and set %s to a secret in CI\n",
		n, words.Plural(n, "entry", "entries"), filepath.ToSlash(rj.cache.Dir), words.Plural(n, "its", "their"), words.Plural(n, "was", "were"),
		words.Plural(n, "It was", "They were"), CacheKeyEnv, CacheKeyEnv)
}

func apiKey(c *Env, env string) string {
	if env == "" {
		return ""
	}
	return c.Getenv(env)
}

// configureRubric sets the rubric judge from the config's judge block. With
// no judge, a task with a judged criterion is an error "no judge configured".
func (j *job) configureRubric(scorer *judges.Scorer, timeout time.Duration) error {
	rj, err := j.c.NewRubricJudge(j.cfg, j.flags.NoCache, timeout)
	if err != nil {
		return invalid(err)
	}
	if rj != nil {
		j.judge = rj
		scorer.Rubric = rj.Rubric
	}
	return nil
}

// judgeUnavailable is the run error of a judge that could not be reached
// for any of its calls (exit 3); nil otherwise. A judge that failed only
// now and then leaves those tasks errors of kind judge.
func (j *job) judgeUnavailable() error {
	if j.judge == nil {
		return nil
	}
	return JudgeDown(j.cfg, j.judge.Unavailable())
}

// JudgeDown is the run error of a judge none of whose calls got an answer
// (exit 3): refused for its credentials, or unreachable; nil for nil.
func JudgeDown(cfg *config.Config, err error) error {
	switch {
	case err == nil:
		return nil
	case !errors.Is(err, judges.ErrRejected):
		return runError(fmt.Errorf("judge unreachable: %w", err))
	case cfg.Judge.OpenAI != nil && cfg.Judge.OpenAI.APIKeyEnv != "":
		return runError(fmt.Errorf("the judge rejected the credentials: %w; check the key in %s (judge.openai.apiKeyEnv)", err, cfg.Judge.OpenAI.APIKeyEnv))
	}
	return runError(fmt.Errorf("the judge rejected the credentials: %w; name the variable holding its key in judge.openai.apiKeyEnv", err))
}

// judgeInfo describes the run's judge for results.json: its id, and whether
// a calibration of this very judge (same model, prompt, samples, program)
// reached its bar.
func (j *job) judgeInfo() *results.JudgeInfo {
	if j.judge == nil {
		return nil
	}
	info := &results.JudgeInfo{ID: j.judge.Judge.ID(), CacheRejected: j.judge.cacheRejected()}
	j.c.WarnCacheRejected(j.judge)
	path := CalibrationFile(j.cfg)
	cal, err := judges.ReadCalibration(path)
	if err != nil {
		j.c.Say(j.c.Stderr, "evalgate: warning: %v; the judge counts as not calibrated\n", err)
		return info
	}
	if cal != nil && cal.Matches(j.judge.Judge.Identity()) {
		info.Calibrated = cal.Passed
		info.Agreement = cal.Rho
	}
	return info
}

// CalibrationFile is judge.calibration, else .evalgate/calibration.json next
// to the config.
func CalibrationFile(cfg *config.Config) string {
	if cfg.Judge.Calibration != "" {
		return cfg.Judge.Calibration
	}
	return cfg.Path(judges.DefaultCalibrationFile)
}

// CheckJudged reports, at each criterion, the rubric criteria that need a
// judge (those without an assert) in suites validated under a config file
// that configures none: `run` would make each of their tasks an error "no
// judge configured", so `validate` says so first (exit 2). Without a config
// file there is nothing to check, since only a config file configures a
// judge.
func (c *Env) CheckJudged(cfg *config.Config, all []*suites.Suite) error {
	if cfg.File == "" || cfg.Judge.OpenAI != nil || len(cfg.Judge.Exec) > 0 {
		return nil
	}
	var errs suites.Errors
	for _, s := range all {
		for _, t := range s.Tasks {
			if t.Kind != suites.KindRubric {
				continue
			}
			full, err := s.Full(t)
			if err != nil {
				return invalid(err)
			}
			for i, cr := range full.Expected.Rubric {
				if cr.Assert != nil || (cr.Scale != nil && cr.Scale.Deterministic()) {
					continue // decided by checks
				}
				pos := cr.Pos
				if t.Compact() {
					pos = t.Pos // a task of a large suite is decoded again without its file's positions
				}
				errs = append(errs, &suites.Error{
					Pos: pos,
					Message: fmt.Sprintf("task %q: rubric[%d] needs a judge: set judge.openai or judge.exec in %s, or give the criterion an assert",
						t.ID, i, filepath.ToSlash(cfg.File)),
					Kind: "judge",
				})
			}
		}
	}
	if len(errs) == 0 {
		return nil
	}
	c.Say(c.Stdout, "%v\n", errs)
	return invalid(fmt.Errorf("no judge configured in %s for %d rubric %s", filepath.ToSlash(cfg.File), len(errs), words.Plural(len(errs), "criterion", "criteria")))
}

// configureJudging sets the rubric judge and the adversarial detectors.
func (j *job) configureJudging(scorer *judges.Scorer, timeout time.Duration) error {
	if err := j.configureRubric(scorer, timeout); err != nil {
		return err
	}
	return j.configureDetectors(scorer)
}
