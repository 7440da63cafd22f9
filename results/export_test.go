package results

import "github.com/evalgate/evalgate/jsonvalue"

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
