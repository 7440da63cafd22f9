package promptfoo

import (
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// prompt is one of a config's prompts: its template as promptfoo holds it
// (a chat prompt as its JSON text), and its label and id, which the
// prompts filters of providers and tests name.
type prompt struct {
	raw   string
	label string
	id    string
	loc   string // where the config names it
}

// promptFileExts are the extensions promptfoo takes for a prompt file.
var promptFileExts = []string{".cjs", ".cts", ".j2", ".js", ".json", ".jsonl", ".md", ".mjs", ".mts", ".py", ".ts", ".txt", ".yml", ".yaml"}

// maybeFilePath is promptfoo's test of whether a prompt names a file: a
// file:// reference, a path with a prompt file's extension, a glob, or a
// text with a slash or an extension-like ending, unless it has a newline.
func maybeFilePath(s string) bool {
	if strings.Contains(s, "\n") || strings.Contains(s, "portkey://") || strings.Contains(s, "langfuse://") || strings.Contains(s, "helicone://") {
		return false
	}
	if strings.HasPrefix(s, "file://") || strings.ContainsAny(s, "*/\\") {
		return true
	}
	parts := strings.Split(s, ":")
	for _, ext := range promptFileExts {
		last := parts[len(parts)-1]
		if strings.HasSuffix(last, ext) || len(parts) > 1 && strings.HasSuffix(parts[len(parts)-2], ext) {
			return true
		}
	}
	u := []rune(s)
	n := len(u)
	return n >= 3 && u[n-3] == '.' || n >= 4 && u[n-4] == '.'
}

// prompts reads the config's prompts in each form promptfoo reads: a text,
// a file (a .txt of prompts between --- lines, a chat .json, a .jsonl of
// one prompt a line, .yaml, .md, .j2, a .csv of prompts), a glob, {id,
// label, raw} objects and a map of file to label. Prompts computed by code
// (.js, .py, an executable) are listed as not imported.
func (im *importer) prompts(v any) []prompt {
	type entry struct {
		raw, label, id string
		loc            string
	}
	var entries []entry
	switch x := v.(type) {
	case map[string]any:
		for _, k := range im.keyOrder(x) {
			label, _ := x[k].(string)
			entries = append(entries, entry{raw: k, label: label, loc: "prompts." + k})
		}
	default:
		for i, p := range asList(v) {
			loc := fmt.Sprintf("prompts[%d]", i)
			switch y := p.(type) {
			case string:
				entries = append(entries, entry{raw: y, loc: loc})
			case map[string]any:
				e := entry{loc: loc}
				e.raw, _ = y["raw"].(string)
				e.id, _ = y["id"].(string)
				e.label, _ = y["label"].(string)
				if e.raw == "" {
					e.raw = e.id
				}
				for _, k := range slices.Sorted(maps.Keys(y)) {
					switch k {
					case "raw", "id", "label":
					case "config":
						im.unsupported(loc+".config", "prompt config", "evalgate has no per-prompt provider settings; set them on the agent")
					default:
						im.unsupported(loc+"."+k, k, "evalgate has no counterpart for this prompt setting")
					}
				}
				if e.raw == "" {
					im.unsupported(loc, "prompt", "expected raw or id: the prompt's text or a file:// reference")
					continue
				}
				entries = append(entries, e)
			default:
				im.unsupported(loc, "prompt", "expected a text, a file:// reference or an object with raw, id and label")
			}
		}
	}
	var out []prompt
	seen := map[string]bool{}
	for _, e := range entries {
		if e.id == "" && e.label == "" {
			// promptfoo keeps one of the same texts (a file:// reference
			// made absolute): the first.
			key := e.raw
			if name, ok := strings.CutPrefix(key, "file://"); ok {
				p, _ := im.resolve(name)
				key = "file://" + absPath(p)
			}
			if seen[key] {
				im.mapped(e.loc, "prompt", "nothing: promptfoo runs the same prompt once")
				continue
			}
			seen[key] = true
		}
		ps := im.promptEntry(e.raw, e.label, e.id, e.loc, 1)
		out = append(out, ps...)
	}
	return out
}

// promptEntry reads one prompt entry as promptfoo's processPrompt does;
// depth is how many globs it may still expand.
func (im *importer) promptEntry(raw, label, id, loc string, depth int) []prompt {
	literal := func() []prompt {
		im.mapped(loc, "prompt", "the input of each task")
		return []prompt{{raw: raw, label: cmp.Or(label, raw), id: id, loc: loc}}
	}
	if strings.HasPrefix(raw, "exec:") {
		im.unsupported(loc, "prompt", "a prompt a program writes (exec:) is not imported: evalgate's task input is a fixed text or list of messages; write the prompt, or a file of prompts")
		return nil
	}
	if !maybeFilePath(raw) {
		return literal()
	}
	name := strings.TrimPrefix(raw, "file://")
	fn := ""
	if i := strings.LastIndex(name, ":"); i > 1 {
		base := name[:i]
		for _, ext := range []string{".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".py", ".go", ".rb"} {
			if strings.HasSuffix(base, ext) {
				name, fn = base, name[i+1:]
			}
		}
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(im.dir, name)
	}
	info, statErr := os.Stat(p)
	if strings.ContainsAny(name, "*?[{") || statErr == nil && info.IsDir() {
		if depth <= 0 {
			return nil
		}
		matches, err := im.glob(p)
		if err != nil {
			im.unsupported(loc, "prompt", err.Error())
			return nil
		}
		var out []prompt
		for _, m := range matches {
			ref := m
			if fn != "" {
				ref += ":" + fn
			}
			out = append(out, im.promptEntry(ref, "", "", loc, depth-1)...)
		}
		if len(out) == 0 {
			// promptfoo takes the folder's (or the pattern's) path as the
			// prompt's text.
			raw = im.shown(p)
			return literal()
		}
		return out
	}
	ext := strings.ToLower(filepath.Ext(name))
	switch ext {
	case ".js", ".cjs", ".mjs", ".ts", ".cts", ".mts", ".py":
		im.unsupported(loc, "prompt", "a prompt function ("+filepath.Base(name)+") is not imported: evalgate's task input is a fixed text or list of messages, which the function would compute for each test; write its prompts out, or in a file of prompts")
		return nil
	case ".sh", ".bash", ".exe", ".bat", ".cmd", ".ps1", ".rb", ".pl":
		im.unsupported(loc, "prompt", "a prompt a program writes ("+filepath.Base(name)+") is not imported: write its prompts out, or in a file of prompts")
		return nil
	}
	data, shown, err := im.readFile(p, name)
	if err != nil {
		im.unsupported(loc, "prompt", "could not read "+shown+": "+err.Error())
		return nil
	}
	abs := im.shown(p) // promptfoo's labels name the file as the config does
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	one := func(raw, label, kind, to string) []prompt {
		im.mapped(loc, kind, to)
		return []prompt{{raw: raw, label: label, loc: loc}}
	}
	switch ext {
	case ".txt":
		var out []prompt
		for _, raw := range splitPrompts(text) {
			l := abs + ": " + raw
			if label != "" {
				l = label + ": " + l
			}
			out = append(out, prompt{raw: raw, label: l, loc: loc})
		}
		if len(out) > 1 {
			im.mapped(loc, "prompts file", fmt.Sprintf("%d prompts, split at its --- lines: the input of each task", len(out)))
		} else {
			im.mapped(loc, "prompt", "the input of each task")
		}
		return out
	case ".json":
		raw := text
		if doc, ok := parseOrdered(text); ok {
			raw = compactJSON(doc)
		}
		return one(raw, cmp.Or(label, abs+": "+raw), "chat prompt", "the input of each task, a list of messages when it is one")
	case ".jsonl":
		var lines []string
		for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
			if line != "" {
				lines = append(lines, line)
			}
		}
		var out []prompt
		for _, line := range lines {
			l := cmp.Or(label, abs)
			if len(lines) > 1 {
				l = cmp.Or(label, abs) + ": " + line
			}
			out = append(out, prompt{raw: line, label: l, loc: loc})
		}
		im.mapped(loc, "prompts file", fmt.Sprintf("%d prompts, one a line: the input of each task", len(out)))
		return out
	case ".yaml", ".yml":
		var doc any
		raw := text
		if yaml.Unmarshal(data, &doc) == nil {
			raw = compactJSON(doc)
		}
		return one(raw, cmp.Or(label, abs+": "+cutString(raw, 80)), "chat prompt", "the input of each task, a list of messages when it is one")
	case ".md", ".j2":
		return one(text, cmp.Or(label, abs+": "+cutString(text, 50)+"..."), "prompt", "the input of each task")
	case ".csv":
		return im.csvPrompts(text, label, loc)
	}
	im.unsupported(loc, "prompt", "expected a prompt file promptfoo reads (.txt, .json, .jsonl, .yaml, .md, .j2, .csv)")
	return nil
}

// splitPrompts splits a .txt prompts file at its --- lines, as promptfoo
// does; empty prompts are dropped.
func splitPrompts(text string) []string {
	var out, buf []string
	flush := func() {
		raw := strings.TrimFunc(strings.Join(buf, "\n"), isJSSpace)
		if raw != "" {
			out = append(out, raw)
		}
		buf = buf[:0]
	}
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if strings.TrimFunc(line, isJSSpace) == "---" {
			flush()
			continue
		}
		buf = append(buf, line)
	}
	flush()
	return out
}

// csvPrompts reads a CSV of prompts: a prompt column (and a label
// column), or one prompt a line.
func (im *importer) csvPrompts(text, label, loc string) []prompt {
	var out []prompt
	if strings.Contains(text, ",") {
		r := csv.NewReader(strings.NewReader(strings.TrimPrefix(text, "\ufeff")))
		r.FieldsPerRecord = -1
		r.LazyQuotes = true
		header, err := r.Read()
		if err == nil {
			col, lcol := slices.Index(header, "prompt"), slices.Index(header, "label")
			for col >= 0 {
				rec, err := r.Read()
				if err == io.EOF {
					break
				}
				if err != nil || col >= len(rec) {
					continue
				}
				raw := strings.TrimSpace(rec[col])
				if raw == "" {
					continue
				}
				l := ""
				if lcol >= 0 && lcol < len(rec) {
					l = strings.TrimSpace(rec[lcol])
				}
				out = append(out, prompt{raw: raw, label: cmp.Or(l, label, raw), loc: loc})
			}
			if col >= 0 {
				im.mapped(loc, "prompts file", fmt.Sprintf("%d prompts, one a row: the input of each task", len(out)))
				return out
			}
		}
	}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, line := range lines {
		if strings.TrimSpace(line) == "" || i == 0 && strings.ToLower(strings.TrimSpace(line)) == "prompt" {
			continue
		}
		out = append(out, prompt{raw: line, label: cmp.Or(label, line), loc: loc})
	}
	im.mapped(loc, "prompts file", fmt.Sprintf("%d prompts, one a line: the input of each task", len(out)))
	return out
}

// promptAllowed is promptfoo's test of a prompts filter (a provider's or
// a test's): a prompt is allowed when the list names its label or id,
// exactly, as a prefix ending in *, or as the part before its ":".
func promptAllowed(p prompt, allowed []string, filtered bool) bool {
	if !filtered {
		return true
	}
	for _, ref := range allowed {
		if p.label == ref || p.id != "" && p.id == ref {
			return true
		}
		if pre, ok := strings.CutSuffix(ref, "*"); ok && (strings.HasPrefix(p.label, pre) || p.id != "" && strings.HasPrefix(p.id, pre)) {
			return true
		}
		if strings.HasPrefix(p.label, ref+":") || p.id != "" && strings.HasPrefix(p.id, ref+":") {
			return true
		}
	}
	return false
}

func cutString(s string, n int) string {
	u := []rune(s)
	if len(u) > n {
		return string(u[:n])
	}
	return s
}

// shown is path as promptfoo names it: from the config's folder.
func (im *importer) shown(path string) string {
	rel, err := filepath.Rel(absPath(im.dir), absPath(path))
	if err != nil {
		return path
	}
	return rel
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
