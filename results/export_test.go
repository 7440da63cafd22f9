package results

import (
	"io"

	"github.com/evalgate/evalgate/jsonvalue"
)

// EncodeResults renders r as results.json, for the tests of package
// results_test.
var EncodeResults = encodeResults

// EncodeWhole is results.json encoded whole rather than streamed task by
// task: what the streamed file must equal byte for byte.
func EncodeWhole(r *Run) ([]byte, error) { return jsonvalue.MarshalFile(normalizeRun(r)) }

// AppendTrials is appendTrials at a task's depth in results.json.
func AppendTrials(trials []Trial) ([]byte, error) { return appendTrials(nil, trials, trialsPrefix) }

// EncodeTrials is what encoding/json writes for trials at a task's depth.
func EncodeTrials(trials []Trial) ([]byte, error) {
	var e indentEncoder
	return e.encode(&trials, trialsPrefix)
}

// AppendTask is appendTask, trials written from t.
func AppendTask(t *Task) ([]byte, error) { return appendTask(nil, t, nil) }

// EncodeTask is what encoding/json writes for t at its depth in
// results.json.
func EncodeTask(t *Task) ([]byte, error) {
	var e indentEncoder
	return e.encode(t, taskPrefix)
}

// ReadTask decodes data as ReadSpilling decodes a task: the task, how many
// bytes it took, and errShape or another error when it would leave the
// file to Read.
func ReadTask(data []byte) (Task, int, error) {
	var r taskReader
	var t Task
	n, err := r.readTask(data, &t)
	keepTrials(&t)
	return t, n, err
}

// ReadLean reads a run from r as ReadSpilling reads a file, spilling
// nothing, without falling back to Read: errShape or another error when
// ReadSpilling would leave the file to Read.
func ReadLean(r io.Reader) (*Run, error) {
	lr := &leanReader{in: stream{r: r}, size: 1 << 30}
	if err := lr.read(); err != nil {
		return nil, err
	}
	if err := lr.run.Check(); err != nil {
		return nil, err
	}
	return &lr.run, nil
}
