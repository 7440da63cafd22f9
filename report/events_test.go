package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
	"gotest.tools/v3/golden"

	"github.com/evalgate/evalgate/internal/resultstest"
	"github.com/evalgate/evalgate/results"
)

// testClock is a clock that moves only when told.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2025, 3, 14, 9, 26, 53, 589_793_238, time.FixedZone("CET", 3600))}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// counterIDs returns an id maker giving evt-1, evt-2, ...
func counterIDs() func() string {
	var mu sync.Mutex
	n := 0
	return func() string {
		mu.Lock()
		defer mu.Unlock()
		n++
		return "evt-" + strconv.Itoa(n)
	}
}

// payloadKeys is the allow-list of payload keys per event type.
var payloadKeys = map[string][]string{
	EventStarted:   {"suiteId", "suiteVersion", "taskCount", "modes", "baselineRunId"},
	EventScored:    {"taskId", "score", "passed", "costUsd", "latencyMs", "schemaValid", "safetyFindingCount"},
	EventCompleted: {"aggregateScore", "passed", "taskCount", "passedCount", "regressionVsBaseline"},
}

type event struct {
	EventID   string         `json:"eventId"`
	RunID     string         `json:"runId"`
	Type      string         `json:"type"`
	Payload   map[string]any `json:"payload"`
	Timestamp string         `json:"timestamp"`
	Sequence  int64          `json:"sequence"`
}

// parseEvents reads events.ndjson strictly: one object per line, the
// envelope and nothing else, payloads within their allow-list.
func parseEvents(t *testing.T, data []byte) []event {
	t.Helper()
	var events []event
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var e event
		assert.NilError(t, dec.Decode(&e), "line %q", sc.Text())
		allowed, ok := payloadKeys[e.Type]
		assert.Assert(t, ok, "unknown event type %q", e.Type)
		for k := range e.Payload {
			assert.Check(t, slices.Contains(allowed, k), "payload key %q is not allowed in %s", k, e.Type)
		}
		ts, err := time.Parse(time.RFC3339, e.Timestamp)
		assert.NilError(t, err)
		assert.Check(t, ts.Location() == time.UTC, "timestamp %q is not UTC", e.Timestamp)
		events = append(events, e)
	}
	assert.NilError(t, sc.Err())
	assert.Check(t, len(data) == 0 || data[len(data)-1] == '\n', "the last line is not ended")
	return events
}

func TestEvents(t *testing.T) {
	type testCase struct {
		name   string
		emit   func(t *testing.T, ev *Events, clock *testClock)
		golden string
		check  func(t *testing.T, events []event)
	}
	run := func(t *testing.T, tc testCase) {
		var buf bytes.Buffer
		clock := newTestClock()
		ev := NewEvents(&buf, clock.Now, counterIDs())
		tc.emit(t, ev, clock)
		events := parseEvents(t, buf.Bytes())
		if tc.golden != "" {
			golden.Assert(t, buf.String(), tc.golden)
		}
		if tc.check != nil {
			tc.check(t, events)
		}
	}
	testCases := []testCase{
		{
			name: "one suite",
			emit: func(t *testing.T, ev *Events, clock *testClock) {
				s := resultstest.Refunds()
				assert.NilError(t, ev.Started(&s, []string{"golden", "adversarial"}, 3, "run-41"))
				for i := range s.Tasks {
					clock.Advance(250 * time.Millisecond)
					assert.NilError(t, ev.Scored(s.RunID, &s.Tasks[i]))
				}
				clock.Advance(time.Millisecond)
				assert.NilError(t, ev.Completed(&s))
			},
			golden: "events-refunds.golden",
		},
		{
			name: "no baseline, no regression, nothing optional",
			emit: func(t *testing.T, ev *Events, _ *testClock) {
				s := resultstest.Greeting()
				assert.NilError(t, ev.Started(&s, []string{"golden"}, 1, ""))
				task := results.Task{ID: "hello", Score: 1, Passed: true}
				assert.NilError(t, ev.Scored(s.RunID, &task))
				assert.NilError(t, ev.Completed(&s))
			},
			check: func(t *testing.T, events []event) {
				assert.Check(t, !has(events[0].Payload, "baselineRunId"))
				assert.DeepEqual(t, events[1].Payload, map[string]any{"taskId": "hello", "score": 1.0, "passed": true})
				assert.Check(t, !has(events[2].Payload, "regressionVsBaseline"))
			},
		},
		{
			name: "sequence counts per run",
			emit: func(t *testing.T, ev *Events, _ *testClock) {
				a, b := resultstest.Refunds(), resultstest.Greeting()
				assert.NilError(t, ev.Started(&a, a.Modes, len(a.Tasks), ""))
				assert.NilError(t, ev.Started(&b, b.Modes, len(b.Tasks), ""))
				assert.NilError(t, ev.Scored(a.RunID, &a.Tasks[0]))
				assert.NilError(t, ev.Scored(b.RunID, &b.Tasks[0]))
				assert.NilError(t, ev.Scored(a.RunID, &a.Tasks[1]))
				assert.NilError(t, ev.Completed(&b))
				assert.NilError(t, ev.Scored(a.RunID, &a.Tasks[2]))
				assert.NilError(t, ev.Completed(&a))
			},
			check: func(t *testing.T, events []event) {
				var got []string
				for _, e := range events {
					got = append(got, fmt.Sprintf("%s %s %d", e.RunID, e.Type, e.Sequence))
				}
				assert.DeepEqual(t, got, []string{
					"run-refunds eval.started 0",
					"run-greeting eval.started 0",
					"run-refunds eval.scored 1",
					"run-greeting eval.scored 1",
					"run-refunds eval.scored 2",
					"run-greeting eval.completed 2",
					"run-refunds eval.scored 3",
					"run-refunds eval.completed 4",
				})
				ids := map[string]bool{}
				for _, e := range events {
					assert.Check(t, !ids[e.EventID], "event id %q used twice", e.EventID)
					ids[e.EventID] = true
				}
			},
		},
		{
			name: "values clamped and encoded as JSON numbers",
			emit: func(t *testing.T, ev *Events, _ *testClock) {
				s := resultstest.Refunds()
				s.AggregateScore = math.NaN()
				s.Regression.ScoreDelta = 3
				assert.NilError(t, ev.Started(&s, nil, -1, ""))
				task := results.Task{ID: "tiny", Score: 1.5, CostUsd: 0.0000001, LatencyMs: -3}
				assert.NilError(t, ev.Scored(s.RunID, &task))
				assert.NilError(t, ev.Completed(&s))
			},
			check: func(t *testing.T, events []event) {
				assert.Equal(t, events[0].Payload["taskCount"], 0.0)
				assert.DeepEqual(t, events[0].Payload["modes"], []any{})
				assert.DeepEqual(t, events[1].Payload, map[string]any{"taskId": "tiny", "score": 1.0, "passed": false, "costUsd": 1e-7})
				assert.Equal(t, events[2].Payload["aggregateScore"], 0.0)
				assert.Equal(t, events[2].Payload["regressionVsBaseline"], 1.0)
			},
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestEventsErrors(t *testing.T) {
	type testCase struct {
		name    string
		emit    func(ev *Events) error
		wantErr string
	}
	run := func(t *testing.T, tc testCase) {
		var buf bytes.Buffer
		ev := NewEvents(&buf, nil, nil)
		assert.ErrorContains(t, tc.emit(ev), tc.wantErr)
	}
	s := resultstest.Greeting()
	testCases := []testCase{
		{
			name:    "scored before started",
			emit:    func(ev *Events) error { return ev.Scored("run-x", &s.Tasks[0]) },
			wantErr: `could not write event eval.scored for run "run-x": the run was not started`,
		},
		{
			name:    "completed before started",
			emit:    func(ev *Events) error { return ev.Completed(&s) },
			wantErr: `could not write event eval.completed for run "run-greeting": the run was not started`,
		},
		{
			name: "started twice",
			emit: func(ev *Events) error {
				if err := ev.Started(&s, s.Modes, 1, ""); err != nil {
					return err
				}
				return ev.Started(&s, s.Modes, 1, "")
			},
			wantErr: `could not write event eval.started for run "run-greeting": the run was already started`,
		},
		{
			name: "scored after completed",
			emit: func(ev *Events) error {
				if err := ev.Started(&s, s.Modes, 1, ""); err != nil {
					return err
				}
				if err := ev.Completed(&s); err != nil {
					return err
				}
				return ev.Scored(s.RunID, &s.Tasks[0])
			},
			wantErr: "the run was not started",
		},
		{
			name: "suite without run id",
			emit: func(ev *Events) error {
				s := resultstest.Greeting()
				s.RunID = ""
				return ev.Started(&s, s.Modes, 1, "")
			},
			wantErr: `could not write event eval.started for suite "acme.support.evals.greeting": the suite has no run id`,
		},
		{
			name:    "no task",
			emit:    func(ev *Events) error { return ev.Scored("run-x", nil) },
			wantErr: "could not write event eval.scored: no task result",
		},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

// failWriter fails every write after the first n.
type failWriter struct{ n int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.n == 0 {
		return 0, errors.New("disk full")
	}
	w.n--
	return len(p), nil
}

func TestEventsWriteError(t *testing.T) {
	s := resultstest.Greeting()
	ev := NewEvents(&failWriter{n: 1}, nil, nil)
	assert.NilError(t, ev.Started(&s, s.Modes, 1, ""))
	err := ev.Scored(s.RunID, &s.Tasks[0])
	assert.Error(t, err, `could not write event eval.scored for run "run-greeting": disk full`)
}

// TestEventsStreamed checks that each event reaches the writer as one whole
// line, at once.
func TestEventsStreamed(t *testing.T) {
	var writes []string
	w := writerFunc(func(p []byte) (int, error) {
		writes = append(writes, string(p))
		return len(p), nil
	})
	s := resultstest.Refunds()
	ev := NewEvents(w, nil, nil)
	assert.NilError(t, ev.Started(&s, s.Modes, 3, ""))
	assert.Check(t, is.Len(writes, 1))
	for i := range s.Tasks {
		assert.NilError(t, ev.Scored(s.RunID, &s.Tasks[i]))
		assert.Check(t, is.Len(writes, i+2), "event %d was not written when scored", i)
	}
	for _, line := range writes {
		assert.Check(t, strings.Count(line, "\n") == 1 && strings.HasSuffix(line, "\n"), "write %q is not one line", line)
	}
	// Default ids are random hex.
	var e event
	assert.NilError(t, json.Unmarshal([]byte(writes[0]), &e))
	assert.Check(t, is.Len(e.EventID, 32))
}

type writerFunc func(p []byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

func TestEventsConcurrent(t *testing.T) {
	const workers, perWorker = 8, 200
	var buf bytes.Buffer
	ev := NewEvents(&buf, nil, counterIDs())
	s := resultstest.Refunds()
	assert.NilError(t, ev.Started(&s, s.Modes, workers*perWorker, ""))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range perWorker {
				task := results.Task{ID: fmt.Sprintf("t-%d-%d", w, i), Score: 0.5}
				if err := ev.Scored(s.RunID, &task); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	assert.NilError(t, ev.Completed(&s))

	events := parseEvents(t, buf.Bytes())
	assert.Assert(t, is.Len(events, workers*perWorker+2))
	for i, e := range events {
		assert.Equal(t, e.Sequence, int64(i), "lines are out of sequence")
	}
}

// TestEventsScoredAllocs keeps the per-task path free of allocations: a
// 100,000-task run must not grow memory.
func TestEventsScoredAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	ev := NewEvents(discard{}, time.Now, func() string { return "evt" })
	s := resultstest.Refunds()
	assert.NilError(t, ev.Started(&s, s.Modes, 3, ""))
	task := &s.Tasks[1]
	allocs := testing.AllocsPerRun(1000, func() {
		assert.NilError(t, ev.Scored(s.RunID, task))
	})
	assert.Equal(t, allocs, 0.0)
}

// discard is io.Discard without the io.StringWriter fast path, so the test
// sees the same Write call a file gets.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func TestAppendFloat(t *testing.T) {
	inputs := []float64{0, 1, -1, 0.5, 0.1 + 0.2, 1.0 / 3, 1e-7, 1.5e-7, 123456.789, 1e21, 1e20, -2.5e-9, math.MaxFloat64}
	for _, in := range inputs {
		t.Run(strconv.FormatFloat(in, 'g', -1, 64), func(t *testing.T) {
			want, err := json.Marshal(in)
			assert.NilError(t, err)
			assert.Equal(t, string(appendFloat(nil, in)), string(want))
		})
	}
	assert.Equal(t, string(appendFloat(nil, math.NaN())), "0")
	assert.Equal(t, string(appendFloat(nil, math.Inf(1))), "0")
}
