package judges

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/chat"
)

func TestMedian(t *testing.T) {
	testCases := []struct {
		name   string
		levels []int
		want   int
	}{
		{"one sample", []int{3}, 3},
		{"odd count", []int{4, 0, 3}, 3},
		{"even count takes the lower middle", []int{1, 3}, 1},
		{"tie between middles", []int{4, 2, 3, 1}, 2},
		{"tie between extremes", []int{0, 4, 4, 0}, 0},
		{"agreeing middles", []int{2, 2, 3, 1}, 2},
		{"negative levels", []int{-1, -2, 0}, -1},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]int(nil), tc.levels...)
			assert.Equal(t, Median(tc.levels), tc.want)
			assert.DeepEqual(t, tc.levels, before) // the samples are left alone
		})
	}
}

// scale04 is a 0-4 scale with descriptors.
func scale04() *RubricScale {
	s := &RubricScale{Min: 0, Max: 4}
	for l := range 5 {
		s.Levels = append(s.Levels, RubricLevel{Level: l, Descriptor: fmt.Sprintf("descriptor %d", l)})
	}
	return s
}

// gradedRequest is rubricRequest with a graded criterion "tools" (0-4)
// first and a binary one after it.
func gradedRequest() *RubricRequest {
	req := rubricRequest("Gives tool guidance.", "Is polite.")
	req.Criteria[0].Scale = scale04()
	return req
}

func TestParseVerdict(t *testing.T) {
	testCases := []struct {
		name    string
		text    string
		levels  []int
		met     []bool
		wantErr string
	}{
		{name: "levels and met", text: `{"criteria":[{"level":3,"reason":"r1"},{"met":true,"reason":"r2"}]}`,
			levels: []int{3, 0}, met: []bool{false, true}},
		{name: "the top is met", text: `{"criteria":[{"level":4,"met":null,"reason":"r1"},{"level":null,"met":false,"reason":"r2"}]}`,
			levels: []int{4, 0}, met: []bool{true, false}},
		{name: "in a fence", text: "```json\n{\"criteria\":[{\"level\":0},{\"met\":false}]}\n```", levels: []int{0, 0}, met: []bool{false, false}},
		{name: "above the scale", text: `{"criteria":[{"level":5},{"met":true}]}`,
			wantErr: "the judge's answer for criterion 1 has level 5, outside its scale 0..4"},
		{name: "below the scale", text: `{"criteria":[{"level":-1},{"met":true}]}`,
			wantErr: "the judge's answer for criterion 1 has level -1, outside its scale 0..4"},
		{name: "a fraction", text: `{"criteria":[{"level":2.5},{"met":true}]}`,
			wantErr: "the judge's answer for criterion 1 has level 2.5; expected a whole number from 0 to 4"},
		{name: "a string", text: `{"criteria":[{"level":"2"},{"met":true}]}`,
			wantErr: `the judge's answer for criterion 1 has level "2"; expected a whole number from 0 to 4`},
		{name: "met for a graded criterion", text: `{"criteria":[{"met":true},{"met":true}]}`,
			wantErr: `the judge's answer for criterion 1 has no "level"; expected a whole number from 0 to 4`},
		{name: "no met for a binary one", text: `{"criteria":[{"level":2},{"level":1}]}`,
			wantErr: `the judge's answer for criterion 2 has no "met"`},
		{name: "too few", text: `{"criteria":[{"level":2}]}`, wantErr: "the judge answered 1 criteria, want 2"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			v, err := parseVerdict([]byte(tc.text), gradedRequest().Criteria)
			if tc.wantErr != "" {
				assert.Error(t, err, tc.wantErr)
				return
			}
			assert.NilError(t, err)
			assert.DeepEqual(t, v.Levels, tc.levels)
			assert.DeepEqual(t, v.Met, tc.met)
		})
	}
}

// levelAnswer is a judge's answer: level for the graded criterion, met for
// the binary one.
func levelAnswer(level int, met bool) string {
	return fmt.Sprintf(`{"criteria":[{"level":%d,"met":null,"reason":"at %d"},{"level":null,"met":%v,"reason":"polite"}]}`, level, level, met)
}

// TestOpenAIGraded: the prompt lists every level's descriptor, the request
// asks for structured output, and the level comes back.
func TestOpenAIGraded(t *testing.T) {
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) {
		return http.StatusOK, completion(levelAnswer(3, true), 10, 5)
	})
	j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "judge-1"})
	v, err := j.Decide(context.Background(), gradedRequest())
	assert.NilError(t, err)
	assert.DeepEqual(t, v.Levels, []int{3, 0})
	assert.DeepEqual(t, v.Met, []bool{false, true})
	assert.DeepEqual(t, v.Reasons, []string{"at 3", "polite"})

	req := f.requests[0]
	user := *req.Messages[1].Content
	for _, want := range []string{
		"1. Gives tool guidance. (graded: one level from 0 to 4)\n   - level 0: descriptor 0\n",
		"   - level 4: descriptor 4\n2. Is polite. (met or not met)\n",
		"## Agent output\nOrder C-3 is in transit.",
	} {
		assert.Check(t, is.Contains(user, want))
	}
	assert.Check(t, is.Contains(*req.Messages[0].Content, "choose the lower"))
	assert.Equal(t, req.ResponseFormat.Type, "json_schema")
	assert.Assert(t, req.ResponseFormat.JSONSchema != nil)
	assert.Check(t, req.ResponseFormat.JSONSchema.Strict)
	assert.Check(t, json.Valid(req.ResponseFormat.JSONSchema.Schema))
	assert.Check(t, is.Contains(string(req.ResponseFormat.JSONSchema.Schema), `"minItems":2,"maxItems":2`))
}

// TestOpenAIGradedWithoutStructuredOutput: a server that refuses the
// schema (400) is asked again for a JSON object, and is not offered the
// schema again.
func TestOpenAIGradedWithoutStructuredOutput(t *testing.T) {
	f, url := newFakeModel(t, func(_ int, req *chat.Request) (int, string) {
		if req.ResponseFormat.Type == "json_schema" {
			return http.StatusBadRequest, `{"error":{"type":"invalid_request_error","code":"response_format_unsupported"}}`
		}
		return http.StatusOK, completion("Here it is: "+levelAnswer(1, false), 1, 1)
	})
	j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "judge-1"})
	for range 2 {
		v, err := j.Decide(context.Background(), gradedRequest())
		assert.NilError(t, err)
		assert.DeepEqual(t, v.Levels, []int{1, 0})
	}
	var formats []string
	for _, r := range f.requests {
		formats = append(formats, r.ResponseFormat.Type)
	}
	assert.DeepEqual(t, formats, []string{"json_schema", "json_object", "json_object"})
}

// TestOpenAIGradedOutOfRange: a level off the scale is a judge error,
// never clamped to the nearest level.
func TestOpenAIGradedOutOfRange(t *testing.T) {
	_, url := newFakeModel(t, func(int, *chat.Request) (int, string) {
		return http.StatusOK, completion(levelAnswer(7, true), 1, 1)
	})
	j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "judge-1"})
	_, err := j.Decide(context.Background(), gradedRequest())
	assert.Error(t, err, "the judge's answer for criterion 1 has level 7, outside its scale 0..4")
	assert.NilError(t, j.Unavailable()) // it answered: available, but wrong
}

// TestOpenAIGradedMedian: four samples answering 1, 3, 4, 2 grade 2 (the
// lower of the middle levels 2 and 3), with the reason of a sample that
// gave 2; the binary criterion is still a majority (2 of 4 is a tie, not
// met).
func TestOpenAIGradedMedian(t *testing.T) {
	levels := []int{1, 3, 4, 2}
	_, url := newFakeModel(t, func(call int, _ *chat.Request) (int, string) {
		return http.StatusOK, completion(levelAnswer(levels[call-1], call%2 == 0), 1, 1)
	})
	j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "judge-1", Samples: 4, Concurrency: 1})
	v, err := j.Decide(context.Background(), gradedRequest())
	assert.NilError(t, err)
	assert.DeepEqual(t, v.Levels, []int{2, 0})
	assert.DeepEqual(t, v.Met, []bool{false, false})
	assert.Equal(t, v.Reasons[0], "at 2")
	assert.Equal(t, v.Tokens.Input, int64(4))
}

// TestBinaryPromptUnchanged: a request with no graded criterion gets the
// prompt and format it always had, so cached verdicts and calibrations of
// binary rubrics stay valid.
func TestBinaryPromptUnchanged(t *testing.T) {
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) {
		return http.StatusOK, completion(verdicts(true), 1, 1)
	})
	j := NewOpenAI(OpenAIOptions{BaseURL: url, Model: "judge-1"})
	_, err := j.Decide(context.Background(), rubricRequest("Is polite."))
	assert.NilError(t, err)
	req := f.requests[0]
	assert.Equal(t, *req.Messages[0].Content, judgeSystemPrompt)
	assert.Equal(t, req.ResponseFormat.Type, "json_object")
	assert.Check(t, req.ResponseFormat.JSONSchema == nil)
	assert.Check(t, !strings.Contains(*req.Messages[1].Content, "graded"))
}

// TestCacheKeyIncludesScale: the same criterion on another scale, or with
// another descriptor, is another key; a binary criterion's key is as before.
func TestCacheKeyIncludesScale(t *testing.T) {
	binary := rubricRequest("Gives tool guidance.", "Is polite.")
	base := gradedRequest()
	wider := gradedRequest()
	wider.Criteria[0].Scale.Max = 5
	wider.Criteria[0].Scale.Levels = append(wider.Criteria[0].Scale.Levels, RubricLevel{Level: 5, Descriptor: "descriptor 5"})
	reworded := gradedRequest()
	reworded.Criteria[0].Scale.Levels[2].Descriptor = "something else"
	keys := map[string]string{}
	for name, req := range map[string]*RubricRequest{"binary": binary, "base": base, "wider": wider, "reworded": reworded} {
		k := CacheKey("judge", req)
		assert.Check(t, keys[k] == "", "%s has the key of %s", name, keys[k])
		keys[k] = name
	}
	assert.Equal(t, CacheKey("judge", gradedRequest()), CacheKey("judge", base))
}

// TestCacheGraded: a graded verdict comes back from the cache with its
// levels, and an entry whose level left the scale is asked again.
func TestCacheGraded(t *testing.T) {
	f, url := newFakeModel(t, func(int, *chat.Request) (int, string) {
		return http.StatusOK, completion(levelAnswer(2, true), 1, 1)
	})
	c := &Cache{Dir: t.TempDir(), Judge: NewOpenAI(OpenAIOptions{BaseURL: url, Model: "judge-1"}), Key: "cache-secret"}
	for range 2 {
		v, err := c.Decide(context.Background(), gradedRequest())
		assert.NilError(t, err)
		assert.DeepEqual(t, v.Levels, []int{2, 0})
	}
	assert.Equal(t, f.callCount(), 1)
	narrower := gradedRequest()
	assert.Check(t, !levelsFit([]int{5, 0}, narrower.Criteria))
	assert.Check(t, !levelsFit(nil, narrower.Criteria))
	assert.Check(t, levelsFit(nil, rubricRequest("a").Criteria))
}

// TestExecGraded: the exec judge gets each graded criterion's scale on
// stdin and answers criteria[i].level; a level off the scale is an error.
func TestExecGraded(t *testing.T) {
	dir := t.TempDir()
	script := `cat > received.json
if grep -q '"descriptor":"descriptor 4"' received.json; then level=4; else level=0; fi
echo "{\"criteria\":[{\"level\":$((level - ${OFFSET:-0})),\"reason\":\"graded\"},{\"met\":true}]}"
`
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "judge.sh"), []byte("#!/bin/sh\n"+script), 0o755))
	run := func(env ...string) (*RubricVerdict, error) {
		e, err := NewExec(ExecOptions{Command: []string{"./judge.sh"}, Dir: dir, Env: append([]string{"PATH=" + os.Getenv("PATH")}, env...)})
		assert.NilError(t, err)
		return e.Decide(context.Background(), gradedRequest())
	}
	v, err := run()
	assert.NilError(t, err)
	assert.DeepEqual(t, v.Levels, []int{4, 0})
	assert.DeepEqual(t, v.Met, []bool{true, true})
	got, err := os.ReadFile(filepath.Join(dir, "received.json"))
	assert.NilError(t, err)
	assert.Check(t, is.Contains(string(got), `{"criterion":"Gives tool guidance.","weight":0.5,"scale":{"min":0,"max":4,"levels":[{"level":0,"descriptor":"descriptor 0"},`))
	assert.Check(t, is.Contains(string(got), `{"criterion":"Is polite.","weight":0.5}`))

	_, err = run("OFFSET=-1")
	assert.Error(t, err, "the judge's answer for criterion 1 has level 5, outside its scale 0..4")
}
