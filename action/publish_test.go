package action

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/results"
)

func TestPublish(t *testing.T) {
	type testCase struct {
		name      string
		event     string // event payload; "" for a push
		inputs    map[string]string
		passed    bool
		setup     func(f *fakeGitHub)
		publishes int // how often Publish runs, on the same PR

		wantComment  string
		wantWarnings int
		wantWarning  string
		wantErr      string
		wantAPICalls bool
	}
	const prEvent = `{"action":"synchronize","number":7,"pull_request":{"number":7,"base":{"ref":"main"}},"repository":{"name":"agent","owner":{"login":"acme"}}}`
	run := func(t *testing.T, tc testCase) {
		fastRetries(t)
		f := newFakeGitHub(t, "")
		f.token = "ghs_secret_token"
		if tc.setup != nil {
			tc.setup(f)
		}
		dir := t.TempDir()
		env := map[string]string{
			"GITHUB_ACTIONS":      "true",
			"GITHUB_API_URL":      f.apiURL(),
			"GITHUB_REPOSITORY":   "acme/agent",
			"GITHUB_WORKSPACE":    dir,
			"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
			"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
			"GITHUB_EVENT_NAME":   "push",
			"INPUT_GITHUB_TOKEN":  "ghs_secret_token",
			"JUDGE_API_KEY":       "sk-judge",
		}
		if tc.event != "" {
			env["GITHUB_EVENT_NAME"] = "pull_request"
			env["GITHUB_EVENT_PATH"] = filepath.Join(dir, "event.json")
			assert.NilError(t, os.WriteFile(env["GITHUB_EVENT_PATH"], []byte(tc.event), 0o644))
		}
		for k, v := range tc.inputs {
			env[k] = v
		}
		r := annotatedRun()
		r.Passed = tc.passed
		r.AggregateScore = 0.41666
		opts := PublishOptions{
			Run:           r,
			ResultsPath:   "evalgate-out/results.json",
			ScorecardPath: "evalgate-out/scorecard.md",
			JUnitPath:     "evalgate-out/junit.xml",
			Scorecard:     testScorecard,
			SecretEnv:     []string{"JUDGE_API_KEY"},
			Getenv:        envOf(env),
		}
		n := max(tc.publishes, 1)
		var (
			pub    Published
			err    error
			stdout bytes.Buffer
		)
		for range n {
			stdout.Reset()
			opts.Stdout = &stdout
			pub, err = Publish(context.Background(), opts)
		}
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
			return
		}
		assert.NilError(t, err)
		log := stdout.String()

		// Secrets are masked before anything else is written.
		masks := "::add-mask::sk-judge\n"
		if env["INPUT_GITHUB_TOKEN"] != "" {
			masks = "::add-mask::" + env["INPUT_GITHUB_TOKEN"] + "\n" + masks
		}
		assert.Assert(t, strings.HasPrefix(log, masks), log)
		// The worst tasks are annotated, as errors when the build fails and
		// as warnings when it passes, leaving room for the comment's
		// warning; a notice counts the rest.
		level, room := LevelError, MaxAnnotations
		if tc.passed {
			level, room = LevelWarning, MaxAnnotations-tc.wantWarnings
		}
		assert.Equal(t, pub.AnnotationLevel, level)
		assert.Equal(t, pub.Annotations, room)
		assert.Equal(t, strings.Count("\n"+log, "\n::"+level+" file="), room)
		notice := fmt.Sprintf("::notice title=evalgate::%d more failing tasks are not annotated: evalgate-out/junit.xml and evalgate-out/results.json list every failing task", 13-room)
		assert.Assert(t, strings.Contains(log, notice), log)
		// The job summary holds the scorecard every time.
		summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
		assert.NilError(t, err)
		assert.Equal(t, string(summary), strings.Repeat(testScorecard, n))

		assert.Equal(t, pub.Comment, tc.wantComment)
		assert.Equal(t, len(pub.Warnings), tc.wantWarnings)
		assert.Equal(t, strings.Count(log, "::warning::"), tc.wantWarnings)
		if tc.wantWarning != "" {
			assert.Assert(t, strings.Contains(pub.Warnings[0], tc.wantWarning), pub.Warnings[0])
		}
		calls := 0
		for _, ep := range []string{epListComments, epCreateComment, epEditComment} {
			calls += f.count(ep)
		}
		assert.Equal(t, calls > 0, tc.wantAPICalls, "API calls: %d", calls)

		outs := parseOutputFile(t, env["GITHUB_OUTPUT"])
		want := map[string]string{
			"passed":          map[bool]string{true: "true", false: "false"}[tc.passed],
			"aggregate-score": "0.4167",
			"results":         "evalgate-out/results.json",
			"scorecard":       "evalgate-out/scorecard.md",
			"comment-url":     pub.CommentURL,
		}
		assert.DeepEqual(t, outs, want)
		if tc.wantComment != "" {
			assert.Assert(t, strings.HasPrefix(pub.CommentURL, "https://github.example/"), pub.CommentURL)
		}
	}
	for _, tc := range []testCase{
		{name: "creates the comment", event: prEvent, wantComment: CommentCreated, wantAPICalls: true},
		{name: "a second run finds it unchanged", event: prEvent, publishes: 2, wantComment: CommentUnchanged, wantAPICalls: true},
		{
			name: "read-only token warns once and keeps the verdict", event: prEvent,
			setup: func(f *fakeGitHub) {
				f.failNext(epCreateComment, fakeFailure{status: http.StatusForbidden, message: "Resource not accessible by integration"})
			},
			wantWarnings: 1, wantWarning: "could not comment on pull request #7: the token may not write to it (HTTP 403", wantAPICalls: true,
		},
		{
			name: "404 is a permission problem too", event: prEvent,
			setup: func(f *fakeGitHub) {
				f.failNext(epListComments, fakeFailure{status: http.StatusNotFound})
			},
			wantWarnings: 1, wantWarning: "(HTTP 404", wantAPICalls: true,
		},
		{
			name: "API down warns", event: prEvent,
			setup: func(f *fakeGitHub) {
				for range maxAttempts {
					f.failNext(epListComments, fakeFailure{status: http.StatusInternalServerError})
				}
			},
			wantWarnings: 1, wantWarning: "the verdict stands", wantAPICalls: true,
		},
		{name: "comment never", event: prEvent, inputs: map[string]string{"INPUT_COMMENT": "never"}},
		{name: "on-failure on a passing run creates nothing", event: prEvent, passed: true,
			inputs: map[string]string{"INPUT_COMMENT": "on-failure"}, wantAPICalls: true},
		{name: "on-failure on a failing run comments", event: prEvent,
			inputs: map[string]string{"INPUT_COMMENT": "On-Failure"}, wantComment: CommentCreated, wantAPICalls: true},
		{name: "not a pull request", passed: true},
		{name: "no token", event: prEvent, inputs: map[string]string{"INPUT_GITHUB_TOKEN": ""},
			wantWarnings: 1, wantWarning: "no github-token"},
		{name: "a passing run's warnings leave room for the comment's", event: prEvent, passed: true,
			inputs: map[string]string{"INPUT_GITHUB_TOKEN": ""}, wantWarnings: 1, wantWarning: "no github-token"},
		{name: "bad comment mode", event: prEvent, inputs: map[string]string{"INPUT_COMMENT": "sometimes"},
			wantErr: `could not use input comment "sometimes"`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// The notice under the annotations names only places that list every
// failing task.
func TestNotAnnotated(t *testing.T) {
	type testCase struct {
		name                     string
		n                        int
		opts                     PublishOptions
		summary, summaryComplete bool
		want                     string
	}
	paths := PublishOptions{ResultsPath: "out/results.json", ScorecardPath: "out/scorecard.md", JUnitPath: "out/junit.xml"}
	with := func(complete bool) PublishOptions {
		o := paths
		o.ScorecardComplete = complete
		return o
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, notAnnotated(tc.n, tc.opts, tc.summary, tc.summaryComplete), tc.want)
	}
	for _, tc := range []testCase{
		{name: "the job summary lists them all", n: 12, opts: with(true), summary: true, summaryComplete: true,
			want: "12 more failing tasks are not annotated: the job summary, out/junit.xml and out/results.json list every failing task"},
		{name: "the scorecard ran out of room", n: 12, opts: with(false), summary: true,
			want: "12 more failing tasks are not annotated: out/junit.xml and out/results.json list every failing task (the job summary has room for only some)"},
		{name: "the job summary was cut, scorecard.md was not", n: 1, opts: with(true), summary: true,
			want: "1 more failing task is not annotated: out/scorecard.md, out/junit.xml and out/results.json list every failing task (the job summary has room for only some)"},
		{name: "no job summary", n: 2, opts: with(false),
			want: "2 more failing tasks are not annotated: out/junit.xml and out/results.json list every failing task"},
		{name: "results.json alone", n: 2, opts: PublishOptions{ResultsPath: "r.json"},
			want: "2 more failing tasks are not annotated: r.json lists every failing task"},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestPublishNoResults(t *testing.T) {
	_, err := Publish(context.Background(), PublishOptions{Getenv: envOf(nil), Stdout: &bytes.Buffer{}})
	assert.ErrorContains(t, err, "could not publish: no results")
}

func TestPullRequestNumber(t *testing.T) {
	type testCase struct {
		name, eventName, event string
		want                   int
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		path := filepath.Join(dir, "event.json")
		assert.NilError(t, os.WriteFile(path, []byte(tc.event), 0o644))
		env := map[string]string{"GITHUB_EVENT_PATH": path, "GITHUB_EVENT_NAME": tc.eventName}
		var sink bytes.Buffer
		gh, err := newAction(envOf(env), &sink).Context()
		assert.NilError(t, err)
		assert.Equal(t, pullRequestNumber(gh), tc.want)
	}
	for _, tc := range []testCase{
		{name: "pull_request", eventName: "pull_request", event: `{"number":3,"pull_request":{"number":3}}`, want: 3},
		{name: "pull_request_target", eventName: "pull_request_target", event: `{"number":4}`, want: 4},
		{name: "push", eventName: "push", event: `{"ref":"refs/heads/main","number":9}`, want: 0},
		{name: "issue_comment on a PR has no pull_request number", eventName: "issue_comment", event: `{"issue":{"number":5}}`, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestBaseRef(t *testing.T) {
	type testCase struct {
		name  string
		env   map[string]string
		event string
		want  string
	}
	run := func(t *testing.T, tc testCase) {
		path := filepath.Join(t.TempDir(), "event.json")
		assert.NilError(t, os.WriteFile(path, []byte(tc.event), 0o644))
		env := map[string]string{"GITHUB_EVENT_PATH": path}
		for k, v := range tc.env {
			env[k] = v
		}
		gh, err := newAction(envOf(env), &bytes.Buffer{}).Context()
		assert.NilError(t, err)
		assert.Equal(t, baseRef(gh), tc.want)
	}
	for _, tc := range []testCase{
		{name: "pull request base", event: `{"pull_request":{"number":1,"base":{"ref":"release/2.x"}}}`,
			env: map[string]string{"GITHUB_BASE_REF": "ignored"}, want: "release/2.x"},
		{name: "base ref variable", event: `{}`, env: map[string]string{"GITHUB_BASE_REF": "develop"}, want: "develop"},
		{name: "branch push", event: `{"repository":{"default_branch":"main"}}`,
			env: map[string]string{"GITHUB_REF": "refs/heads/feature/x", "GITHUB_REF_NAME": "feature/x", "GITHUB_REF_TYPE": "branch"}, want: "feature/x"},
		{name: "tag push uses the default branch", event: `{"repository":{"default_branch":"trunk"}}`,
			env: map[string]string{"GITHUB_REF": "refs/tags/v1.0.0", "GITHUB_REF_NAME": "v1.0.0", "GITHUB_REF_TYPE": "tag"}, want: "trunk"},
		{name: "nothing", event: `{}`, want: ""},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// TestPublishTrustLevel: a run with a trust scorecard has the output
// trust-level; one without has none (TestPublish).
func TestPublishTrustLevel(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		"GITHUB_ACTIONS":    "true",
		"GITHUB_REPOSITORY": "acme/agent",
		"GITHUB_WORKSPACE":  dir,
		"GITHUB_OUTPUT":     filepath.Join(dir, "output"),
		"GITHUB_EVENT_NAME": "push",
		"INPUT_COMMENT":     "never",
	}
	r := annotatedRun()
	r.Trust = &results.Trust{Score: 75, Level: 3, LevelName: "Autonomous"}
	_, err := Publish(context.Background(), PublishOptions{Run: r, ResultsPath: "r.json", Getenv: envOf(env), Stdout: &bytes.Buffer{}})
	assert.NilError(t, err)
	assert.Equal(t, parseOutputFile(t, env["GITHUB_OUTPUT"])["trust-level"], "3")
}

// TestPublishShard: a shard of a sharded run publishes a line in the job
// summary and its outputs, and no comment or annotation: the merge job
// does that once for every shard's tasks.
func TestPublishShard(t *testing.T) {
	f := newFakeGitHub(t, "")
	dir := t.TempDir()
	event := filepath.Join(dir, "event.json")
	assert.NilError(t, os.WriteFile(event, []byte(`{"number":7,"pull_request":{"number":7}}`), 0o644))
	env := map[string]string{
		"GITHUB_ACTIONS":      "true",
		"GITHUB_API_URL":      f.apiURL(),
		"GITHUB_REPOSITORY":   "acme/agent",
		"GITHUB_WORKSPACE":    dir,
		"GITHUB_OUTPUT":       filepath.Join(dir, "output"),
		"GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary.md"),
		"GITHUB_EVENT_NAME":   "pull_request",
		"GITHUB_EVENT_PATH":   event,
		"INPUT_GITHUB_TOKEN":  "ghs_token",
	}
	r := annotatedRun()
	r.Passed = false
	r.Shard = &results.Shard{Index: 2, Count: 3, Balanced: true, PlannedMs: 61_000}
	r.TaskCount, r.PassedCount, r.ErroredCount = 5, 3, 1
	r.StartedAt = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	r.FinishedAt = r.StartedAt.Add(63_250 * time.Millisecond)
	var stdout bytes.Buffer
	_, err := Publish(context.Background(), PublishOptions{Run: r, ResultsPath: "shard-2/results.json", Scorecard: "### whole scorecard", Getenv: envOf(env), Stdout: &stdout})
	assert.NilError(t, err)
	summary, err := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
	assert.NilError(t, err)
	assert.Equal(t, string(summary), "evalgate shard 2 of 3: 3/5 tasks passed, 1 errored, ran in 1m3.3s, planned 1m1s. The merge job gates on every shard; this one's results are in `shard-2/results.json`.\n")
	assert.Check(t, !strings.Contains(stdout.String(), "::error") && !strings.Contains(stdout.String(), "::warning"), "annotations from a shard: %s", stdout.String())
	for _, ep := range []string{epListComments, epCreateComment, epEditComment} {
		assert.Equal(t, f.count(ep), 0, "%s from a shard", ep)
	}
	assert.Equal(t, parseOutputFile(t, env["GITHUB_OUTPUT"])["results"], "shard-2/results.json")
}
