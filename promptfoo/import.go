package promptfoo

import (
	"cmp"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/evalgate/evalgate/config"
	"github.com/evalgate/evalgate/internal/inputfile"
)

// MaxConfigBytes bounds the config file and each file it names.
const MaxConfigBytes = 64 << 20

// importSteps is the fixed part of the budget of each render at the
// import (a tenth of a second or so); a sheet's suite gives sheetSteps.
const (
	importSteps = 1 << 20
	sheetSteps  = 4096
)

// ErrNotPromptfoo is the error of a file that is not a promptfoo config.
var ErrNotPromptfoo = errors.New("not a promptfoo config")

// ErrNothing is the error of a promptfoo config none of whose prompts can
// be imported (every one a function, or outside the repository).
var ErrNothing = errors.New("nothing to import")

//go:embed runners/javascript.cjs runners/contains-json.cjs runners/python.py runners/provider.py runners/provider.cjs
var runners embed.FS

// Result is what an import writes: Files by path relative to the output
// folder, and the report, which Files also holds as import-report.json.
type Result struct {
	Files  map[string][]byte
	Report Report
}

// Report says what the import did: the providers it made an agent of, the
// tasks it made, each part of the config it mapped and each it could not.
type Report struct {
	Prompts     []PromptRef   `json:"prompts"`
	Providers   []ProviderRef `json:"providers"`
	Tasks       []TaskRef     `json:"tasks"`
	Mapped      []Mapped      `json:"mapped"`
	Unsupported []Unsupported `json:"unsupported"`
}

// PromptRef is a prompt of the config, by its label as promptfoo gives
// it (its results name prompts by label), and where the config names it;
// a task's PromptIdx is its place in Report.Prompts.
type PromptRef struct {
	Label    string `json:"label"`
	Location string `json:"location"`
}

// ProviderRef is a provider of the config, by its id and its label (the
// id when it has none), and the project file that runs its agent.
type ProviderRef struct {
	ID      string `json:"id"`
	Label   string `json:"label"`
	Project string `json:"project"`
}

// TaskRef is one task made from a test and a prompt, for one provider.
// TestIdx counts the tests as promptfoo does, after defaultTest is merged,
// scenarios are added and list vars are expanded, so it names the same
// test as promptfoo's results; PromptIdx is the prompt's place among all
// the config's prompts.
type TaskRef struct {
	SuiteID   string `json:"suiteId"`
	TaskID    string `json:"taskId"`
	TestIdx   int    `json:"testIdx"`
	PromptIdx int    `json:"promptIdx"`
	Provider  string `json:"provider"`
	Label     string `json:"providerLabel"`
	Project   string `json:"project"`
}

// Mapped is a part of the config and what it became.
type Mapped struct {
	Location string `json:"location"`
	Type     string `json:"type"`
	To       string `json:"to"`
}

// Unsupported is a part of the config the import could not carry over.
type Unsupported struct {
	Location string `json:"location"`
	Type     string `json:"type"`
	Reason   string `json:"reason"`
}

// Options configure Import.
type Options struct {
	// Out is the folder the files will be written into, which the
	// project files' paths to the config's own files (a script
	// provider) are relative to; "" for the current folder.
	Out string
}

// importer holds one import's state.
type importer struct {
	dir  string // the config's folder
	root string // the repository the config is in: no file outside it is read
	out  string // the folder the files are written into
	// files are what the import writes, by path in the output folder.
	files   map[string][]byte
	rep     Report
	suiteID string
	// codes are the program-check files written, by language and file, so
	// assertions of the same file share a program.
	codes map[string]string
	seen  map[string]bool // locations reported
	// judged is set when an assertion became a criterion a judge decides.
	judged bool
	// base is defaultTest, which every test starts from, and defaultTest
	// the setting as the config writes it.
	base        test
	defaultTest any
	// checks is where the suite's program checks are, relative to the
	// suite's folder: "checks" for evals/, another for a sheet's suite.
	checks string
	// quiet is set when the importer maps a sheet's rows for a run
	// (Sheet): nothing is reported or written.
	quiet bool
	// fixedSteps is the part of each render's budget of steps that does
	// not grow with the template and its vars (template.render).
	fixedSteps int
	// order holds the order of the keys of each mapping the config's
	// YAML wrote, by the map's identity: promptfoo's objects keep their
	// keys' order, which decides the order of the tests list vars make.
	order map[uintptr][]string
}

func newImporter(dir string) *importer {
	im := &importer{dir: dir, files: map[string][]byte{}, codes: map[string]string{}, seen: map[string]bool{}, checks: checksDir, order: map[uintptr][]string{}, fixedSteps: importSteps}
	im.root = (&config.Config{Dir: dir}).Root()
	if real, err := filepath.EvalSymlinks(im.root); err == nil {
		im.root = real
	}
	return im
}

// Import reads the promptfoo config at path and returns the files to
// write. A file that is not a promptfoo config is ErrNotPromptfoo.
func Import(path string, opts Options) (*Result, error) {
	data, err := configFile.Read(path)
	if err != nil {
		return nil, fmt.Errorf("could not read %s: %w", path, err)
	}
	im := newImporter(filepath.Dir(path))
	im.out = cmp.Or(opts.Out, ".")
	doc, err := im.decodeYAML(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w: %s", path, ErrNotPromptfoo, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	cfg, _ := doc.(map[string]any)
	if cfg == nil {
		return nil, fmt.Errorf("%s: %w: expected a YAML mapping with prompts, providers and tests", path, ErrNotPromptfoo)
	}
	if _, ok := cfg["suiteId"]; ok {
		return nil, fmt.Errorf("%s: %w: it is an evalgate suite (it has suiteId)", path, ErrNotPromptfoo)
	}
	if cfg["targets"] != nil && cfg["providers"] == nil {
		cfg["providers"] = cfg["targets"] // promptfoo's other name for them
		delete(cfg, "targets")
	}
	if cfg["prompts"] == nil && cfg["tests"] == nil && cfg["providers"] == nil && cfg["scenarios"] == nil {
		return nil, fmt.Errorf("%s: %w: expected a YAML mapping with prompts, providers and tests", path, ErrNotPromptfoo)
	}
	name := slug(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)))
	if d, ok := cfg["description"].(string); ok && d != "" {
		name = slug(d)
	}
	im.suiteID = "promptfoo.evals." + name
	for key := range cfg {
		switch key {
		case "description", "prompts", "providers", "tests", "defaultTest", "scenarios":
		case "outputPath", "sharing", "writeLatestResults", "tags", "metadata", "evaluateOptions":
			im.mapped(key, key, "nothing: it does not change a verdict")
		default:
			im.unsupported(key, key, "evalgate has no counterpart for this setting")
		}
	}
	var prompts []prompt
	if cfg["prompts"] == nil {
		// promptfoo then sends each test's prompt var.
		prompts = []prompt{{raw: "{{prompt}}", label: "{{prompt}}", loc: "prompts"}}
		im.mapped("prompts", "prompt", "none is set: the prompt var of each test, as promptfoo takes it ({{prompt}})")
	} else {
		prompts = im.prompts(cfg["prompts"])
	}
	for _, p := range prompts {
		im.rep.Prompts = append(im.rep.Prompts, PromptRef{Label: p.label, Location: p.loc})
	}
	providers := im.providers(cfg["providers"])
	def := im.defaultTestSetting(cfg["defaultTest"])
	im.defaultTest = def
	tests := im.tests(cfg["tests"], def, cfg["scenarios"])
	if err := im.suite(prompts, providers, tests); err != nil {
		return nil, err
	}
	slices.SortStableFunc(im.rep.Unsupported, func(a, b Unsupported) int { return strings.Compare(a.Location, b.Location) })
	rep, _ := json.MarshalIndent(im.rep, "", "  ")
	im.files["import-report.json"] = append(rep, '\n')
	return &Result{Files: im.files, Report: im.rep}, nil
}

func (im *importer) mapped(loc, typ, to string) {
	if !im.quiet && !im.seen[loc] {
		im.seen[loc] = true
		im.rep.Mapped = append(im.rep.Mapped, Mapped{Location: loc, Type: typ, To: to})
	}
}

func (im *importer) unsupported(loc, typ, reason string) {
	if !im.quiet && !im.seen["!"+loc+"\x00"+typ] {
		im.seen["!"+loc+"\x00"+typ] = true
		im.rep.Unsupported = append(im.rep.Unsupported, Unsupported{Location: loc, Type: typ, Reason: reason})
	}
}

// Files the config names.

// resolve is the path of a file the config names: ref with or without
// file://, relative to the config's folder unless absolute.
func (im *importer) resolve(ref string) (path, name string) {
	name = strings.TrimPrefix(ref, "file://")
	if filepath.IsAbs(name) {
		return name, name
	}
	return filepath.Join(im.dir, name), name
}

// readFile reads the file at path, shown as name, through the one reader
// of input files: a regular file of at most MaxConfigBytes, and inside the
// config's repository once links are resolved. A config is its author's
// input; /proc/self/environ or ../secret.txt must not end up in a suite
// (docs/security.md).
func (im *importer) readFile(path, name string) ([]byte, string, error) {
	data, err := referenced.ReadIn(im.root, absPath(path))
	if err != nil {
		return nil, name, im.readError(path, name, err)
	}
	return data, name, nil
}

// configFile is the promptfoo config an import reads.
var configFile = inputfile.Kind{What: "a promptfoo config", Limit: MaxConfigBytes, Hint: "name a promptfoo config file, such as promptfooconfig.yaml"}

// referenced is a file a promptfoo config names.
var referenced = inputfile.Kind{What: "a file the promptfoo config names", Limit: MaxConfigBytes}

// readError words why the file at path, which the config names as name,
// could not be read.
func (im *importer) readError(path, name string, err error) error {
	if out, ok := errors.AsType[*inputfile.OutsideError](err); ok {
		how := ""
		if out.Real != "" && inputfile.Within(im.root, absPath(path)) {
			how = " (through a symbolic link, to " + out.Real + ")"
		}
		return fmt.Errorf("%s is outside the config's repository%s; the import reads only files inside %s", name, how, im.root)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fs.ErrNotExist
	}
	return err
}

// readRef reads the file a config's reference (file://x) names.
func (im *importer) readRef(ref string) ([]byte, string, error) {
	p, name := im.resolve(ref)
	return im.readFile(p, name)
}

// inRepo says why path is not inside the config's repository once its
// links are resolved; nil when it is.
func (im *importer) inRepo(path, name string) error {
	real, err := filepath.EvalSymlinks(absPath(path))
	if err != nil {
		return im.readError(path, name, err)
	}
	if !inputfile.Within(im.root, real) {
		return im.readError(path, name, &inputfile.OutsideError{Root: im.root, Real: real})
	}
	return nil
}

// glob lists the files pattern matches inside the config's repository,
// with node-glob's patterns (*, ?, [..], {a,b} and **) and in the order
// promptfoo's glob gives them: in each folder its files first, then its
// folders, each by name from last to first. A folder lists as itself.
// The error says why when it matches files only outside the repository.
func (im *importer) glob(pattern string) ([]string, error) {
	if info, err := os.Stat(pattern); err == nil && info.IsDir() {
		return []string{pattern}, nil
	}
	re, base, levels, err := globRE(pattern)
	if err != nil {
		return nil, err
	}
	var out []string
	var outside error // a file it matched outside the repository
	count := 0
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		entries, err := os.ReadDir(dir)
		if err != nil || depth > levels {
			return nil
		}
		if count += len(entries); count > 100_000 {
			return errors.New("the pattern walks over 100,000 files")
		}
		slices.Reverse(entries)
		var dirs []string
		for _, e := range entries {
			p := filepath.Join(dir, e.Name())
			if e.IsDir() {
				if e.Name() != "node_modules" && e.Name() != ".git" {
					dirs = append(dirs, p)
				}
				continue
			}
			if re.MatchString(filepath.ToSlash(p)) {
				if err := im.inRepo(p, p); err == nil {
					out = append(out, p)
				} else {
					outside = err
				}
			}
		}
		for _, d := range dirs {
			if err := walk(d, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err = walk(base, 0); err == nil && len(out) == 0 && outside != nil {
		err = outside
	}
	return out, err
}

// globRE translates a glob into a regular expression over slash paths,
// the folder its walk starts from and how many folders down it goes.
func globRE(pattern string) (re *regexp.Regexp, base string, levels int, err error) {
	pattern = filepath.ToSlash(filepath.Clean(pattern))
	parts := strings.Split(pattern, "/")
	static := 0
	for static < len(parts) && !strings.ContainsAny(parts[static], "*?[{") {
		static++
	}
	base = strings.Join(parts[:static], "/")
	if base == "" {
		base = "/"
	}
	levels = len(parts) - static - 1
	if strings.Contains(pattern, "**") {
		levels = 64
	}
	var b strings.Builder
	b.WriteString("^")
	b.WriteString(regexp.QuoteMeta(base))
	for _, part := range parts[static:] {
		if part == "**" {
			b.WriteString("(?:/[^/]+)*")
			continue
		}
		b.WriteString("/")
		brace := 0
		for i := 0; i < len(part); i++ {
			switch c := part[i]; c {
			case '*':
				b.WriteString("[^/]*")
			case '?':
				b.WriteString("[^/]")
			case '[':
				j := strings.IndexByte(part[i:], ']')
				if j < 0 {
					b.WriteString(`\[`)
					continue
				}
				class := strings.Replace(part[i+1:i+j], "!", "^", 1)
				b.WriteString("[" + class + "]")
				i += j
			case '{':
				brace++
				b.WriteString("(?:")
			case '}':
				if brace > 0 {
					brace--
					b.WriteString(")")
				} else {
					b.WriteString(`\}`)
				}
			case ',':
				if brace > 0 {
					b.WriteString("|")
				} else {
					b.WriteString(",")
				}
			default:
				b.WriteString(regexp.QuoteMeta(string(c)))
			}
		}
	}
	b.WriteString("$")
	if re, err = regexp.Compile(b.String()); err != nil {
		return nil, "", 0, fmt.Errorf("the pattern %s is not a glob: %w", pattern, err)
	}
	return re, filepath.FromSlash(base), levels, nil
}

// decodeYAML decodes YAML (or JSON) and records the key order of each of
// its mappings (keyOrder).
func (im *importer) decodeYAML(data []byte) (any, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	var n yaml.Node
	if err := yaml.Unmarshal(data, &n); err == nil {
		im.recordOrder(v, &n, 0)
	}
	return v, nil
}

func (im *importer) recordOrder(v any, n *yaml.Node, depth int) {
	for n != nil && (n.Kind == yaml.DocumentNode || n.Kind == yaml.AliasNode) {
		if n.Kind == yaml.DocumentNode {
			if len(n.Content) == 0 {
				return
			}
			n = n.Content[0]
		} else {
			n = n.Alias
		}
	}
	if n == nil || depth > 256 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if n.Kind != yaml.MappingNode {
			return
		}
		var keys []string
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if k == "<<" || slices.Contains(keys, k) {
				continue
			}
			keys = append(keys, k)
			im.recordOrder(x[k], n.Content[i+1], depth+1)
		}
		for _, k := range slices.Sorted(maps.Keys(x)) {
			if !slices.Contains(keys, k) {
				keys = append(keys, k) // from a merge
			}
		}
		im.setOrder(x, keys)
	case []any:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i := range min(len(x), len(n.Content)) {
			im.recordOrder(x[i], n.Content[i], depth+1)
		}
	}
}

func mapID(m map[string]any) uintptr { return reflect.ValueOf(m).Pointer() }

func (im *importer) setOrder(m map[string]any, keys []string) {
	if im.order != nil && m != nil {
		im.order[mapID(m)] = keys
	}
}

// keyOrder is m's keys in the order the config wrote them (sorted, for a
// map it did not write).
func (im *importer) keyOrder(m map[string]any) []string {
	// A map freed since may have left its order under the same identity:
	// an order is m's only when it lists m's keys.
	if keys, ok := im.order[mapID(m)]; ok && len(keys) == len(m) && all(keys, func(k string) bool { _, ok := m[k]; return ok }) {
		return keys
	}
	return slices.Sorted(maps.Keys(m))
}

func all(keys []string, f func(string) bool) bool {
	for _, k := range keys {
		if !f(k) {
			return false
		}
	}
	return true
}

// merged is promptfoo's {...a, ...b}: b's values over a's, a's keys
// first.
func (im *importer) merged(a, b map[string]any) map[string]any {
	out := make(map[string]any, len(a)+len(b))
	var keys []string
	for _, m := range []map[string]any{a, b} {
		for _, k := range im.keyOrder(m) {
			if _, ok := out[k]; !ok {
				keys = append(keys, k)
			}
			out[k] = m[k]
		}
	}
	im.setOrder(out, keys)
	return out
}

// asList is v as a list: v itself, a one-item list of anything else, no
// items for nil. promptfoo takes one prompt, provider or test file where
// it takes a list.
func asList(v any) []any {
	switch x := v.(type) {
	case nil:
		return nil
	case []any:
		return x
	}
	return []any{v}
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// slug makes a name fit a suite id or a file name.
func slug(s string) string {
	s = strings.ToLower(s)
	s = slugRE().ReplaceAllString(s, "-")
	s = strings.Trim(s, "-")
	if s == "" {
		return "imported"
	}
	return s
}

var slugRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]+`) })

// fromOut names path relative to the output folder, where the agent runs
// (the project file's folder); an absolute path when it cannot.
func (im *importer) fromOut(path string) string { return relSlash(im.out, path) }
