package promptfoo

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// provider is an agent for evalgate.yaml.
type provider struct {
	id, label string
	agent     string // the agent block, YAML
	// prompts is its prompts filter (promptfoo's providers[].prompts):
	// the labels of the prompts it runs; filtered is set when it has one.
	prompts  []string
	filtered bool
	// chat is set for an agent that takes a list of messages (a model's):
	// a chat prompt is its messages, where a plain agent gets the text
	// promptfoo's provider gets, the messages as indented JSON.
	chat bool
}

// vendors are the OpenAI-compatible endpoints of providers promptfoo
// names by vendor: the base URL and the variable holding the key.
var vendors = map[string][2]string{
	"openai":    {"https://api.openai.com/v1", "OPENAI_API_KEY"},
	"anthropic": {"https://api.anthropic.com/v1", "ANTHROPIC_API_KEY"},
	"google":    {"https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY"},
	"vertex":    {"https://generativelanguage.googleapis.com/v1beta/openai", "GEMINI_API_KEY"},
	"azure":     {"https://YOUR-RESOURCE.openai.azure.com/openai/v1", "AZURE_OPENAI_API_KEY"},
}

func (im *importer) providers(v any) []provider {
	var out []provider
	var list []any
	if m, ok := v.(map[string]any); ok && m["id"] == nil {
		// {openai:gpt-4o: {config: …}}, one provider a key
		for _, k := range im.keyOrder(m) {
			entry, _ := m[k].(map[string]any)
			e := map[string]any{"id": k}
			for kk, vv := range entry {
				e[kk] = vv
			}
			if id, ok := entry["id"].(string); ok {
				e["id"] = id
			}
			list = append(list, e)
		}
	} else {
		list = asList(v)
	}
	for i, p := range list {
		loc := fmt.Sprintf("providers[%d]", i)
		label := ""
		var settings map[string]any // the provider's config
		pr := provider{}
		if m, ok := p.(map[string]any); ok {
			label, _ = m["label"].(string)
			for _, k := range slices.Sorted(maps.Keys(m)) {
				switch k {
				case "id", "label":
				case "config":
					if settings, ok = m[k].(map[string]any); !ok {
						im.unsupported(loc+".config", "config", "expected a mapping of settings")
					}
				case "prompts":
					pr.filtered = true
					for _, x := range asList(m[k]) {
						if s, ok := x.(string); ok {
							pr.prompts = append(pr.prompts, s)
						}
					}
					im.mapped(loc+".prompts", "prompts", "the tasks of its project file: only the prompts it names")
				case "delay":
					im.mapped(loc+".delay", "delay", "nothing: a pause between calls does not change a verdict")
				case "transform":
					im.unsupported(loc+".transform", "transform", "a provider's transform is not imported: put it on the tests (defaultTest.options.transform), which the import runs before their checks")
				default:
					im.unsupported(loc+"."+k, k, "evalgate has no counterpart for this provider setting")
				}
			}
			p = m["id"]
		}
		id, ok := p.(string)
		if !ok {
			im.unsupported(loc, "provider", "expected a provider id")
			continue
		}
		pr.id, pr.label = id, cmp.Or(label, id)
		vendor, model, _ := strings.Cut(id, ":")
		// others reports the settings a provider does not take.
		others := func(taken ...string) {
			for _, k := range slices.Sorted(maps.Keys(settings)) {
				if !slices.Contains(taken, k) {
					im.unsupported(loc+".config."+k, k, "evalgate's agent for this provider has no counterpart for this setting")
				}
			}
		}
		switch {
		case strings.HasPrefix(id, "file://"):
			agent, why := im.scriptProvider(strings.TrimPrefix(id, "file://"), settings)
			if why != "" {
				im.unsupported(loc, "provider "+id, why)
				continue
			}
			if len(settings) > 0 {
				im.mapped(loc+".config", "config", "the provider's config, as promptfoo gives it (options.config in Python, the constructor's config in JavaScript)")
			}
			pr.agent = agent
		case id == "echo":
			pr.agent = "  plain: [cat]\n"
			others()
		case vendor == "exec":
			pr.agent = im.execProvider(strings.TrimSpace(model))
			others()
		case vendors[vendor] != [2]string{} && model != "":
			m := model
			for _, pre := range []string{"chat:", "messages:", "completion:"} {
				m = strings.TrimPrefix(m, pre)
			}
			ep := vendors[vendor]
			pr.chat = true
			pr.agent = fmt.Sprintf("  openai:\n    baseURL: %s\n    model: %s\n    apiKeyEnv: %s\n", ep[0], strconv.Quote(m), ep[1])
			if t, ok := number(settings["temperature"]); ok {
				pr.agent += "    temperature: " + strconv.FormatFloat(t, 'g', -1, 64) + "\n"
				im.mapped(loc+".config.temperature", "temperature", "agent.openai.temperature")
				others("temperature")
			} else {
				others()
			}
		default:
			im.unsupported(loc, "provider "+id, "evalgate has no agent for this provider; set agent in evalgate.yaml by hand")
			continue
		}
		im.mapped(loc, "provider "+id, "agent of "+projectFile(len(out), pr.label))
		out = append(out, pr)
	}
	return out
}

// providerAllowed is promptfoo's test of a test's providers filter: the
// list names the provider's label or id, exactly, as a prefix ending in
// *, or as the part before its ":".
func providerAllowed(p provider, allowed []string, filtered bool) bool {
	if !filtered {
		return true
	}
	for _, ref := range allowed {
		if p.label == ref || p.id == ref {
			return true
		}
		if pre, ok := strings.CutSuffix(ref, "*"); ok && (strings.HasPrefix(p.label, pre) || strings.HasPrefix(p.id, pre)) {
			return true
		}
		if strings.HasPrefix(p.label, ref+":") || strings.HasPrefix(p.id, ref+":") {
			return true
		}
	}
	return false
}

// scriptProvider wraps a Python or JavaScript provider file as a plain
// agent: a runner reads the prompt on stdin and calls the file's call_api
// (callApi) as promptfoo does.
func (im *importer) scriptProvider(ref string, settings map[string]any) (string, string) {
	file, fn, _ := strings.Cut(ref, ":")
	runner, interp := "provider.py", "python3"
	switch strings.ToLower(filepath.Ext(file)) {
	case ".py":
	case ".js", ".cjs":
		if fn != "" {
			return "", "a JavaScript provider naming an export is not wrapped"
		}
		runner, interp = "provider.cjs", "node"
	default:
		return "", "expected a .py or .js provider file"
	}
	p, _ := im.resolve(file)
	if _, _, err := im.readFile(p, file); err != nil {
		return "", "could not read " + file + ": " + err.Error()
	}
	rel := im.fromOut(p)
	data, _ := runners.ReadFile("runners/" + runner)
	im.files["providers/"+runner] = data
	args := []string{interp, "providers/" + runner}
	if len(settings) > 0 {
		cfg, err := json.Marshal(settings)
		if err != nil {
			return "", "its config is not JSON: " + err.Error()
		}
		args = append(args, "--config", string(cfg))
	}
	args = append(args, filepath.ToSlash(rel))
	if fn != "" {
		args = append(args, fn)
	}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = strconv.Quote(a)
	}
	return "  plain: [" + strings.Join(quoted, ", ") + "]   # the prompt on stdin, the provider's output on stdout\n", ""
}

// execProvider runs an exec: command as promptfoo does: in the config's
// folder (so a script named relative to it is found), the prompt as its
// argument.
func (im *importer) execProvider(cmd string) string {
	script := "exec " + cmd + ` "$(cat)"`
	if dir := im.fromOut(im.dir); dir != "." {
		script = "cd '" + strings.ReplaceAll(dir, "'", `'\''`) + "' && " + script
	}
	return fmt.Sprintf("  plain: [/bin/sh, -c, %s]\n", strconv.Quote(script))
}

// projectFile names the project file of the i-th provider.
func projectFile(i int, label string) string {
	if i == 0 {
		return "evalgate.yaml"
	}
	return "evalgate." + slug(label) + ".yaml"
}
