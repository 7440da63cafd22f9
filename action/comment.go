package action

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/google/go-github/v60/github"
)

// What Upsert did with the comment.
const (
	CommentCreated   = "created"
	CommentUpdated   = "updated"
	CommentUnchanged = "unchanged"
)

// MaxCommentBody is the longest pull request comment evalgate posts; GitHub
// refuses bodies over 65536 characters.
const MaxCommentBody = 65000

// commentNote ends a comment whose scorecard was cut to fit.
const commentNote = "\n\n---\n_evalgate: the scorecard was truncated to fit a pull request comment; the job summary has all of it._\n"

// markerKey keeps the comment key to characters that cannot end an HTML
// comment or start a new line.
var (
	markerKey    = regexp.MustCompile(`[^A-Za-z0-9._/-]+`)
	markerDashes = regexp.MustCompile(`-{2,}`)
)

// Marker returns the hidden first line that identifies evalgate's comment
// for one config, so two jobs with different configs keep separate sticky
// comments: `<!-- evalgate:<config path> -->`. An empty path keys the
// default config.
func Marker(configPath string) string {
	key := "evalgate.yaml"
	if configPath != "" {
		key = path.Clean(filepath.ToSlash(configPath))
	}
	key = markerDashes.ReplaceAllString(markerKey.ReplaceAllString(key, "_"), "-")
	if key == "" || key == "." {
		key = "evalgate.yaml"
	}
	return "<!-- evalgate:" + key + " -->"
}

// ActionsBot is the login GitHub gives the comments written with a
// workflow's GITHUB_TOKEN.
const ActionsBot = "github-actions[bot]"

// Commenter keeps one sticky comment on a pull request: the comment that
// starts with Marker and was written by the token's own account.
type Commenter struct {
	Client      *github.Client
	Owner, Repo string
	PR          int
	Marker      string // from Marker
	// Self is the login of the token's account; when "", it is asked of
	// the API (GET /user) the first time a comment with the marker is
	// found. A token GET /user refuses (401 or 403) is an installation
	// token: the workflow's GITHUB_TOKEN, whose comments are ActionsBot's,
	// or a GitHub App's, whose bot login GraphQL's viewer gives; its
	// comments are either's.
	Self string
	// bot is the GraphQL viewer's login for an installation token.
	bot string
}

// Body wraps the scorecard Markdown into the comment body: the marker on the
// first line, then the scorecard, cut at a line end to fit MaxCommentBody.
func (c *Commenter) Body(scorecard string) string {
	scorecard = strings.TrimRight(scorecard, "\n") + "\n"
	room := MaxCommentBody - len(c.Marker) - 1
	if len(scorecard) > room {
		scorecard = truncateMarkdown(scorecard, room-len(commentNote)) + commentNote
	}
	return c.Marker + "\n" + scorecard
}

// Comment is the sticky comment after Upsert.
type Comment struct {
	ID     int64
	URL    string // html_url
	Action string // CommentCreated, CommentUpdated or CommentUnchanged
}

// Upsert finds the pull request's comment that starts with the marker,
// looking through every page of comments, and updates it when its body
// differs from the scorecard's, or creates it when there is none. When
// createIfMissing is false a missing comment is left missing (comment:
// on-failure on a passing run) and the returned Comment is empty.
func (c *Commenter) Upsert(ctx context.Context, scorecard string, createIfMissing bool) (Comment, error) {
	body := c.Body(scorecard)
	existing, err := c.find(ctx)
	if err != nil {
		return Comment{}, err
	}
	if existing != nil {
		if existing.GetBody() == body {
			return Comment{ID: existing.GetID(), URL: existing.GetHTMLURL(), Action: CommentUnchanged}, nil
		}
		edited, _, err := c.Client.Issues.EditComment(ctx, c.Owner, c.Repo, existing.GetID(), &github.IssueComment{Body: &body})
		if err != nil {
			return Comment{}, fmt.Errorf("could not update comment %d on pull request #%d: %w", existing.GetID(), c.PR, err)
		}
		return Comment{ID: edited.GetID(), URL: edited.GetHTMLURL(), Action: CommentUpdated}, nil
	}
	if !createIfMissing {
		return Comment{}, nil
	}
	created, _, err := c.Client.Issues.CreateComment(ctx, c.Owner, c.Repo, c.PR, &github.IssueComment{Body: &body})
	if err != nil {
		return Comment{}, fmt.Errorf("could not comment on pull request #%d: %w", c.PR, err)
	}
	return Comment{ID: created.GetID(), URL: created.GetHTMLURL(), Action: CommentCreated}, nil
}

// find returns the first comment whose first line is the marker and whose
// author is the token's account. Comments that only quote or mention the
// marker elsewhere are not ours, and neither is a comment someone else
// wrote with the marker: editing it would put evalgate's words under their
// name, or theirs under evalgate's.
func (c *Commenter) find(ctx context.Context) (*github.IssueComment, error) {
	opts := &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}}
	for {
		page, resp, err := c.Client.Issues.ListComments(ctx, c.Owner, c.Repo, c.PR, opts)
		if err != nil {
			return nil, fmt.Errorf("could not list the comments of pull request #%d: %w", c.PR, err)
		}
		for _, cm := range page {
			b := cm.GetBody()
			if b != c.Marker && !strings.HasPrefix(b, c.Marker+"\n") && !strings.HasPrefix(b, c.Marker+"\r\n") {
				continue
			}
			self, err := c.self(ctx)
			if err != nil {
				return nil, err
			}
			// GitHub logins are case-insensitive.
			if login := cm.GetUser().GetLogin(); strings.EqualFold(login, self) || c.bot != "" && strings.EqualFold(login, c.bot) {
				return cm, nil
			}
		}
		if resp.NextPage == 0 {
			return nil, nil
		}
		opts.Page = resp.NextPage
	}
}

// self returns the login of the token's account (Self), asking the API
// once.
func (c *Commenter) self(ctx context.Context) (string, error) {
	if c.Self != "" {
		return c.Self, nil
	}
	u, _, err := c.Client.Users.Get(ctx, "")
	switch s := statusOf(err); {
	case err == nil && u.GetLogin() != "":
		c.Self = u.GetLogin()
	case s == http.StatusUnauthorized || s == http.StatusForbidden:
		c.Self = ActionsBot
		c.bot = c.viewer(ctx)
	case err == nil:
		return "", fmt.Errorf("could not tell which account the token belongs to: GET /user gave no login")
	default:
		return "", fmt.Errorf("could not tell which account the token belongs to, so no comment was edited: %w", err)
	}
	return c.Self, nil
}

// viewer asks GraphQL for the login of an installation token's account
// ("my-app[bot]" for a GitHub App's); "" when it does not say. GitHub's
// REST API names App bots with the "[bot]" suffix, so one is added where
// GraphQL leaves it out.
func (c *Commenter) viewer(ctx context.Context) string {
	path := "graphql"
	if strings.HasSuffix(c.Client.BaseURL.Path, "/api/v3/") {
		path = "../graphql" // GitHub Enterprise Server: /api/graphql
	}
	req, err := c.Client.NewRequest(http.MethodPost, path, map[string]string{"query": "query { viewer { login } }"})
	if err != nil {
		return ""
	}
	var out struct {
		Data struct {
			Viewer struct {
				Login string `json:"login"`
			} `json:"viewer"`
		} `json:"data"`
	}
	if _, err := c.Client.Do(ctx, req, &out); err != nil {
		return ""
	}
	login := out.Data.Viewer.Login
	if login != "" && !strings.HasSuffix(login, "[bot]") {
		login += "[bot]"
	}
	return login
}
