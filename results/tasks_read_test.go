package results_test

import (
	"bytes"
	"encoding/json"
	"io"
	"testing"
	"testing/iotest"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// sameAsUnmarshal fails t when the task reader reads data otherwise than
// json.Unmarshal reads it into a Task: it may refuse what Unmarshal reads
// (ReadSpilling then reads the file with Read), never read it otherwise.
// It reports whether the reader read data.
func sameAsUnmarshal(t *testing.T, data []byte) bool {
	t.Helper()
	got, n, err := results.ReadTask(data)
	if err != nil || len(bytes.TrimLeft(data[n:], " \t\r\n")) > 0 {
		return false
	}
	var want results.Task
	if uerr := json.Unmarshal(data, &want); uerr != nil {
		t.Fatalf("the task reader read what json.Unmarshal refuses (%v): %q", uerr, data)
	}
	assert.DeepEqual(t, got, want)
	return true
}

// taskFixtures are tasks as Write writes them, every field of a task and
// of a trial set in some.
func taskFixtures(t testing.TB) [][]byte {
	var out [][]byte
	yes, two := true, 2
	every := resultstest.Full().Suites[0].Tasks[0]
	every.Tags = []string{"refunds", "é"}
	every.Metadata = &results.Metadata{Domain: "support", Complexity: 3, AutonomyLevel: &two, Category: "c"}
	every.ErrorKind, every.ErrorMessage = results.ErrTimeout, "timed out \"after\" 5s\n\x01\xff\u2028"
	every.UserCostUsd, every.SchemaValid, every.Idempotent = 1e-7, &yes, &yes
	every.FailedChecks, every.Faults = []string{"match"}, []string{"delay"}
	every.Levels = []results.Level{{Check: "tone", Criterion: 1, Level: 3}}
	every.Findings = []results.Finding{{Kind: "pii", Severity: results.SeverityHigh}}
	every.LinesAfterFinal = 2
	every.Trials = append([]results.Trial(nil), every.Trials...)
	every.Trials[0].Spans = &results.AgentTrace{
		Count: 2, Dropped: 1, Invalid: 1, Refused: 1, LLMCalls: 1, ToolCalls: 1, Errors: 1,
		Tokens: results.Tokens{Input: 3, Output: 4}, DurationMs: 2.5, ModelMs: 1, ToolMs: 0.5,
		Events:  []results.EventCount{{Name: "tool.called", Count: 1}},
		List:    []results.AgentSpan{{Name: "chat m", Kind: "client", Parent: -1, Status: "ok", DurationMs: 1, Operation: "chat", Model: "m", Tool: "t", Agent: "a", ErrorType: "e", InputTokens: 3, OutputTokens: 4, Events: []string{"x"}}, {Name: "é", Parent: 0, StartMs: 1.5}},
		Omitted: 1,
	}
	tasks := []results.Task{every, {Trials: []results.Trial{}}, filled[results.Task]()}
	for _, s := range append(resultstest.Full().Suites, resultstest.Suite1k()) {
		tasks = append(tasks, s.Tasks[:min(len(s.Tasks), 20)]...)
	}
	for i := range tasks {
		data, err := results.EncodeTask(&tasks[i])
		assert.NilError(t, err)
		out = append(out, data)
	}
	return out
}

// TestReadTask checks that the task reader reads every task Write writes
// as json.Unmarshal does, and leaves to Read the shapes Write does not
// write.
func TestReadTask(t *testing.T) {
	for i, data := range taskFixtures(t) {
		assert.Assert(t, sameAsUnmarshal(t, data), "fixture %d was refused: %s", i, data)
	}
	type testCase struct {
		name string
		data string
		read bool // the reader takes it (as Unmarshal does)
	}
	for _, tc := range []testCase{
		{name: "compact", data: `{"taskId":"a","trials":[{"trial":1,"checks":[{"id":"m","weight":0.5}]}]}`, read: true},
		{name: "escapes", data: `{"taskId":"a\"\u00e9\ud83d\ude00\n","file":"\/x"}`, read: true},
		{name: "numbers", data: `{"score":1E-2,"costUsd":-0,"latencyMs":-0,"line":-12}`, read: true},
		{name: "a trial without checks", data: `{"trials":[{"trial":1}]}`, read: true},
		{name: "empty lists", data: `{"tags":[],"trials":[],"levels":[],"findings":[]}`, read: true},
		{name: "an empty trace", data: `{"trials":[{"trial":1,"spans":{"events":[],"list":[{"events":[]}]}}]}`, read: true},
		{name: "a key twice", data: `{"score":1,"score":0.5}`},
		{name: "a key in another case", data: `{"TaskID":"a"}`},
		{name: "an unknown key", data: `{"output":"secret"}`},
		{name: "null", data: `{"trials":null}`},
		{name: "a whole number with a fraction", data: `{"line":1.0}`},
		{name: "a number too large", data: `{"score":1e400}`},
		{name: "a string for a number", data: `{"score":"1"}`},
		{name: "invalid UTF-8 is read as Unmarshal reads it", data: "{\"taskId\":\"\xff\"}", read: true},
		{name: "cut short", data: `{"taskId":"a","trials":[{"trial":1}`},
		{name: "a trailing comma", data: `{"taskId":"a",}`},
		{name: "a control character", data: "{\"taskId\":\"a\x01\"}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, sameAsUnmarshal(t, []byte(tc.data)), tc.read)
		})
	}
}

// FuzzReadTask holds the task reader to json.Unmarshal: whatever it reads,
// it reads as Unmarshal does.
func FuzzReadTask(f *testing.F) {
	for _, data := range taskFixtures(f) {
		f.Add(data)
	}
	f.Add([]byte(`{"taskId":"a\u00e9","score":1e-2,"trials":[{"checks":[{"scale":{"min":1,"max":2}}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsUnmarshal(t, data)
	})
}

// BenchmarkReadTask decodes a task as results.json holds it: one trial,
// four checks (bench/shard.sh merges 200,000 of them).
func BenchmarkReadTask(b *testing.B) {
	task := resultstest.Suite1k().Tasks[0]
	data, err := results.EncodeTask(&task)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := results.ReadTask(data); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzReadLean holds ReadSpilling's own reader to Read: whatever it reads,
// a byte at a time so that every value is cut by the end of a read, it
// reads as json.Unmarshal and Check do.
func FuzzReadLean(f *testing.F) {
	full, err := results.EncodeResults(resultstest.Full())
	if err != nil {
		f.Fatal(err)
	}
	f.Add(full)
	f.Add([]byte(`{"runId":"r","suites":[{"suiteId":"s","tasks":[{"taskId":"t","trials":[]}]}],"gates":[]}`))
	f.Add([]byte(`{"extra":{"a":["]","\"}"]},"suites":[{"tasks":[],"version":"1"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := results.ReadLean(iotest.OneByteReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		var want results.Run
		if uerr := json.Unmarshal(data, &want); uerr != nil {
			t.Fatalf("read what json.Unmarshal refuses (%v): %q", uerr, data)
		}
		if cerr := want.Check(); cerr != nil {
			t.Fatalf("read what Check refuses (%v): %q", cerr, data)
		}
		assert.DeepEqual(t, got, &want)
	})
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// TestReadLeanGivesUpAtOnce checks that a task the reader leaves to Read
// (here, a key it does not know) stops it where it is: read again with
// more of the file ahead, as a task cut short by the buffer is, it would
// first take the whole rest of a large file into memory.
func TestReadLeanGivesUpAtOnce(t *testing.T) {
	r := resultstest.Full()
	s := resultstest.Suite1k()
	for range 3 {
		r.Suites = append(r.Suites, s) // some 4 MB in all
	}
	data, err := results.EncodeResults(r)
	assert.NilError(t, err)
	odd := bytes.Replace(data, []byte(`"passScore": `), []byte(`"newField": 1, "passScore": `), 2)
	assert.Assert(t, len(odd) > 3<<20)

	for name, tc := range map[string]struct {
		data []byte
		read bool
	}{"as written": {data, true}, "a task of another shape": {odd, false}} {
		t.Run(name, func(t *testing.T) {
			in := &countingReader{r: bytes.NewReader(tc.data)}
			_, err := results.ReadLean(in)
			if tc.read {
				assert.NilError(t, err)
				return
			}
			assert.Assert(t, err != nil)
			assert.Assert(t, in.n < 1<<20, "read %d bytes of %d before giving up", in.n, len(tc.data))
		})
	}
}
