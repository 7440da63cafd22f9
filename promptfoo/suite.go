package promptfoo

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// The files an import writes beside the project files.
const (
	suiteFile = "evals/promptfoo.suite.yaml"
	rowsFile  = "evals/promptfoo.tests.jsonl"
	checksDir = "checks" // in evals/, the suite's folder, where program checks run
)

// suiteTemplate is the suite: every task is a row of the dataset, which
// holds its id, input, bar, expectation and the test's vars.
const suiteTemplate = `# Imported from a promptfoo config by evalgate import promptfoo: each row of
# %s is one test with one prompt (see import-report.json).
suiteId: %s
version: 1.0.0
modes: [golden, rubric]
datasets:
  - file: %s
    task:
      taskId: "{row.id}"
      description: "{row.description}"
      input: "{row.input}"
      passScore: "{row.passScore}"
      expected: "{row.expected}"
`

// group is the providers that run the same tasks, and the suite they
// share.
type group struct {
	providers []int
	cells     [][2]int // the (test, prompt) of each task
	suiteFile string
	rowsFile  string
	suiteID   string
	suffix    string // of its files and suite ids: "" for the first group
	chat      bool   // its agents take chat prompts as messages
}

// suite writes the suite(s), their rows, the suites of the CSV sheets
// kept where they are, the program checks and the project files.
func (im *importer) suite(prompts []prompt, providers []provider, tests []test) error {
	if len(prompts) == 0 {
		var why []string
		for _, u := range im.rep.Unsupported {
			if strings.HasPrefix(u.Location, "prompts") {
				why = append(why, u.Location+": "+u.Reason)
			}
		}
		return fmt.Errorf("%w: no prompt could be imported: %s", ErrNothing, strings.Join(why, "; "))
	}
	none := len(providers) == 0
	if none {
		providers = []provider{{id: "none", label: "none", agent: "  plain: [cat]   # no provider was imported: set the agent\n"}}
	}
	groups := im.groups(prompts, providers, tests)
	sheets := im.sheets(prompts, tests)
	projects := projectFiles(providers)
	expected := make([]map[string]any, len(tests))
	codes := make([]map[string]any, len(tests))
	for i, t := range tests {
		expected[i], codes[i] = im.expected(t)
	}
	lists := make([][]string, len(providers)) // the suites of each project file
	for g, gr := range groups {
		var rows bytes.Buffer
		enc := json.NewEncoder(&rows)
		enc.SetEscapeHTML(false)
		for _, c := range gr.cells {
			t, p := tests[c[0]], c[1]
			ref := func(suiteID, taskID string) {
				for _, pi := range gr.providers {
					pr := providers[pi]
					im.rep.Tasks = append(im.rep.Tasks, TaskRef{SuiteID: suiteID, TaskID: taskID, TestIdx: t.index, PromptIdx: p, Provider: pr.id, Label: pr.label, Project: projects[pi]})
				}
			}
			if sh := sheets[t.sheet]; sh != nil {
				// The sheet's suite reads the row where it is, at every run.
				ref(sh.suiteID+gr.suffix, sheetTaskID(sh.prefix, strconv.Itoa(t.line), p, len(prompts)))
				continue
			}
			id := fmt.Sprintf("test-%d", t.raw)
			if len(prompts) > 1 {
				id += fmt.Sprintf("-p%d", p)
			}
			if t.variant > 0 {
				id += fmt.Sprintf("-v%d", t.variant)
			}
			row, err := im.row(t, prompts[p], expected[c[0]], codes[c[0]], gr.chat)
			if err != nil {
				im.unsupported(prompts[p].loc, "prompt template", "could not render it with the vars of "+t.loc+": "+err.Error()+"; the prompt is left as written")
			}
			row["id"] = id
			if err := enc.Encode(row); err != nil {
				return fmt.Errorf("could not write the test at %s: %w", t.loc, err)
			}
			ref(gr.suiteID, id)
		}
		var list []string
		if rows.Len() > 0 {
			im.files[gr.rowsFile] = rows.Bytes()
			im.files[gr.suiteFile] = fmt.Appendf(nil, suiteTemplate, path.Base(gr.rowsFile), gr.suiteID, path.Base(gr.rowsFile))
			if len(groups) == 1 {
				list = append(list, "evals/")
			} else {
				list = append(list, gr.suiteFile)
			}
		}
		for _, name := range slices.Sorted(maps.Keys(sheets)) {
			// The sheet's suite for this group: the prompts its providers
			// run.
			sh := sheets[name]
			var allowed []int
			for _, c := range gr.cells {
				if tests[c[0]].sheet == name && !slices.Contains(allowed, c[1]) {
					allowed = append(allowed, c[1])
				}
			}
			if len(allowed) == 0 {
				continue
			}
			p := sh.path
			if gr.suffix != "" {
				p = strings.TrimSuffix(p, ".suite.yaml") + "." + strings.TrimPrefix(gr.suffix, "-") + ".suite.yaml"
			}
			im.files[p] = sh.suite(prompts, allowed, im.defaultTest, gr.chat, sh.suiteID+gr.suffix)
			if len(groups) > 1 || len(list) == 0 || !strings.HasPrefix(p, "evals/") {
				list = append(list, p)
			}
		}
		_ = g
		for _, pi := range gr.providers {
			lists[pi] = list
		}
	}
	judge := ""
	if im.judged {
		// promptfoo grades llm-rubric and the model-graded assertions with
		// an OpenAI model unless told otherwise.
		judge = "judge:\n  openai: {baseURL: https://api.openai.com/v1, model: gpt-4o-mini, apiKeyEnv: OPENAI_API_KEY}\n"
	}
	for i, p := range providers {
		list := lists[i]
		if len(list) == 0 {
			im.unsupported(fmt.Sprintf("providers[%d]", i), "provider "+p.id, "its filters leave it no task")
			continue
		}
		im.files[projects[i]] = fmt.Appendf(nil, "# Imported from promptfoo provider %s.\nsuites: [%s]\nagent:\n%s%s", strconv.Quote(p.id), strings.Join(list, ", "), p.agent, judge)
		if !none {
			im.rep.Providers = append(im.rep.Providers, ProviderRef{ID: p.id, Label: p.label, Project: projects[i]})
		}
	}
	return nil
}

// projectFiles names the project file of each provider: evalgate.yaml for
// the first, evalgate.<label>.yaml for the others, numbered where two
// labels make one name.
func projectFiles(providers []provider) []string {
	out := make([]string, len(providers))
	seen := map[string]bool{}
	for i, p := range providers {
		name := projectFile(i, p.label)
		for n := 2; seen[name]; n++ {
			name = fmt.Sprintf("evalgate.%s-%d.yaml", slug(p.label), n)
		}
		seen[name] = true
		out[i] = name
	}
	return out
}

// groups sorts the providers by the tasks they run: the tests and prompts
// their prompts filters, and the tests' prompts and providers filters,
// allow. Providers that run the same tasks share a suite.
func (im *importer) groups(prompts []prompt, providers []provider, tests []test) []group {
	var out []group
	key := map[string]int{}
	anyChat := false
	for _, p := range prompts {
		if doc, ok := parseOrdered(p.raw); ok && isChat(doc) {
			anyChat = true
		}
	}
	for pi, pr := range providers {
		var cells [][2]int
		var sig strings.Builder
		if anyChat && pr.chat {
			sig.WriteString("chat:")
		}
		for ti, t := range tests {
			if !providerAllowed(pr, t.providers, t.providersFilt) {
				continue
			}
			for k, p := range prompts {
				if promptAllowed(p, pr.prompts, pr.filtered) && promptAllowed(p, t.prompts, t.promptsFiltered) {
					cells = append(cells, [2]int{ti, k})
					fmt.Fprintf(&sig, "%d.%d,", ti, k)
				}
			}
		}
		if g, ok := key[sig.String()]; ok {
			out[g].providers = append(out[g].providers, pi)
			continue
		}
		key[sig.String()] = len(out)
		gr := group{providers: []int{pi}, cells: cells, suiteFile: suiteFile, rowsFile: rowsFile, suiteID: im.suiteID, chat: anyChat && pr.chat}
		if len(out) > 0 {
			s := slug(pr.label)
			gr.suiteFile = "evals/promptfoo." + s + ".suite.yaml"
			gr.rowsFile = "evals/promptfoo." + s + ".tests.jsonl"
			gr.suiteID = im.suiteID + "-" + s
			gr.suffix = "-" + s
		}
		out = append(out, gr)
	}
	return out
}

// row is the dataset row of test t with prompt pr: what the task
// template reads. expected and code are t's, from expected. The error
// says why the prompt could not be rendered; the row then has the prompt
// as written.
//
// A chat prompt is a list of messages for an agent that takes them
// (chat), else the text promptfoo's provider gets.
func (im *importer) row(t test, pr prompt, expected map[string]any, code map[string]any, chatAgent bool) (map[string]any, error) {
	vars, why := im.loadVarFiles(t.vars)
	for _, w := range why {
		im.unsupported(t.loc+".vars", "var", w)
	}
	pv := prepareVars(vars)
	raw := pr.raw
	prefix, _ := t.options["prefix"].(string)
	suffix, _ := t.options["suffix"].(string)
	raw = prefix + raw + suffix
	var input any
	text, chat, err := renderPrompt(raw, im.orderedVars(pv), im.fixedSteps)
	switch {
	case err != nil:
		input = raw
	case chat != nil && chatAgent:
		input = chat
	default:
		input = text
	}
	bar := 1.0
	if t.threshold != nil {
		bar = *t.threshold
	}
	row := map[string]any{"description": cmp.Or(t.description, t.loc), "input": input, "passScore": bar, "expected": expected, "vars": pv}
	maps.Copy(row, code)
	return row, err
}

// orderedVars is vars with their objects in the config's key order, for
// the template engine.
func (im *importer) orderedVars(vars map[string]any) map[string]any {
	out := make(map[string]any, len(vars))
	for k, v := range vars {
		out[k] = im.ordered(v, 0)
	}
	return out
}
