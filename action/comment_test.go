package action

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

const testScorecard = "## evalgate: ✅ passed\n\n| suite | score |\n|---|---|\n| acme.support.evals.refunds | 0.92 |\n"

func TestMarker(t *testing.T) {
	type testCase struct {
		config, want string
	}
	run := func(t *testing.T, tc testCase) {
		assert.Equal(t, Marker(tc.config), tc.want)
	}
	for _, tc := range []testCase{
		{config: "", want: "<!-- evalgate:evalgate.yaml -->"},
		{config: "evalgate.yaml", want: "<!-- evalgate:evalgate.yaml -->"},
		{config: "./evals/../agents/support/evalgate.yaml", want: "<!-- evalgate:agents/support/evalgate.yaml -->"},
		{config: "x --> <script>\n", want: "<!-- evalgate:x_-_script_ -->"},
		{config: ".", want: "<!-- evalgate:evalgate.yaml -->"},
	} {
		t.Run(tc.config, func(t *testing.T) { run(t, tc) })
	}
}

func TestCommentBody(t *testing.T) {
	type testCase struct {
		name      string
		scorecard string
	}
	run := func(t *testing.T, tc testCase) {
		c := &Commenter{Marker: Marker("evalgate.yaml")}
		body := c.Body(tc.scorecard)
		assert.Assert(t, len(body) <= MaxCommentBody)
		assert.Assert(t, strings.HasPrefix(body, c.Marker+"\n"))
		if len(tc.scorecard) < 1000 {
			golden.Assert(t, body, "comment-"+tc.name+".golden.md")
			return
		}
		assert.Assert(t, strings.HasSuffix(body, commentNote))
	}
	for _, tc := range []testCase{
		{name: "scorecard", scorecard: testScorecard},
		{name: "trailing-newlines", scorecard: "## evalgate\n\n\n"},
		{name: "huge", scorecard: strings.Repeat("| task | ❌ | 0.00 |\n", 10000)},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestCommenterUpsert(t *testing.T) {
	type testCase struct {
		name   string
		prefix string // API path prefix: "" for github.com, "/api/v3" for GHES
		setup  func(f *fakeGitHub)
		create bool

		wantAction string
		wantErr    string
		wantCalls  map[string]int
		// wantOurs is how many comments by the token's account carry our
		// marker afterwards.
		wantOurs int
		// wantOthers are the bodies of others' comments afterwards, by
		// author: others' comments are never edited.
		wantOthers map[string]string
	}
	marker := Marker("evalgate.yaml")
	body := marker + "\n" + testScorecard
	run := func(t *testing.T, tc testCase) {
		fastRetries(t)
		f := newFakeGitHub(t, tc.prefix)
		f.token = "ghs_test"
		if tc.setup != nil {
			tc.setup(f)
		}
		client, err := NewClient(nil, f.apiURL(), "ghs_test")
		assert.NilError(t, err)
		c := &Commenter{Client: client, Owner: "acme", Repo: "agent", PR: 7, Marker: marker}
		got, err := c.Upsert(context.Background(), testScorecard, tc.create)
		if tc.wantErr != "" {
			assert.ErrorContains(t, err, tc.wantErr)
		} else {
			assert.NilError(t, err)
			assert.Equal(t, got.Action, tc.wantAction)
			if got.Action != "" {
				assert.Assert(t, strings.HasPrefix(got.URL, "https://github.example/o/r/pull/7#issuecomment-"), got.URL)
			}
		}
		for ep, n := range tc.wantCalls {
			assert.Equal(t, f.count(ep), n, "calls of %s", ep)
		}
		f.mu.Lock()
		self := f.self()
		f.mu.Unlock()
		ours := 0
		for _, cm := range f.snapshot() {
			if want, ok := tc.wantOthers[cm.User.Login]; ok {
				assert.Equal(t, cm.Body, want, "the comment by %s was edited", cm.User.Login)
			}
			if strings.EqualFold(cm.User.Login, self) && strings.HasPrefix(cm.Body, marker+"\n") {
				ours++
				if tc.wantErr == "" && tc.wantAction != "" {
					assert.Equal(t, cm.Body, body)
				}
			}
		}
		assert.Equal(t, ours, tc.wantOurs)
	}
	othersWithSimilarText := func(f *fakeGitHub) {
		f.addComment("alice", "LGTM, but see the evalgate comment below")
		f.addComment("bob", "> "+marker+"\n> quoting the old scorecard")
		f.addComment("carol", "<!-- evalgate:other/evalgate.yaml -->\nanother job's scorecard")
	}
	for _, tc := range []testCase{
		{
			name: "create when none", create: true, setup: othersWithSimilarText,
			wantAction: CommentCreated, wantOurs: 1,
			wantCalls: map[string]int{epListComments: 2, epCreateComment: 1, epEditComment: 0},
		},
		{
			name: "update ours on page two", create: true,
			setup: func(f *fakeGitHub) {
				othersWithSimilarText(f)
				f.addComment("github-actions[bot]", marker+"\nold scorecard")
				f.addComment("dave", "thanks")
			},
			wantAction: CommentUpdated, wantOurs: 1,
			wantCalls: map[string]int{epListComments: 2, epCreateComment: 0, epEditComment: 1},
		},
		{
			name: "unchanged", create: true,
			setup: func(f *fakeGitHub) {
				f.addComment("github-actions[bot]", body)
			},
			wantAction: CommentUnchanged, wantOurs: 1,
			wantCalls: map[string]int{epListComments: 1, epCreateComment: 0, epEditComment: 0},
		},
		{
			name: "on-failure mode leaves a missing comment missing", create: false, setup: othersWithSimilarText,
			wantAction: "", wantOurs: 0,
			wantCalls: map[string]int{epListComments: 2, epCreateComment: 0},
		},
		{
			name: "on-failure mode still updates an existing comment", create: false,
			setup: func(f *fakeGitHub) {
				f.addComment("github-actions[bot]", marker+"\nold")
			},
			wantAction: CommentUpdated, wantOurs: 1,
			wantCalls: map[string]int{epEditComment: 1},
		},
		{
			name: "403 on create", create: true,
			setup: func(f *fakeGitHub) {
				f.failNext(epCreateComment, fakeFailure{status: http.StatusForbidden, message: "Resource not accessible by integration"})
			},
			wantErr: "403 Resource not accessible by integration", wantOurs: 0,
			wantCalls: map[string]int{epCreateComment: 1},
		},
		{
			name: "5xx then success", create: true,
			setup: func(f *fakeGitHub) {
				f.failNext(epListComments, fakeFailure{status: http.StatusBadGateway})
				f.failNext(epCreateComment, fakeFailure{status: http.StatusServiceUnavailable}, fakeFailure{status: http.StatusInternalServerError})
			},
			wantAction: CommentCreated, wantOurs: 1,
			wantCalls: map[string]int{epListComments: 2, epCreateComment: 3},
		},
		{
			name: "secondary rate limit then success", create: true,
			setup: func(f *fakeGitHub) {
				f.failNext(epListComments, fakeFailure{status: http.StatusForbidden, message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."})
				f.failNext(epCreateComment, fakeFailure{status: http.StatusForbidden, retryAfter: "1", message: "slow down"},
					fakeFailure{status: http.StatusTooManyRequests})
			},
			wantAction: CommentCreated, wantOurs: 1,
			wantCalls: map[string]int{epListComments: 2, epCreateComment: 3},
		},
		{
			name: "5xx every time gives up", create: true,
			setup: func(f *fakeGitHub) {
				for range maxAttempts {
					f.failNext(epListComments, fakeFailure{status: http.StatusInternalServerError})
				}
			},
			wantErr:   "could not list the comments of pull request #7",
			wantCalls: map[string]int{epListComments: maxAttempts, epCreateComment: 0},
		},
		{
			name: "another user's comment with the marker is left alone", create: true,
			setup: func(f *fakeGitHub) {
				f.addComment("mallory", marker+"\nplanted by mallory")
				f.addComment("evil[bot]", marker+"\nplanted by a bot")
			},
			wantAction: CommentCreated, wantOurs: 1,
			wantOthers: map[string]string{"mallory": marker + "\nplanted by mallory", "evil[bot]": marker + "\nplanted by a bot"},
			wantCalls:  map[string]int{epUser: 1, epEditComment: 0, epCreateComment: 1},
		},
		{
			name: "another user's comment is left alone on a passing run", create: false,
			setup: func(f *fakeGitHub) {
				f.addComment("mallory", marker+"\nplanted")
			},
			wantAction: "", wantOurs: 0,
			wantOthers: map[string]string{"mallory": marker + "\nplanted"},
			wantCalls:  map[string]int{epEditComment: 0, epCreateComment: 0},
		},
		{
			name: "ours after another user's", create: true,
			setup: func(f *fakeGitHub) {
				f.addComment("mallory", marker+"\nplanted")
				f.addComment("github-actions[bot]", marker+"\nold")
			},
			wantAction: CommentUpdated, wantOurs: 1,
			wantOthers: map[string]string{"mallory": marker + "\nplanted"},
			wantCalls:  map[string]int{epUser: 1, epEditComment: 1, epCreateComment: 0},
		},
		{
			name: "a user's token edits its own comment, not the Actions bot's", create: true,
			setup: func(f *fakeGitHub) {
				f.login = "acme-ci"
				f.addComment("github-actions[bot]", marker+"\nby a workflow token")
				f.addComment("ACME-CI", marker+"\nold")
			},
			wantAction: CommentUpdated, wantOurs: 1,
			wantOthers: map[string]string{"github-actions[bot]": marker + "\nby a workflow token"},
			wantCalls:  map[string]int{epUser: 1, epEditComment: 1, epCreateComment: 0},
		},
		{
			// An App's installation token cannot GET /user: its bot login
			// comes from GraphQL, so the next run updates its comment
			// instead of adding one each time.
			name: "a GitHub App's token edits its own comment", create: true,
			setup: func(f *fakeGitHub) {
				f.app = "evalgate-ci[bot]"
				f.addComment("mallory", marker+"\nplanted")
				f.addComment("evalgate-ci[bot]", marker+"\nold")
			},
			wantAction: CommentUpdated, wantOurs: 1,
			wantOthers: map[string]string{"mallory": marker + "\nplanted"},
			wantCalls:  map[string]int{epUser: 1, epGraphQL: 1, epEditComment: 1, epCreateComment: 0},
		},
		{
			name: "no comment with the marker: the account is not asked", create: true, setup: othersWithSimilarText,
			wantAction: CommentCreated, wantOurs: 1,
			wantCalls: map[string]int{epUser: 0},
		},
		{
			name: "the account cannot be told: nothing is edited", create: true,
			setup: func(f *fakeGitHub) {
				f.addComment("mallory", marker+"\nplanted")
				for range maxAttempts {
					f.failNext(epUser, fakeFailure{status: http.StatusBadGateway})
				}
			},
			wantErr:    "could not tell which account the token belongs to, so no comment was edited",
			wantOthers: map[string]string{"mallory": marker + "\nplanted"},
			wantCalls:  map[string]int{epUser: maxAttempts, epEditComment: 0, epCreateComment: 0},
		},
		{
			name: "enterprise base URL", prefix: "/api/v3", create: true,
			setup: func(f *fakeGitHub) {
				f.addComment("github-actions[bot]", marker+"\nold")
			},
			wantAction: CommentUpdated, wantOurs: 1,
			wantCalls: map[string]int{epListComments: 1, epEditComment: 1},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestNewClientRejectsBadURL(t *testing.T) {
	for _, u := range []string{"ftp://example.com", "://nope", "example.com"} {
		_, err := NewClient(nil, u, "")
		assert.ErrorContains(t, err, "could not use GitHub API URL", u)
	}
}
