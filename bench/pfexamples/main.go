// Command pfexamples measures how often `evalgate import promptfoo` gives
// the verdict promptfoo gives, on the configs of promptfoo's own examples
// folder. It does not carry those configs: it reads them from a checkout
// of promptfoo, copies each example into a work folder, and makes it
// deterministic and offline with a canned provider, as the parity configs
// of promptfoo/parity are:
//
//   - every provider becomes promptfoo's echo provider (it answers with the
//     prompt), keeping its label (or its id, as a label) and its prompts
//     filter; a test's or defaultTest's own provider is dropped;
//   - assertions a model decides (llm-rubric, similar, factuality, …) are
//     removed and counted: neither tool can decide them offline.
//
// Then promptfoo evaluates the config (-o pf.json), evalgate imports and
// runs it, and each row promptfoo wrote (a test, a prompt and a provider)
// is compared with evalgate's verdict for the same row. A config promptfoo
// itself cannot run offline (a row-less or failed eval) is left out and
// listed. bench/promptfoo-examples.sh runs it; docs/migrating-from-promptfoo.md
// has the figures.
//
//	go run ./bench/pfexamples -examples ~/promptfoo/examples -evalgate /tmp/evalgate [-only REGEX] [-out report.md]
package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/internal/process"
)

// modelGraded are the assertion types a model decides.
var modelGraded = regexp.MustCompile(`^(not-)?(llm-rubric|model-graded-.*|factuality|similar.*|g-eval|answer-relevance|context-.*|conversation-relevance|classifier|moderation|select-best|max-score|search-rubric|agent-rubric|pi|guardrails|trajectory:goal-success|is-refusal)$`)

func main() {
	examples := flag.String("examples", "", "promptfoo's examples folder")
	evalgate := flag.String("evalgate", "evalgate", "the path of the evalgate binary")
	baseline := flag.String("baseline", "", "another evalgate binary to measure on the same rows (an earlier build)")
	work := flag.String("work", filepath.Join(os.TempDir(), "evalgate-pfexamples"), "the work folder (emptied)")
	only := flag.String("only", "", "a regular expression: only the configs whose path matches")
	out := flag.String("out", "", "write the report (Markdown) here too")
	jobs := flag.Int("j", 2, "configs measured at once")
	flag.Parse()
	if *examples == "" {
		fmt.Fprintln(os.Stderr, "pfexamples: -examples is needed: promptfoo's examples folder")
		os.Exit(2)
	}
	bin, err := filepath.Abs(*evalgate)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pfexamples:", err)
		os.Exit(2)
	}
	base := ""
	if *baseline != "" {
		if base, err = filepath.Abs(*baseline); err != nil {
			fmt.Fprintln(os.Stderr, "pfexamples:", err)
			os.Exit(2)
		}
	}
	configs, err := findConfigs(*examples, *only)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pfexamples:", err)
		os.Exit(2)
	}
	if err := os.RemoveAll(*work); err != nil {
		fmt.Fprintln(os.Stderr, "pfexamples:", err)
		os.Exit(2)
	}
	ms := make([]*measure, len(configs))
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, *jobs))
	for i, c := range configs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ms[i] = measureConfig(*examples, c, filepath.Join(*work, fmt.Sprintf("%03d", i)), bin, base)
			fmt.Fprintf(os.Stderr, "%s: %s\n", c, ms[i].line())
		}()
	}
	wg.Wait()
	rep := report(ms)
	fmt.Print(rep)
	if *out != "" {
		if err := os.WriteFile(*out, []byte(rep), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "pfexamples:", err)
			os.Exit(3)
		}
	}
}

// findConfigs lists the example configs: promptfooconfig*.yaml one or two
// folders down, red-team configs left out (they generate their tests with a
// model).
func findConfigs(root, only string) ([]string, error) {
	re, err := regexp.Compile(only)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, pattern := range []string{"*/promptfooconfig*.yaml", "*/*/promptfooconfig*.yaml"} {
		matches, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			rel, _ := filepath.Rel(root, m)
			data, err := os.ReadFile(m)
			if err != nil || strings.Contains(string(data), "\nredteam:") || strings.HasPrefix(rel, "redteam") {
				continue
			}
			if re.MatchString(rel) {
				out = append(out, rel)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// measure is one config's outcome.
type measure struct {
	config   string
	excluded string // why promptfoo's own run is left out
	refused  string // evalgate's import refused the config
	removed  int    // model-graded assertions removed
	rows     int
	agree    int
	// baseAgree is the rows the -baseline binary agrees on.
	baseAgree int
	diffs     []string
	notes     []string // evalgate's unsupported list
}

func (m *measure) line() string {
	switch {
	case m.excluded != "":
		return "left out: " + m.excluded
	case m.refused != "":
		return fmt.Sprintf("refused (%d rows): %s", m.rows, m.refused)
	}
	return fmt.Sprintf("%d of %d rows agree", m.agree, m.rows)
}

type row struct {
	test, prompt, provider int
	label                  string // the prompt's, promptfoo's rows only
}

func (r row) String() string {
	return fmt.Sprintf("test %d, prompt %d, provider %d", r.test, r.prompt, r.provider)
}

func measureConfig(root, config, dir, bin, baseline string) *measure {
	m := &measure{config: config}
	src := filepath.Join(root, filepath.Dir(config))
	if err := copyDir(src, dir); err != nil {
		m.excluded = "could not copy: " + err.Error()
		return m
	}
	cfg := filepath.Join(dir, filepath.Base(config))
	n, err := canned(cfg, dir)
	if err != nil {
		m.excluded = "could not rewrite: " + err.Error()
		return m
	}
	m.removed = n
	want, why := promptfooVerdicts(dir, cfg)
	if why != "" {
		m.excluded = why
		return m
	}
	m.rows = len(want)
	if baseline != "" {
		// The same rows, for the binary compared with.
		got, labels, _, refused := evalgateVerdicts(dir, cfg, baseline, "evalgate-baseline")
		if refused == "" {
			m.baseAgree, _ = compare(byLabel(want, labels), got)
		}
	}
	got, labels, notes, refused := evalgateVerdicts(dir, cfg, bin, "evalgate-import")
	m.notes = notes
	if refused != "" {
		m.refused = refused
		return m
	}
	m.agree, m.diffs = compare(byLabel(want, labels), got)
	return m
}

// compare counts the rows where evalgate gives promptfoo's verdict, and
// says where it does not.
func compare(want, got map[row]bool) (agree int, diffs []string) {
	keys := slices.SortedFunc(mapKeys(want), func(a, b row) int {
		return cmpRows(a, b)
	})
	for _, k := range keys {
		g, ok := got[k]
		switch {
		case ok && g == want[k]:
			agree++
		case !ok:
			diffs = append(diffs, fmt.Sprintf("%s: promptfoo %v, evalgate has no task", k, want[k]))
		default:
			diffs = append(diffs, fmt.Sprintf("%s: promptfoo %v, evalgate %v", k, want[k], g))
		}
	}
	return agree, diffs
}

// byLabel numbers promptfoo's rows' prompts by their place in the
// import's list of prompts (the report names each by promptfoo's label),
// where every label is found there; else they keep the order promptfoo's
// columns name them first.
func byLabel(want map[row]bool, labels []string) map[row]bool {
	out, first := map[row]bool{}, map[row]bool{}
	found := true
	for r, v := range want {
		first[row{test: r.test, prompt: r.prompt, provider: r.provider}] = v
		i := slices.Index(labels, r.label)
		found = found && i >= 0
		out[row{test: r.test, prompt: i, provider: r.provider}] = v
	}
	if !found {
		return first
	}
	return out
}

func cmpRows(a, b row) int {
	if a.provider != b.provider {
		return a.provider - b.provider
	}
	if a.test != b.test {
		return a.test - b.test
	}
	return a.prompt - b.prompt
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// canned rewrites the config at path (and the YAML or JSON test files it
// names) to run offline: echo providers, no model-graded assertions. It
// returns how many assertions it removed.
func canned(path, dir string) (int, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	var cfg map[string]any
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		return 0, err
	}
	if t, ok := cfg["targets"]; ok && cfg["providers"] == nil {
		cfg["providers"] = t
		delete(cfg, "targets")
	}
	var provs []any
	for i, p := range asList(cfg["providers"]) {
		label := fmt.Sprintf("provider-%d", i)
		entry := map[string]any{"id": "echo"}
		switch x := p.(type) {
		case string:
			label = x
		case map[string]any:
			if id, ok := x["id"].(string); ok {
				label = id
			}
			if l, ok := x["label"].(string); ok && l != "" {
				label = l
			}
			if ps, ok := x["prompts"]; ok {
				entry["prompts"] = ps
			}
		}
		// promptfoo's results name a provider by its label: two of one
		// label could not be told apart.
		for n := 2; slices.ContainsFunc(provs, func(p any) bool { return p.(map[string]any)["label"] == label }); n++ {
			label = fmt.Sprintf("%s #%d", strings.TrimSuffix(label, fmt.Sprintf(" #%d", n-1)), n)
		}
		entry["label"] = label
		provs = append(provs, entry)
	}
	if len(provs) == 0 {
		provs = []any{map[string]any{"id": "echo", "label": "echo"}}
	}
	cfg["providers"] = provs
	for _, k := range []string{"outputPath", "sharing", "extensions", "derivedMetrics", "commandLineOptions"} {
		delete(cfg, k)
	}
	removed := 0
	clean := func(t any) {
		tm, ok := t.(map[string]any)
		if !ok {
			return
		}
		delete(tm, "provider")
		if o, ok := tm["options"].(map[string]any); ok {
			delete(o, "provider")
		}
		tm["assert"], removed = stripModel(tm["assert"], removed)
		if tm["assert"] == nil {
			delete(tm, "assert")
		}
	}
	clean(cfg["defaultTest"])
	for _, t := range asList(cfg["tests"]) {
		if s, ok := t.(string); ok {
			n, err := cannedTests(s, dir)
			if err != nil {
				return 0, err
			}
			removed += n
			continue
		}
		clean(t)
	}
	for _, s := range asList(cfg["scenarios"]) {
		sm, ok := s.(map[string]any)
		if !ok {
			continue
		}
		for _, c := range asList(sm["config"]) {
			clean(c)
		}
		for _, t := range asList(sm["tests"]) {
			clean(t)
		}
	}
	out, err := yaml.Marshal(cfg)
	if err != nil {
		return 0, err
	}
	return removed, os.WriteFile(path, out, 0o644)
}

// cannedTests strips model-graded assertions from a YAML, JSON or CSV
// file of tests the config names.
func cannedTests(ref, dir string) (int, error) {
	name, ok := strings.CutPrefix(ref, "file://")
	if !ok {
		return 0, nil
	}
	ext := strings.ToLower(filepath.Ext(name))
	if ext == ".csv" && !strings.ContainsAny(name, "*?[") {
		return cannedCSV(filepath.Join(dir, name))
	}
	if ext != ".yaml" && ext != ".yml" && ext != ".json" || strings.ContainsAny(name, "*?[") {
		return 0, nil
	}
	p := filepath.Join(dir, name)
	data, err := os.ReadFile(p)
	if err != nil {
		return 0, nil // promptfoo reports it
	}
	var tests []any
	if yaml.Unmarshal(data, &tests) != nil {
		return 0, nil
	}
	removed := 0
	for _, t := range tests {
		if tm, ok := t.(map[string]any); ok {
			delete(tm, "provider")
			tm["assert"], removed = stripModel(tm["assert"], removed)
			if tm["assert"] == nil {
				delete(tm, "assert")
			}
		}
	}
	out, err := yaml.Marshal(tests)
	if err != nil {
		return 0, err
	}
	if ext == ".json" {
		if out, err = json.MarshalIndent(tests, "", "  "); err != nil {
			return 0, err
		}
	}
	return removed, os.WriteFile(p, out, 0o644)
}

// cannedCSV empties the __expected cells of a CSV of tests that a model
// decides (llm-rubric:, grade:, similar:, …).
func cannedCSV(p string) (int, error) {
	f, err := os.Open(p)
	if err != nil {
		return 0, nil // promptfoo reports it
	}
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	rows, err := r.ReadAll()
	f.Close()
	if err != nil || len(rows) == 0 {
		return 0, nil
	}
	removed := 0
	for _, row := range rows[1:] {
		for i, cell := range row {
			if i >= len(rows[0]) || !strings.HasPrefix(strings.TrimSpace(rows[0][i]), "__expected") {
				continue
			}
			typ, _, ok := strings.Cut(strings.TrimSpace(cell), ":")
			if ok && (typ == "grade" || modelGraded.MatchString(typ)) {
				row[i] = ""
				removed++
			}
		}
	}
	out, err := os.Create(p)
	if err != nil {
		return 0, err
	}
	w := csv.NewWriter(out)
	if err := w.WriteAll(rows); err != nil {
		out.Close()
		return 0, err
	}
	return removed, out.Close()
}

func stripModel(v any, removed int) (any, int) {
	list, ok := v.([]any)
	if !ok {
		return v, removed
	}
	var out []any
	for _, a := range list {
		am, ok := a.(map[string]any)
		if !ok {
			out = append(out, a)
			continue
		}
		typ, _ := am["type"].(string)
		if modelGraded.MatchString(typ) {
			removed++
			continue
		}
		delete(am, "provider")
		if typ == "assert-set" {
			am["assert"], removed = stripModel(am["assert"], removed)
			if inner, _ := am["assert"].([]any); len(inner) == 0 {
				continue
			}
		}
		out = append(out, a)
	}
	if len(out) == 0 {
		return nil, removed
	}
	return out, removed
}

func asList(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	}
	return []any{v}
}

// promptfooVerdicts runs promptfoo on the config and reads its verdict of
// each row; why is set when promptfoo could not run it offline.
func promptfooVerdicts(dir, cfg string) (map[row]bool, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	out := filepath.Join(dir, "pf.json")
	log, _ := run(ctx, dir, "promptfoo", "eval", "--no-cache", "--no-share", "--no-table", "--no-progress-bar", "-c", cfg, "-o", out)
	_ = os.WriteFile(filepath.Join(dir, "pf.log"), log, 0o644)
	data, err := os.ReadFile(out)
	if err != nil {
		return nil, "promptfoo wrote no results: " + firstError(string(log))
	}
	var res struct {
		Results struct {
			Prompts []struct {
				Label    string `json:"label"`
				Provider string `json:"provider"`
			} `json:"prompts"`
			Results []struct {
				TestIdx   int  `json:"testIdx"`
				PromptIdx int  `json:"promptIdx"`
				Success   bool `json:"success"`
				Error     any  `json:"error"`
				Provider  struct {
					ID    string `json:"id"`
					Label string `json:"label"`
				} `json:"provider"`
			} `json:"results"`
		} `json:"results"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, "promptfoo's results are not JSON: " + err.Error()
	}
	if len(res.Results.Results) == 0 {
		return nil, "promptfoo ran no rows: " + firstError(string(log))
	}
	// The columns: a provider's prompts, provider after provider. A row's
	// provider is the column's; its prompt, the column's label among all
	// the labels in the order they first appear.
	var providers, labels []string
	type col struct{ provider, prompt int }
	cols := make([]col, len(res.Results.Prompts))
	for i, c := range res.Results.Prompts {
		p := slices.Index(providers, c.Provider)
		if p < 0 {
			providers = append(providers, c.Provider)
			p = len(providers) - 1
		}
		// promptfoo names a prompt file by its absolute path or by its
		// path from the config's folder; the import, by the latter.
		label := strings.ReplaceAll(c.Label, dir+string(filepath.Separator), "")
		l := slices.Index(labels, label)
		if l < 0 {
			labels = append(labels, label)
			l = len(labels) - 1
		}
		cols[i] = col{p, l}
	}
	want := map[row]bool{}
	for _, r := range res.Results.Results {
		if r.PromptIdx >= len(cols) {
			return nil, "promptfoo's results name a column it does not list"
		}
		c := cols[r.PromptIdx]
		want[row{test: r.TestIdx, prompt: c.prompt, provider: c.provider, label: labels[c.prompt]}] = r.Success
	}
	return want, ""
}

func firstError(log string) string {
	for _, line := range strings.Split(log, "\n") {
		l := strings.TrimSpace(line)
		if strings.Contains(strings.ToLower(l), "error") {
			return cut(l, 160)
		}
	}
	return cut(strings.TrimSpace(log), 160)
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// evalgateVerdicts imports the config, runs every project file the import
// wrote and reads each row's verdict. refused is the import's error when it
// refused the config.
func evalgateVerdicts(dir, cfg, bin, folder string) (got map[row]bool, labels, notes []string, refused string) {
	eg := filepath.Join(dir, folder)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	log, ok := run(ctx, dir, bin, "import", "promptfoo", cfg, "--out", eg)
	if !ok {
		return nil, nil, nil, cut(strings.TrimSpace(string(log)), 300)
	}
	var rep struct {
		Prompts []struct {
			Label string `json:"label"`
		} `json:"prompts"`
		Tasks []struct {
			SuiteID   string `json:"suiteId"`
			TaskID    string `json:"taskId"`
			TestIdx   int    `json:"testIdx"`
			PromptIdx int    `json:"promptIdx"`
		} `json:"tasks"`
		Providers []struct {
			Project string `json:"project"`
		} `json:"providers"`
		Mapped []struct {
			Type string `json:"type"`
			To   string `json:"to"`
		} `json:"mapped"`
		Unsupported []struct {
			Location string `json:"location"`
			Type     string `json:"type"`
			Reason   string `json:"reason"`
		} `json:"unsupported"`
	}
	data, err := os.ReadFile(filepath.Join(eg, "import-report.json"))
	if err != nil || json.Unmarshal(data, &rep) != nil {
		return nil, nil, nil, "no import-report.json"
	}
	for _, p := range rep.Prompts {
		labels = append(labels, p.Label)
	}
	for _, u := range rep.Unsupported {
		notes = append(notes, fmt.Sprintf("%s (%s): %s", u.Location, u.Type, u.Reason))
	}
	var projects []string
	for _, p := range rep.Providers {
		projects = append(projects, p.Project)
	}
	if len(projects) == 0 { // an import from before the report listed its providers
		for _, m := range rep.Mapped {
			if file, ok := strings.CutPrefix(m.To, "agent of "); ok && strings.HasPrefix(m.Type, "provider ") {
				projects = append(projects, file)
			}
		}
	}
	got = map[row]bool{}
	for p, project := range projects {
		out := fmt.Sprintf("out-%d", p)
		if log, ok := run(ctx, eg, bin, "run", "--config", project, "--out", out, "--gate", "true", "--quiet"); !ok {
			notes = append(notes, fmt.Sprintf("run of %s: %s", project, cut(strings.TrimSpace(string(log)), 200)))
			continue
		}
		var res struct {
			Suites []struct {
				SuiteID string `json:"suiteId"`
				Tasks   []struct {
					ID     string `json:"taskId"`
					Passed bool   `json:"passed"`
				} `json:"tasks"`
			} `json:"suites"`
		}
		data, err := os.ReadFile(filepath.Join(eg, out, "results.json"))
		if err != nil || json.Unmarshal(data, &res) != nil {
			continue
		}
		verdict := map[string]bool{}
		for _, s := range res.Suites {
			for _, t := range s.Tasks {
				verdict[s.SuiteID+"\x00"+t.ID] = t.Passed
			}
		}
		for _, t := range rep.Tasks {
			if v, ok := verdict[t.SuiteID+"\x00"+t.TaskID]; ok {
				got[row{test: t.TestIdx, prompt: t.PromptIdx, provider: p}] = v
			}
		}
	}
	return got, labels, notes, ""
}

// run runs a command in dir through evalgate's one process lifecycle: its
// output and errors, and whether it exited 0.
func run(ctx context.Context, dir string, args ...string) ([]byte, bool) {
	var out bytes.Buffer
	p, err := process.Run(ctx, process.Spec{Command: args, Dir: dir, Env: os.Environ(), MaxStdoutBytes: 64 << 20, MaxStderrBytes: 1 << 20}, &out)
	if p == nil {
		return []byte(err.Error()), false
	}
	out.Write(p.Stderr())
	return out.Bytes(), err == nil && p.Success()
}

func report(ms []*measure) string {
	var b strings.Builder
	rows, agree, configs, left, refused, removed, baseAgree := 0, 0, 0, 0, 0, 0, 0
	for _, m := range ms {
		if m.excluded != "" {
			left++
			continue
		}
		configs++
		rows += m.rows
		agree += m.agree
		baseAgree += m.baseAgree
		removed += m.removed
		if m.refused != "" {
			refused++
		}
	}
	pct := 0.0
	if rows > 0 {
		pct = 100 * float64(agree) / float64(rows)
	}
	fmt.Fprintf(&b, "# promptfoo's examples: %d of %d rows agree (%.1f%%) on %d configs\n\n", agree, rows, pct, configs)
	fmt.Fprintf(&b, "%d configs refused by the import; %d model-graded assertions removed; %d configs left out (promptfoo could not run them offline).\n\n", refused, removed, left)
	if baseAgree > 0 && rows > 0 {
		fmt.Fprintf(&b, "The -baseline binary, on the same rows: %d of %d agree (%.1f%%).\n\n", baseAgree, rows, 100*float64(baseAgree)/float64(rows))
	}
	b.WriteString("| config | rows | agree | -baseline | note |\n|---|---|---|---|---|\n")
	for _, m := range ms {
		if m.excluded != "" {
			continue
		}
		note := ""
		if m.refused != "" {
			note = "refused: " + m.refused
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s |\n", m.config, m.rows, m.agree, m.baseAgree, strings.ReplaceAll(note, "|", "\\|"))
	}
	b.WriteString("\n## Differences\n")
	for _, m := range ms {
		if m.excluded != "" || m.agree == m.rows {
			continue
		}
		fmt.Fprintf(&b, "\n### %s\n\n", m.config)
		for _, d := range m.diffs {
			fmt.Fprintf(&b, "- %s\n", d)
		}
		for _, n := range m.notes {
			fmt.Fprintf(&b, "- not imported: %s\n", n)
		}
	}
	b.WriteString("\n## Left out\n\n")
	for _, m := range ms {
		if m.excluded != "" {
			fmt.Fprintf(&b, "- %s: %s\n", m.config, strings.ReplaceAll(m.excluded, "\n", " "))
		}
	}
	return b.String()
}

// copyDir copies the regular files and folders of src into dst, leaving
// out node_modules and virtual environments.
func copyDir(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			if d.Name() == "node_modules" || d.Name() == ".venv" || d.Name() == "venv" {
				return filepath.SkipDir
			}
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		info, err := in.Stat()
		if err != nil {
			return err
		}
		out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, info.Mode().Perm())
		if err != nil {
			return err
		}
		_, err = io.Copy(out, in)
		return errors.Join(err, out.Close())
	})
}
