package process

import (
	"errors"
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

// errEnvNUL is a variable that cannot be passed to a program.
var errEnvNUL = errors.New("an environment variable contains a NUL byte")

// childEnv is env with extra added, in a slice of its own: callers share
// one environment between processes started at once. A variable named
// more than once keeps its last value, where that value stands, as
// os/exec's Cmd does; a variable holding a NUL is an error. Duplicates are
// looked for without a map when there are few variables, so that the
// usual environment, which has none, costs no allocation beyond its copy.
func childEnv(env []string, extra string) ([]string, error) {
	out := make([]string, 0, len(env)+1)
	out = append(append(out, env...), extra)
	const few = 64
	if len(out) > few {
		return dedupEnv(out)
	}
	var names [few]string
	for i, kv := range out {
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, errEnvNUL
		}
		names[i] = envName(kv)
		for _, seen := range names[:i] {
			if seen == names[i] {
				return dedupEnv(out)
			}
		}
	}
	return out, nil
}

// envName is the name of the variable kv; a name may begin with "=".
func envName(kv string) string {
	if i := strings.IndexByte(kv[min(1, len(kv)):], '='); i >= 0 {
		return kv[:i+min(1, len(kv))]
	}
	return kv
}

// dedupEnv keeps, of each variable of env, the last, where it stands, and
// drops empty entries.
func dedupEnv(env []string) ([]string, error) {
	last := make(map[string]int, len(env))
	for i, kv := range env {
		if strings.IndexByte(kv, 0) >= 0 {
			return nil, errEnvNUL
		}
		last[envName(kv)] = i
	}
	out := env[:0]
	for i, kv := range env {
		if kv != "" && last[envName(kv)] == i {
			out = append(out, kv)
		}
	}
	return out, nil
}
