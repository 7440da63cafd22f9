package suites_test

import (
	"encoding/json"
	"os"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/judges"
	"github.com/evalgate/evalgate/suites"
)

// TestOpenWOPTranslationsMatchAlike scores outputs with each match the
// export translated and with the original: every verdict is the same, so a
// translation is exact, not a guess.
func TestOpenWOPTranslationsMatchAlike(t *testing.T) {
	path := "testdata/ok/openwop-translations.yaml"
	data, err := os.ReadFile(path)
	assert.NilError(t, err)
	orig, err := suites.Parse(path, data)
	assert.NilError(t, err)
	out, rep, err := suites.ExportOpenWOP(path, data, false)
	assert.NilError(t, err)
	exported, err := suites.Parse("export.json", out)
	assert.NilError(t, err)
	assert.Equal(t, rep.Count(suites.ExtTranslated), len(exported.Tasks), "every task left in the file was translated")

	outputs := []string{
		`"shipped"`, `"\"shipped\""`, `"Shipped"`, `"shipped!"`, `{"status":"shipped"}`,
		`[1,2.5,null,[true,"x"]]`, `[1,2.50,null,[true,"x"]]`, `"[1, 2.5, null, [true, \"x\"]]"`, `[1,2.5,null,[true,"X"]]`, `[1,2.5,null]`,
		`"in transit"`, `"your parcel is in transit"`, `"in  transit"`, `"In transit"`, `{"state":"in transit"}`,
		`"v1.2 (beta)"`, `"release v1.2 (beta) notes"`, `"v1x2 (beta)"`, `"v1.2 beta"`, `"transit"`,
		`""`, `null`, `true`, `1`, `"not json {"`,
	}
	byID := map[string]*suites.Task{}
	for _, ref := range orig.Tasks {
		task, err := orig.Full(ref)
		assert.NilError(t, err)
		byID[task.ID] = task
	}
	verdict := func(task *suites.Task, output string) bool {
		checks, _ := judges.Golden(task, &judges.Observation{Input: json.RawMessage(`null`), Output: json.RawMessage(output)})
		for _, c := range checks {
			if c.ID == judges.CheckMatch {
				return c.Passed
			}
		}
		t.Fatalf("task %s has no match", task.ID)
		return false
	}
	for _, ref := range exported.Tasks {
		task, err := exported.Full(ref)
		assert.NilError(t, err)
		matched := 0
		for _, output := range outputs {
			want := verdict(byID[task.ID], output)
			assert.Equal(t, verdict(task, output), want, "task %s, output %s", task.ID, output)
			if want {
				matched++
			}
		}
		assert.Assert(t, matched > 0 && matched < len(outputs), "task %s: the outputs do not tell the matches apart", task.ID)
	}
}

// TestExportOpenWOPNothingLeft: when every task is scored only by
// extensions, there is nothing to write, unless they are kept.
func TestExportOpenWOPNothingLeft(t *testing.T) {
	data := []byte("suiteId: acme.x.evals.asserts\nversion: 1.0.0\nmodes: [golden]\ntasks:\n" +
		"  - taskId: a\n    input: 1\n    expected: {kind: golden, assert: [{maxToolCalls: 0}]}\n" +
		"  - taskId: b\n    input: 2\n    expected: {kind: golden, match: {strategy: regex, value: '^2$'}}\n")
	out, rep, err := suites.ExportOpenWOP("only.yaml", data, false)
	assert.NilError(t, err)
	assert.Assert(t, out == nil)
	assert.Equal(t, len(rep.Unscoreable), 2)
	out, _, err = suites.ExportOpenWOP("only.yaml", data, true)
	assert.NilError(t, err)
	assert.Equal(t, len(suites.Portable("kept.json", out)), 2, "a kept task without scoring is never portable")
}
