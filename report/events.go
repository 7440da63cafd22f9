package report

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/evalgate/evalgate/jsonvalue"
	"github.com/evalgate/evalgate/results"
)

// Event types written to events.ndjson.
const (
	EventStarted   = "eval.started"
	EventScored    = "eval.scored"
	EventCompleted = "eval.completed"
)

// Events writes openwop run events, one JSON object per line, as the run
// goes: eval.started when a suite starts, eval.scored as each task finishes,
// eval.completed when the suite is done. Each line is handed to the writer
// in one Write call as soon as it is built; nothing is held back, so a
// 100,000-task run writes 100,000 lines without growing memory.
//
// Every event carries the openwop envelope {eventId, runId, type, payload,
// timestamp, sequence}: runId is the suite's run id (one per suite), sequence
// counts from 0 per runId, and timestamp is RFC 3339 in UTC with
// milliseconds. Payloads are built from an allow-list of content-free fields.
//
// An Events is safe for concurrent use: calls from several goroutines are
// serialised by a lock, so lines never interleave and sequences stay in
// order, but the underlying writer is only ever used by one call at a time
// and must not be written to by anyone else.
type Events struct {
	mu    sync.Mutex
	w     io.Writer
	clock func() time.Time
	newID func() string
	next  map[string]int64 // next sequence of every started, not yet completed run
	buf   []byte           // reused for every line
}

// NewEvents returns an Events writing to w. clock stamps the events and
// newID makes each eventId; nil means time.Now and random 128-bit hex ids.
func NewEvents(w io.Writer, clock func() time.Time, newID func() string) *Events {
	if clock == nil {
		clock = time.Now
	}
	if newID == nil {
		newID = randomID
	}
	return &Events{
		w:     w,
		clock: clock,
		newID: newID,
		next:  make(map[string]int64),
		buf:   make([]byte, 0, 512),
	}
}

// Started writes eval.started for suite s, whose RunID names the run:
// {suiteId, suiteVersion, taskCount, modes, baselineRunId?}. modes are the
// modes this run executes and taskCount the tasks it will score, which a
// filter or a shard may make fewer than the suite's; baselineRunID is empty
// when there is no baseline.
func (e *Events) Started(s *results.Suite, modes []string, taskCount int, baselineRunID string) error {
	if s == nil {
		return errors.New("could not write event eval.started: no suite result")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if s.RunID == "" {
		return fmt.Errorf("could not write event eval.started for suite %q: the suite has no run id", s.ID)
	}
	if _, ok := e.next[s.RunID]; ok {
		return fmt.Errorf("could not write event eval.started for run %q: the run was already started", s.RunID)
	}
	e.next[s.RunID] = 0

	b := e.open(s.RunID, EventStarted)
	b = append(b, `"suiteId":`...)
	b = jsonvalue.AppendString(b, s.ID)
	b = append(b, `,"suiteVersion":`...)
	b = jsonvalue.AppendString(b, s.Version)
	b = append(b, `,"taskCount":`...)
	b = strconv.AppendInt(b, int64(max(taskCount, 0)), 10)
	b = append(b, `,"modes":[`...)
	for i, m := range modes {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonvalue.AppendString(b, m)
	}
	b = append(b, ']')
	if baselineRunID != "" {
		b = append(b, `,"baselineRunId":`...)
		b = jsonvalue.AppendString(b, baselineRunID)
	}
	return e.close(b, s.RunID, EventStarted)
}

// Scored writes eval.scored for task t of the run runID: {taskId, score,
// passed, costUsd?, latencyMs?, schemaValid?, safetyFindingCount?}. Cost and
// latency are left out when zero (an error before the agent ran), the
// finding count when there are none.
func (e *Events) Scored(runID string, t *results.Task) error {
	if t == nil {
		return errors.New("could not write event eval.scored: no task result")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.next[runID]; !ok {
		return fmt.Errorf("could not write event eval.scored for run %q: the run was not started", runID)
	}

	b := e.open(runID, EventScored)
	b = append(b, `"taskId":`...)
	b = jsonvalue.AppendString(b, t.ID)
	b = append(b, `,"score":`...)
	b = appendFloat(b, clamp(t.Score, 0, 1))
	b = append(b, `,"passed":`...)
	b = strconv.AppendBool(b, t.Passed)
	if c := nonNegative(t.CostUsd); c > 0 {
		b = append(b, `,"costUsd":`...)
		b = appendFloat(b, c)
	}
	if t.LatencyMs > 0 {
		b = append(b, `,"latencyMs":`...)
		b = strconv.AppendInt(b, t.LatencyMs, 10)
	}
	if t.SchemaValid != nil {
		b = append(b, `,"schemaValid":`...)
		b = strconv.AppendBool(b, *t.SchemaValid)
	}
	if n := len(t.Findings); n > 0 {
		b = append(b, `,"safetyFindingCount":`...)
		b = strconv.AppendInt(b, int64(n), 10)
	}
	return e.close(b, runID, EventScored)
}

// Completed writes eval.completed for suite s: {aggregateScore, passed,
// taskCount, passedCount, regressionVsBaseline?}, the last event of its run.
// regressionVsBaseline is the score delta against the baseline, in [-1, 1],
// present only when the suite was compared with one.
func (e *Events) Completed(s *results.Suite) error {
	if s == nil {
		return errors.New("could not write event eval.completed: no suite result")
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if _, ok := e.next[s.RunID]; !ok {
		return fmt.Errorf("could not write event eval.completed for run %q: the run was not started", s.RunID)
	}

	b := e.open(s.RunID, EventCompleted)
	b = append(b, `"aggregateScore":`...)
	b = appendFloat(b, clamp(s.AggregateScore, 0, 1))
	b = append(b, `,"passed":`...)
	b = strconv.AppendBool(b, s.Passed)
	b = append(b, `,"taskCount":`...)
	b = strconv.AppendInt(b, int64(max(s.TaskCount, 0)), 10)
	b = append(b, `,"passedCount":`...)
	b = strconv.AppendInt(b, int64(max(s.PassedCount, 0)), 10)
	if s.Regression != nil {
		b = append(b, `,"regressionVsBaseline":`...)
		b = appendFloat(b, clamp(s.Regression.ScoreDelta, -1, 1))
	}
	err := e.close(b, s.RunID, EventCompleted)
	delete(e.next, s.RunID) // the run is over: its sequence need not be kept
	return err
}

// open starts a line in the reused buffer, up to the opening brace of the
// payload.
func (e *Events) open(runID, typ string) []byte {
	b := e.buf[:0]
	b = append(b, `{"eventId":`...)
	b = jsonvalue.AppendString(b, e.newID())
	b = append(b, `,"runId":`...)
	b = jsonvalue.AppendString(b, runID)
	b = append(b, `,"type":`...)
	b = jsonvalue.AppendString(b, typ)
	b = append(b, `,"payload":{`...)
	return b
}

// close ends the payload and the envelope and writes the line. The sequence
// is used up even when the write fails, so no two lines ever share one.
func (e *Events) close(b []byte, runID, typ string) error {
	seq := e.next[runID]
	e.next[runID] = seq + 1
	b = append(b, `},"timestamp":"`...)
	b = e.clock().UTC().AppendFormat(b, "2006-01-02T15:04:05.000Z07:00")
	b = append(b, `","sequence":`...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, "}\n"...)
	e.buf = b
	if _, err := e.w.Write(b); err != nil {
		return fmt.Errorf("could not write event %s for run %q: %w", typ, runID, err)
	}
	return nil
}

// randomID returns 128 random bits in hex.
func randomID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return hex.EncodeToString(b[:])
}

// appendFloat appends f as a JSON number, formatted as encoding/json does.
// NaN and infinities, which JSON cannot hold, become 0; callers clamp first.
func appendFloat(b []byte, f float64) []byte {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0')
	}
	return jsonvalue.AppendFloat(b, f)
}
