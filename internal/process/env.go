package process

import (
	"os"
	"slices"
	"strings"
)

// Credentials are the variables holding evalgate's own credentials (the
// Action's token and the judge cache's key): they never reach a child
// unless the project passes one through on purpose with agent.env, and
// the command layer redacts and masks their values.
var Credentials = []string{"GITHUB_TOKEN", "GH_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN", "EVALGATE_CACHE_KEY"}

// RunnerFiles are the variables naming the GitHub Actions file commands: a
// process that can append to them sets variables and outputs for every
// later step of the job and writes its summary. No child ever gets them,
// not even through agent.env (action.Guard watches the files themselves).
var RunnerFiles = []string{"GITHUB_ENV", "GITHUB_OUTPUT", "GITHUB_PATH", "GITHUB_STEP_SUMMARY", "GITHUB_STATE"}

// scrubbedPrefixes are prefixes of variables that never reach a child:
// ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN and the other
// credentials of the GitHub Actions runner.
var scrubbedPrefixes = []string{"ACTIONS_"}

// ScrubEnv builds the environment of an agent, or of any program evalgate
// runs for a project (an exec judge), from parent (usually os.Environ()).
//
// The policy: the agent under test inherits the parent's environment, so
// PATH, HOME, locale and the project's own settings work, minus every
// credential evalgate itself holds:
//
//   - GITHUB_TOKEN, GH_TOKEN, INPUT_GITHUB-TOKEN and INPUT_GITHUB_TOKEN (the
//     Action's token, which can write to the repository);
//   - EVALGATE_CACHE_KEY (the judge cache's secret: an agent holding it
//     could sign verdicts into the cache);
//   - every ACTIONS_* variable (ACTIONS_RUNTIME_TOKEN,
//     ACTIONS_ID_TOKEN_REQUEST_TOKEN, ...);
//   - every name in drop, which the caller fills with the judge's API key
//     variable, so an agent cannot grade itself with the judge's key.
//   - GITHUB_ENV, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_STEP_SUMMARY and
//     GITHUB_STATE, the runner's file commands, which extra cannot set
//     either.
//
// Names match case-insensitively. Then extra (agent.env) is added, replacing
// any variable of the same name. Its values are expanded with os.Expand
// against the unscrubbed parent, so `OPENAI_API_KEY: ${OPENAI_API_KEY}`
// passes a key through on purpose; a variable missing from the parent
// expands to "". The extra variables come last, sorted by name, so the
// result is deterministic.
//
// The runner's exec and plain drivers add EVALGATE_SUITE_ID,
// EVALGATE_TASK_ID and EVALGATE_TRIAL for each trial, the exec judge the
// first two.
func ScrubEnv(parent []string, drop []string, extra map[string]string) []string {
	lookup := make(map[string]string, len(parent))
	for _, kv := range parent {
		if k, v, ok := strings.Cut(kv, "="); ok {
			lookup[k] = v
		}
	}
	out := make([]string, 0, len(parent)+len(extra))
	for _, kv := range parent {
		name, _, _ := strings.Cut(kv, "=")
		if isScrubbed(name, drop) {
			continue
		}
		if _, replaced := extra[name]; replaced {
			continue
		}
		out = append(out, kv)
	}
	names := make([]string, 0, len(extra))
	for k := range extra {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if isRunnerFile(k) {
			continue
		}
		v := os.Expand(extra[k], func(name string) string { return lookup[name] })
		out = append(out, k+"="+v)
	}
	return out
}

func isRunnerFile(name string) bool {
	for _, f := range RunnerFiles {
		if strings.EqualFold(name, f) {
			return true
		}
	}
	return false
}

func isScrubbed(name string, drop []string) bool {
	if isRunnerFile(name) {
		return true
	}
	for _, s := range Credentials {
		if strings.EqualFold(name, s) {
			return true
		}
	}
	for _, p := range scrubbedPrefixes {
		if len(name) >= len(p) && strings.EqualFold(name[:len(p)], p) {
			return true
		}
	}
	for _, d := range drop {
		if d != "" && strings.EqualFold(name, d) {
			return true
		}
	}
	return false
}
