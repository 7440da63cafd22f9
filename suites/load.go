package suites

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync/atomic"

	"golang.org/x/sync/errgroup"

	"github.com/evalgate/evalgate/internal/inputfile"
)

// Parse reads one suite file: it parses the JSON or YAML (by the file's
// extension, else by its first character), validates it against the suite
// schema, decodes it and runs the semantic checks. On any problem it
// returns a nil suite and an Errors holding every problem found.
func Parse(path string, data []byte) (*Suite, error) {
	s, errs := parse(path, data)
	if len(errs) > 0 {
		return nil, errs.Sort()
	}
	return s, nil
}

func parse(path string, data []byte) (*Suite, Errors) {
	s, _, errs := parseData(path, data, false)
	return s, errs
}

// parseData parses a suite; inFile says data is what the file at path holds,
// so compact tasks may be kept as their place in it. dataFiles are the
// files the suite reads as data, named even when the suite is not valid.
func parseData(path string, data []byte, inFile bool) (s *Suite, dataFiles []string, errs Errors) {
	trimmed := bytes.TrimPrefix(data, utf8BOM)
	b := newBuilder(path, false)
	if inFile {
		b.fileOffset = len(data) - len(trimmed)
	}
	data = trimmed
	s, errs = b.build(data)
	if b.badExpr.Load() {
		// An expression does not compile. The checks beside decoding only
		// say so; decoding again with the checks in place reports it at
		// each of its uses, in the same words as every other problem.
		again := newBuilder(path, true)
		again.fileOffset = b.fileOffset
		s, errs = again.build(data)
		b = again
	}
	return s, b.d.dataFiles, errs
}

// build reads data, a suite file without its byte order mark.
func (b *builder) build(data []byte) (*Suite, Errors) {
	var root *value
	var errs Errors
	if isJSON(b.file, data) {
		// JSON tasks are validated and decoded as the reader meets them, and
		// their trees dropped: a 100,000-task suite never has more than a
		// few tasks' trees in memory (#6).
		root, errs = parseJSONStream(b.file, data, b.task)
	} else {
		root, errs = parseYAML(b.file, data)
		if errs == nil {
			for i, tv := range objects(root.get("tasks")) {
				b.task(i, tv, -1, -1)
			}
		}
	}
	if errs == nil {
		b.expandDatasets(root)
	}
	return b.finish(root, errs)
}

// builder validates and decodes a suite one task at a time. The checks
// that need no more than the task in hand, schema validation of each task
// and type-checking each expression, run on other goroutines, beside
// decoding: the time to the first agent is mostly theirs (#6).
//
// The checkers are an errgroup of one goroutine per processor, each with
// its own slot for what it finds, but they are fed through a channel
// rather than given a goroutine per check: the checks stream out of the
// decoder while it reads the file, the channel's buffer lets it run ahead
// of the checkers without waiting for one to be free, and its bound keeps
// at most that many task trees in memory (a goroutine per check, waiting
// for its turn under SetLimit, would hold the decoder up instead).
type builder struct {
	file    string
	d       *decoder
	s       *Suite
	first   *value        // the first task's tree, validated with the suite itself
	pending []compactForm // each task's, until the suite is known to be large
	scratch bytes.Buffer
	// fileOffset is where the data parsed starts in the suite file, or -1
	// when the data is not known to be the file's.
	fileOffset int
	arena      []byte // where the JSON of compact tasks is kept, a chunk at a time

	checks   chan check // to the checkers, while the file is decoded
	checkers errgroup.Group
	found    []Errors // what each checker found, once checks is closed
	// badExpr is set by a checker when an expression does not compile, or
	// when exprNodes, the nodes of the expressions checked, go past
	// MaxExprNodes.
	badExpr   atomic.Bool
	exprNodes atomic.Int64
	// inlineErrs are the problems of the tasks validated in place.
	inlineErrs Errors
}

// check is one check run beside decoding: the schema validation of the
// task at index, or the type-check of the expression expr.
type check struct {
	index int
	tree  *value
	expr  string
}

// newBuilder starts a builder for file. Unless inPlace, expressions are
// type-checked beside decoding, and a bad one only sets badExpr.
func newBuilder(file string, inPlace bool) *builder {
	b := &builder{
		file:       file,
		fileOffset: -1,
		d:          &decoder{file: file},
		s:          &Suite{Path: file},
		checks:     make(chan check, 256),
		found:      make([]Errors, max(1, runtime.GOMAXPROCS(0))),
	}
	if !inPlace {
		b.d.checkExpr = func(src string) { b.checks <- check{expr: src} }
	}
	for w := range b.found {
		b.checkers.Go(func() error {
			b.found[w] = b.checker()
			return nil
		})
	}
	return b
}

// checker runs checks until there are no more, and returns what it found.
func (b *builder) checker() (errs Errors) {
	for c := range b.checks {
		if c.tree != nil {
			errs = append(errs, suiteSchema.validateTask(b.file, c.tree, c.index)...)
		} else if b.exprNodes.Load() > int64(exprNodeBudget) {
			b.badExpr.Store(true) // reported when decoding again; no need to check more
		} else if n, err := checkExprNodes(c.expr); err != nil || b.exprNodes.Add(int64(n)) > int64(exprNodeBudget) {
			b.badExpr.Store(true)
		}
	}
	return errs
}

// inlineAbove is the size of a task's JSON, in bytes, past which its
// tree is validated here rather than queued for a checker: the queue may
// hold a few hundred trees, and a task may hold MaxTaskValues values.
const inlineAbove = 64 << 10

// task takes the task at index i of the suite's task list.
func (b *builder) task(i int, tv *value, start, end int) {
	switch {
	case i == 0:
		b.first = tv // validated with the rest of the suite in finish
	case end-start > inlineAbove:
		b.inlineErrs = append(b.inlineErrs, suiteSchema.validateTask(b.file, tv, i)...)
	default:
		b.checks <- check{index: i, tree: tv}
	}
	b.d.addTask(b.s, tv, i)
	b.compact(tv, start, end)
}

// compactAbove is the number of tasks past which a suite keeps its tasks
// compact: the JSON of each and what selection, modes and reports need,
// decoded again for each trial by Suite.Full. A decoded task is several
// times its JSON, and a 100,000-task suite must run in bounded memory (#6).
var compactAbove = 2000

// compact keeps the task just decoded compact once the suite is large, and
// the ones before it when it becomes large. A task read from a JSON file
// (start >= 0) is kept as where it is in the file; others as their JSON.
func (b *builder) compact(tv *value, start, end int) {
	var form compactForm
	if start >= 0 && b.fileOffset >= 0 {
		form.span = [2]int64{int64(b.fileOffset + start), int64(b.fileOffset + end)}
	} else {
		b.scratch.Reset()
		tv.write(&b.scratch, "", "")
		form.body = b.keep(b.scratch.Bytes())
	}
	b.compactForm(form)
}

// compactForm keeps the task just decoded as form once the suite is large,
// and the ones before it when it becomes large.
func (b *builder) compactForm(form compactForm) {
	t := b.s.Tasks[len(b.s.Tasks)-1]
	if b.d.compact {
		t.makeCompact(form)
		return
	}
	b.pending = append(b.pending, form)
	if len(b.s.Tasks) > compactAbove {
		b.d.compact = true
		for k, t := range b.s.Tasks {
			t.makeCompact(b.pending[k])
		}
		b.pending = nil
	}
}

// keep copies p into the builder's arena: the JSON of 100,000 tasks in a
// few large chunks rather than as many small allocations, each rounded up.
func (b *builder) keep(p []byte) []byte {
	const chunk = 1 << 20
	if cap(b.arena)-len(b.arena) < len(p) {
		b.arena = make([]byte, 0, max(chunk, len(p)))
	}
	start := len(b.arena)
	b.arena = append(b.arena, p...)
	return b.arena[start:len(b.arena):len(b.arena)]
}

// finish validates and decodes the suite-level fields once the whole file
// is read; errs are the reader's.
func (b *builder) finish(root *value, errs Errors) (*Suite, Errors) {
	close(b.checks)
	b.checkers.Wait()
	taskErrs := slices.Concat(b.found...)
	if errs != nil {
		return nil, errs
	}
	// The suite is validated with its first task in its task list: the
	// others were validated on their own.
	tasks := root.getField("tasks")
	if tasks != nil && tasks.val.kind == kindArray {
		list := *tasks.val
		list.items = nil
		if b.first != nil {
			list.items = []*value{b.first}
		}
		tasks.val = &list
	}
	errs = append(suiteSchema.validateWhole(b.file, root), taskErrs...)
	if root.kind == kindObject && root.get("tasks") == nil && root.get("datasets") == nil {
		errs = append(errs, &Error{Pos: b.d.pos(root), Message: `missing required key "tasks"; expected tasks, datasets of rows that make tasks, or both`, Kind: ErrSchema})
	}
	errs = append(errs, b.inlineErrs...)
	s := b.d.suite(root)
	s.Tasks = b.s.Tasks
	s.datasets = b.s.datasets
	b.pending = nil
	errs = append(errs, b.d.errs...)
	if len(errs) > 0 {
		return nil, errs
	}
	b.d.shareExprs(s)
	s.DataFiles = b.d.dataFiles
	return s, nil
}

// utf8BOM is skipped at the start of a file; some editors write it.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// parseTree parses a file into the position-keeping tree.
func parseTree(path string, data []byte) (*value, Errors) {
	data = bytes.TrimPrefix(data, utf8BOM)
	if isJSON(path, data) {
		return parseJSON(path, data)
	}
	return parseYAML(path, data)
}

// isJSON decides the syntax: .json files are JSON, .yaml and .yml are YAML,
// anything else is JSON when it starts with "{".
func isJSON(path string, data []byte) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".json":
		return true
	case ".yaml", ".yml":
		return false
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// Load reads the suites in paths: files, or folders walked recursively for
// .json, .yaml and .yml files in name order, skipping hidden files and
// folders. It returns every suite that loaded; the error, when not nil, is
// an Errors with every problem of every file, including a suiteId that two
// files define.
func Load(paths ...string) ([]*Suite, error) {
	return LoadWith(nil, paths...)
}

// A ParseHook is called before Load parses a suite file, with the file's
// path, its size in bytes and whether it is JSON; Load calls the function
// it returns when the parse ends. The command layer uses it to set the
// process's garbage collector for the file (internal/memtune).
type ParseHook func(path string, size int, json bool) (done func())

// LoadWith is Load with hook, when not nil, around the parse of each file.
func LoadWith(hook ParseHook, paths ...string) ([]*Suite, error) {
	files, errs := suiteFiles(paths)
	// Each file's outcome is kept until every suite has said which files
	// it reads as data (fixtures.stateFile): those are not suites, and
	// what parsing them as suites found is dropped.
	type loaded struct {
		file string
		s    *Suite
		data []byte
		errs Errors
	}
	var all []loaded
	data := map[string]bool{}
	for _, f := range files {
		raw, e := readSuite("", f)
		if e != nil {
			all = append(all, loaded{file: f, errs: Errors{e}})
			continue
		}
		var done func()
		if hook != nil {
			done = hook(f, len(raw), isJSON(f, bytes.TrimPrefix(raw, utf8BOM)))
		}
		s, dataFiles, ferrs := parseData(f, raw, true)
		if done != nil {
			done()
		}
		for _, df := range dataFiles {
			data[dataKey(df)] = true
		}
		if len(ferrs) > 0 {
			all = append(all, loaded{file: f, errs: ferrs})
			continue
		}
		all = append(all, loaded{file: f, s: s, data: raw})
	}
	var suites []*Suite
	defined := map[string]*Suite{}
	for _, l := range all {
		if data[dataKey(l.file)] {
			continue
		}
		if l.s == nil {
			errs = append(errs, l.errs...)
			continue
		}
		if prev, ok := defined[l.s.ID]; ok {
			errs = append(errs, suiteIDClash(l.s, l.data, prev))
			continue
		}
		defined[l.s.ID] = l.s
		suites = append(suites, l.s)
	}
	return suites, errs.Err()
}

// dataKey is how a data file and a walked file are told to be the same:
// the absolute path with links resolved.
func dataKey(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// suiteIDClash reports a suite whose id another file defined first, at
// the second file's suiteId.
func suiteIDClash(s *Suite, data []byte, prev *Suite) *Error {
	e := &Error{
		Pos:     s.Pos,
		Pointer: "/suiteId",
		Message: fmt.Sprintf("suite id %q is already defined in %s", s.ID, prev.Path),
		Kind:    ErrSemantic,
	}
	if root, errs := parseTree(s.Path, data); errs == nil {
		if f := root.getField("suiteId"); f != nil {
			e.Pos = Pos{File: s.Path, Line: f.val.line, Col: f.val.col}
		}
	}
	return e
}

// suiteFiles expands paths into the suite files to read, each once. A
// path named directly must be a regular file or a folder, after resolving
// symbolic links; a folder is walked, as resolved, and a file found in it
// that is a symbolic link must resolve to a regular file inside it: a
// link committed to a repository must not make evalgate read, and quote
// in its errors, a file from elsewhere on the machine (/dev/zero, a
// secret).
func suiteFiles(paths []string) ([]string, Errors) {
	var files []string
	var errs Errors
	seen := map[string]bool{}
	add := func(p string) {
		// A file is the same file under every name: a link to a suite
		// beside it does not load it twice.
		key, err := filepath.EvalSymlinks(p)
		if err == nil {
			key, err = filepath.Abs(key)
		}
		if err != nil {
			key = filepath.Clean(p)
		}
		if !seen[key] {
			seen[key] = true
			files = append(files, p)
		}
	}
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			errs = append(errs, ioError(root, "could not read suite path", err))
			continue
		}
		if !info.IsDir() {
			if !info.Mode().IsRegular() {
				errs = append(errs, notRegular(root, info.Mode()))
				continue
			}
			add(root)
			continue
		}
		// The folder is walked as resolved (WalkDir does not follow a
		// link, not even the root's), and its files named under root.
		// A folder that holds no suite file is a mistake, said as such
		// rather than as an empty selection.
		found, failed := 0, len(errs)
		real, err := filepath.EvalSymlinks(root)
		if err != nil {
			errs = append(errs, ioError(root, "could not read suite folder", err))
			continue
		}
		name := func(p string) string {
			if real == root {
				return p
			}
			rel, _ := filepath.Rel(real, p)
			return filepath.Join(root, rel)
		}
		err = filepath.WalkDir(real, func(p string, de fs.DirEntry, err error) error {
			if err != nil {
				errs = append(errs, ioError(name(p), "could not read suite folder", err))
				return nil
			}
			hidden := p != real && strings.HasPrefix(de.Name(), ".")
			if de.IsDir() {
				if hidden {
					return filepath.SkipDir
				}
				return nil
			}
			switch strings.ToLower(filepath.Ext(p)) {
			case ".json", ".yaml", ".yml":
			default:
				return nil
			}
			if hidden {
				return nil
			}
			if e := insideFolder(name(p), p, real, de); e != nil {
				errs = append(errs, e)
				return nil
			}
			found++
			add(name(p))
			return nil
		})
		if err != nil {
			errs = append(errs, ioError(root, "could not read suite folder", err))
		}
		if found == 0 && len(errs) == failed {
			errs = append(errs, &Error{Pos: Pos{File: root}, Message: "no suite files in " + root +
				" (a suite is a .json, .yaml or .yml file; hidden files and folders are skipped)", Kind: ErrIO})
		}
	}
	return files, errs
}

// insideFolder checks a suite file found at p in the resolved folder real
// (named as shown): a regular file, or a symbolic link to one inside real.
func insideFolder(shown, p, real string, de fs.DirEntry) *Error {
	if de.Type().IsRegular() {
		return nil
	}
	if de.Type()&fs.ModeSymlink == 0 {
		info, err := de.Info()
		if err != nil {
			return ioError(shown, "could not read suite", err)
		}
		return notRegular(shown, info.Mode())
	}
	target, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ioError(shown, "could not read suite", err)
	}
	if !within(real, target) {
		return &Error{Pos: Pos{File: shown}, Message: fmt.Sprintf("the file is a symbolic link to %s, outside the folder; expected a suite inside the folder it was found in", target), Kind: ErrIO}
	}
	info, err := os.Stat(target)
	if err != nil {
		return ioError(shown, "could not read suite", err)
	}
	if !info.Mode().IsRegular() {
		return notRegular(shown, info.Mode())
	}
	return nil
}

// within reports whether path, resolved, is the folder dir, resolved, or
// inside it (inputfile.Within, the one reader's own test).
func within(dir, path string) bool { return inputfile.Within(dir, path) }

// notRegular reports a suite path that is neither a regular file nor a
// folder.
func notRegular(path string, mode fs.FileMode) *Error {
	what := (&inputfile.NotRegularError{Mode: mode}).What()
	return &Error{Pos: Pos{File: path}, Message: fmt.Sprintf("expected a suite file (a regular file), found %s", what), Kind: ErrIO}
}

// ReadFile reads the suite file at path: a regular file (after resolving
// symbolic links) of at most MaxSuiteBytes, or MaxYAMLBytes when it is
// YAML, read through a limit so that a file that grows, or is not what it
// said, cannot exhaust memory. The error is an *Error of kind ErrIO.
func ReadFile(path string) ([]byte, error) {
	data, err := readSuite("", path)
	if err != nil {
		return nil, err
	}
	return data, nil
}

// readSuite is ReadFile with the problem as it is reported, of a file
// that must stay inside root ("" for none).
func readSuite(root, path string) ([]byte, *Error) {
	limit := int64(MaxSuiteBytes)
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml":
		limit = MaxYAMLBytes
	}
	data, err := inputfile.ReadIn(root, path, limit)
	if nr, ok := errors.AsType[*inputfile.NotRegularError](err); ok {
		return nil, notRegular(path, nr.Mode)
	}
	if tl, ok := errors.AsType[*inputfile.TooLargeError](err); ok {
		return nil, tooLarge(path, tl.Size, limit)
	}
	if err != nil {
		return nil, ioError(path, "could not read suite", err)
	}
	if n := int64(len(data)); n > MaxYAMLBytes && !isJSON(path, bytes.TrimPrefix(data, utf8BOM)) {
		return nil, tooLarge(path, n, MaxYAMLBytes)
	}
	return data, nil
}

// tooLarge reports a suite file over its size limit.
func tooLarge(path string, size, limit int64) *Error {
	msg := fmt.Sprintf("the file is %d bytes; expected a suite of at most %d bytes (%d MiB)", size, limit, limit>>20)
	if limit == MaxYAMLBytes {
		msg = fmt.Sprintf("the file is %d bytes; expected a YAML suite of at most %d bytes (%d MiB): YAML is parsed whole, so write a larger suite as JSON, which is read a task at a time", size, limit, limit>>20)
	}
	return &Error{Pos: Pos{File: path}, Message: msg, Kind: ErrIO}
}

// ioError names the file and keeps the operating system's reason without
// repeating the path.
func ioError(path, what string, err error) *Error {
	var pe *fs.PathError
	msg := err.Error()
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return &Error{Pos: Pos{File: path}, Message: fmt.Sprintf("%s: %s", what, msg), Kind: ErrIO}
}
