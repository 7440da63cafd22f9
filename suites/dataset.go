package suites

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/internal/jsonpointer"
	"github.com/evalgate/evalgate/internal/words"
)

// dataset is one entry of a suite's datasets (docs/suites.md, "Datasets"): a
// file of rows and the task template each row becomes. The suite keeps it for
// Full, which reads a compact row task's row again and expands it again.
type dataset struct {
	index    int    // in the suite's datasets list
	shown    string // the file as errors name it: the suite's folder joined with file
	real     string // the file, links resolved
	root     string // the suite's folder, links resolved, which the file must stay inside
	format   string // formatCSV, formatJSONL or formatJSON
	template *value
	fileVal  *value   // the suite's file member, where problems with the file are reported
	header   []string // CSV: the names of the columns
	// bom is the bytes of a byte order mark at the start of a CSV file,
	// which the offsets of its rows count.
	bom int64
	// repeats are the problems of the template reported so far, while the
	// rows are read.
	repeats map[repeatKey]*repeat
	// reader, when the entry reads another tool's rows (RegisterRows),
	// maps each CSV row to the row the template reads.
	reader RowReader
}

// A RowReader maps a row of a CSV file written for another tool to the row
// a dataset's task template reads: a promptfoo sheet of tests, whose
// columns are vars and assertions, becomes a row with the rendered prompt
// and the mapped expectation. Row is given the header, the row's cells and
// the line it starts at; it may be called from several goroutines.
type RowReader interface {
	Row(header, cells []string, line int) (map[string]any, error)
}

// rowReaders are the RowReaders by the dataset member that asks for them.
var rowReaders = map[string]func(settings map[string]any, dir, file string) (RowReader, error){}

// RegisterRows makes a dataset entry with the member key read its CSV rows
// through the RowReader open returns: open is given the member's settings,
// the suite's folder and the entry's file. A package registers its reader
// in its init (package promptfoo registers "promptfoo").
func RegisterRows(key string, open func(settings map[string]any, dir, file string) (RowReader, error)) {
	rowReaders[key] = open
}

// Formats of a dataset file, by its extension.
const (
	formatCSV   = "csv"
	formatJSONL = "jsonl"
	formatJSON  = "json"
)

// datasetFormats maps a dataset file's extension to its format.
var datasetFormats = map[string]string{".csv": formatCSV, ".jsonl": formatJSONL, ".ndjson": formatJSONL, ".json": formatJSON}

// row is one row of a dataset: an object whose members are its columns
// (CSV, every value a string) or its keys (JSONL, JSON), positioned in the
// dataset file.
type row struct {
	obj       *value
	line, col int      // where the row starts
	span      [2]int64 // its bytes in the file
}

// maxRowProblems is how many rows of a dataset may have problems before
// the loader stops reading it: a template mistake repeats on every row,
// and 100,000 copies of it help no one.
const maxRowProblems = 10

// expandDatasets reads the suite's datasets, in order, and adds a task for
// each row of each, after the suite's own tasks. It reads a row at a time:
// a task of a large suite keeps only its place in the dataset file.
func (b *builder) expandDatasets(root *value) {
	list := root.get("datasets")
	if list == nil || list.kind != kindArray {
		return
	}
	rows := 0
	for k, dv := range list.items {
		file, tmpl := dv.get("file"), dv.get("task")
		if file == nil || file.kind != kindString || file.lit == "" || tmpl == nil || tmpl.kind != kindObject {
			continue // the schema says what is wrong
		}
		ds := &dataset{index: k, template: tmpl, fileVal: file}
		b.s.datasets = append(b.s.datasets, ds)
		ptr := jsonpointer.AppendIndex("/datasets", k)
		if !b.openDataset(ds, file, ptr) || !b.openReader(ds, dv, ptr) || !b.checkTemplate(ds, ptr) {
			continue
		}
		if !b.readRows(ds, &rows) {
			return
		}
	}
}

// openDataset resolves the file of ds inside the suite's folder and
// checks its format; it reports a problem at file, the suite's value.
func (b *builder) openDataset(ds *dataset, file *value, ptr string) bool {
	fail := func(kind, format string, args ...any) bool {
		b.d.errs = append(b.d.errs, &Error{Pos: b.d.pos(file), Pointer: ptr + "/file", Message: fmt.Sprintf(format, args...), Kind: kind})
		return false
	}
	name := filepath.FromSlash(file.lit)
	ds.shown = filepath.Join(filepath.Dir(b.file), name)
	ext := strings.ToLower(filepath.Ext(name))
	ds.format = datasetFormats[ext]
	if ds.format == "" {
		return fail(ErrSemantic, "expected a .csv, .jsonl, .ndjson or .json file of rows, got %q", file.lit)
	}
	if filepath.IsAbs(name) {
		return fail(ErrSemantic, "expected a path relative to the suite's folder, got %q", file.lit)
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(b.file))
	if err != nil {
		return fail(ErrIO, "%s", ioError(ds.shown, "could not read the suite's folder", err).Message)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(dir, name))
	if err != nil {
		return fail(ErrIO, "%s", ioError(ds.shown, "could not read the dataset "+ds.shown, err).Message)
	}
	if !within(dir, real) {
		return fail(ErrSemantic, "the dataset %s is outside the suite's folder; expected a file inside %s", file.lit, filepath.Dir(b.file))
	}
	ds.real, ds.root = real, dir
	return true
}

// openReader sets the RowReader of ds when its entry dv asks for one; it
// reports a problem at the member.
func (b *builder) openReader(ds *dataset, dv *value, ptr string) bool {
	for _, f := range dv.fields {
		open := rowReaders[f.key]
		if open == nil {
			continue
		}
		fail := func(format string, args ...any) bool {
			b.d.errorf(f.val, jsonpointer.Append(ptr, f.key), "%s: "+format, append([]any{f.key}, args...)...)
			return false
		}
		if ds.format != formatCSV {
			return fail("expected the entry's file to be a .csv sheet, got %q; JSON Lines and JSON rows are read as they are", ds.fileVal.lit)
		}
		var settings map[string]any
		if f.val.kind != kindObject || json.Unmarshal(f.val.compact(), &settings) != nil {
			return fail("expected an object, got %s", describe(f.val))
		}
		r, err := open(settings, filepath.Dir(b.file), ds.fileVal.lit)
		if err != nil {
			return fail("%s", err.Error())
		}
		ds.reader = r
	}
	return true
}

// placeholder finds the next {row.NAME} in s at or after from: its start,
// end and NAME; start < 0 when there is none.
func placeholder(s string, from int) (start, end int, name string) {
	for {
		i := strings.Index(s[from:], "{row.")
		if i < 0 {
			return -1, -1, ""
		}
		start = from + i
		j := strings.IndexAny(s[start+5:], "{}")
		if j > 0 && s[start+5+j] == '}' {
			return start, start + 5 + j + 1, s[start+5 : start+5+j]
		}
		from = start + 5
	}
}

// templateUse is the first string of a template that uses a NAME, and
// its pointer.
type templateUse struct {
	v   *value
	ptr string
}

// templateNames finds the NAMEs the template's strings use, in order, each
// once, with the first string that uses each; ptr is v's pointer.
func templateNames(v *value, ptr string, out map[string]templateUse, order *[]string) {
	switch v.kind {
	case kindString:
		for at := 0; ; {
			start, end, name := placeholder(v.lit, at)
			if start < 0 {
				return
			}
			if _, ok := out[name]; !ok {
				out[name] = templateUse{v, ptr}
				*order = append(*order, name)
			}
			at = end
		}
	case kindArray:
		for i, it := range v.items {
			templateNames(it, jsonpointer.AppendIndex(ptr, i), out, order)
		}
	case kindObject:
		for _, f := range v.fields {
			templateNames(f.val, jsonpointer.Append(ptr, f.key), out, order)
		}
	}
}

// checkTemplate checks what a template needs whatever the rows hold: a
// taskId that uses the row. The names it uses are checked against a CSV
// file's header when the header is read.
func (b *builder) checkTemplate(ds *dataset, ptr string) bool {
	idf := ds.template.getField("taskId")
	switch {
	case idf == nil:
		b.d.errs = append(b.d.errs, &Error{Pos: b.d.pos(ds.template), Pointer: ptr + "/task",
			Message: `missing required key "taskId"; expected a taskId that uses the row, such as "qa-{row.id}"`, Kind: ErrSchema})
		return false
	case idf.val.kind != kindString:
		return true // the schema says so, for every row
	}
	if start, _, _ := placeholder(idf.val.lit, 0); start < 0 {
		b.d.errorf(idf.val, ptr+"/task/taskId", "the taskId %q is the same for every row; expected one that uses the row, such as \"qa-{row.id}\"", idf.val.lit)
		return false
	}
	return true
}

// readRows reads the rows of ds and adds a task for each; rows counts the
// rows of the suite's datasets so far, against MaxDatasetRows. It returns
// false when the suite is over that limit.
func (b *builder) readRows(ds *dataset, rows *int) bool {
	ptr := jsonpointer.AppendIndex("/datasets", ds.index)
	defer func() { ds.repeats = nil }()
	problems := 0
	ok := true
	// bad reports a row's problem; it returns false once the dataset has
	// had too many to go on.
	bad := func(e *Error) bool {
		if e.Message != "" {
			b.d.errs = append(b.d.errs, e)
		}
		if problems++; problems == maxRowProblems {
			b.d.errs = append(b.d.errs, &Error{Pos: Pos{File: ds.shown, Line: e.Pos.Line, Col: e.Pos.Col},
				Message: fmt.Sprintf("%d rows have problems; the rows after this one were not checked", maxRowProblems), Kind: ErrSemantic})
			return false
		}
		return true
	}
	rs := rowSink{bad: bad, header: b.checkHeader, add: func(r *row) bool {
		if *rows++; *rows > MaxDatasetRows {
			b.d.errs = append(b.d.errs, &Error{Pos: Pos{File: ds.shown, Line: r.line, Col: r.col},
				Message: fmt.Sprintf("the suite's datasets hold more than %d rows, the limit for a suite; split it into several suites", MaxDatasetRows), Kind: ErrSemantic})
			ok = false
			return false
		}
		if e := b.rowTask(ds, r); e != nil {
			return bad(e)
		}
		return true
	}}
	if err := ds.read(rs); err != nil {
		if e, ok := err.(*Error); ok && e.Pos.File != "" {
			b.d.errs = append(b.d.errs, e)
		} else {
			b.d.errs = append(b.d.errs, b.datasetFileError(ds, ptr, err))
		}
	}
	return ok
}

// read reads the rows of ds into rs. The error is an *Error placed in the
// file, or a failure to read it.
func (ds *dataset) read(rs rowSink) error {
	f, err := inputfile.OpenIn(ds.root, ds.real, MaxDatasetBytes)
	if err != nil {
		return err
	}
	defer f.Close()
	switch ds.format {
	case formatCSV:
		return csvRows(ds, f, rs)
	case formatJSONL:
		return jsonlRows(ds, f, rs)
	}
	return jsonRows(ds, f, rs)
}

// datasetFileError reports a dataset file that cannot be read, at its
// name in the suite.
func (b *builder) datasetFileError(ds *dataset, ptr string, err error) *Error {
	var msg string
	if nr, ok := errors.AsType[*inputfile.NotRegularError](err); ok {
		msg = "expected a dataset file (a regular file), found " + nr.What()
	} else if tl, ok := errors.AsType[*inputfile.TooLargeError](err); ok {
		msg = fmt.Sprintf("the file is over %d bytes; expected a dataset of at most %d bytes (%d MiB)", tl.Limit, int64(MaxDatasetBytes), MaxDatasetBytes>>20)
	} else {
		msg = ioError(ds.shown, "could not read the dataset", err).Message
	}
	return &Error{Pos: b.d.pos(ds.fileVal), Pointer: ptr + "/file", Message: fmt.Sprintf("%s: %s", ds.shown, msg), Kind: ErrIO}
}

// rowSink takes the rows of a dataset as they are read (add), and the
// problems of rows that make no task (bad); each returns false to stop.
type rowSink struct {
	add func(*row) bool
	bad func(*Error) bool
	// header, when set, checks the names the template uses against a CSV
	// file's header; false stops the reading.
	header func(ds *dataset) bool
}

// take gives rs a row, or the problem of a row that makes no task; false
// stops the reading.
func (rs rowSink) take(r *row, problem *Error) bool {
	if problem != nil {
		return rs.bad(problem)
	}
	return rs.add(r)
}

// csvRows reads the rows of a CSV file: the first record names the
// columns. A byte order mark at the start is skipped.
func csvRows(ds *dataset, f io.Reader, rs rowSink) error {
	br := bufio.NewReaderSize(newCSVBudget(f, ds.shown), 64<<10)
	if p, _ := br.Peek(3); bytes.Equal(p, utf8BOM) {
		br.Discard(3)
		ds.bom = 3
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	csvErr := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return &Error{Pos: Pos{File: ds.shown, Line: pe.Line, Col: pe.Column}, Message: "invalid CSV: " + pe.Err.Error(), Kind: ErrSyntax}
		}
		return err
	}
	header, err := cr.Read()
	if err == io.EOF {
		return &Error{Pos: Pos{File: ds.shown, Line: 1, Col: 1}, Message: "the file is empty; expected a header row naming the columns, then a row per task", Kind: ErrSyntax}
	}
	if err != nil {
		return csvErr(err)
	}
	ds.header = slices.Clone(header)
	cols := map[string]int{}
	for i, h := range ds.header {
		if prev, ok := cols[h]; ok {
			line, col := cr.FieldPos(i)
			return &Error{Pos: Pos{File: ds.shown, Line: line, Col: col}, Message: fmt.Sprintf("column %d has the name %q of column %d; expected each column to have its own name", i+1, h, prev+1), Kind: ErrSemantic}
		}
		cols[h] = i
	}
	if rs.header != nil && !rs.header(ds) {
		return nil
	}
	start := cr.InputOffset()
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return csvErr(err)
		}
		end := cr.InputOffset()
		line, col := cr.FieldPos(0)
		r := &row{line: line, col: col, span: [2]int64{ds.bom + start, ds.bom + end}}
		start = end
		if len(rec) != len(ds.header) {
			if !rs.bad(&Error{Pos: Pos{File: ds.shown, Line: line, Col: col},
				Message: fmt.Sprintf("the row has %d %s; expected %d, one for each column of the header row", len(rec), words.Plural(len(rec), "cell", "cells"), len(ds.header)), Kind: ErrSyntax}) {
				return nil
			}
			continue
		}
		var problem *Error
		if r.obj, problem = ds.csvObject(rec, cr.FieldPos, line, col); problem != nil {
			r = nil
		}
		if !rs.take(r, problem) {
			return nil
		}
	}
}

// csvObject makes a CSV record an object of strings named by the header,
// each at its cell's position when pos is not nil; line and col are where
// the record starts. With a RowReader, the object is the row it makes, at
// the record's position, or the problem of a row it makes none of.
func (ds *dataset) csvObject(rec []string, pos func(int) (int, int), line, col int) (*value, *Error) {
	if ds.reader != nil {
		m, err := ds.reader.Row(ds.header, rec, line)
		if err != nil {
			return nil, &Error{Pos: Pos{File: ds.shown, Line: line, Col: col}, Message: err.Error(), Kind: ErrSemantic}
		}
		data, err := json.Marshal(m)
		if err != nil {
			return nil, &Error{Pos: Pos{File: ds.shown, Line: line, Col: col}, Message: "could not make the row's task: " + err.Error(), Kind: ErrSemantic}
		}
		v, errs := parseJSONFrom(ds.shown, data, line, col, nil)
		if errs != nil {
			return nil, errs[0]
		}
		v.moveTo(line, col)
		return v, nil
	}
	obj := &value{kind: kindObject, fields: make([]field, len(rec))}
	cells := make([]value, len(rec))
	for i, c := range rec {
		cells[i] = value{kind: kindString, lit: c}
		if pos != nil {
			cells[i].line, cells[i].col = pos(i)
		}
		obj.fields[i] = field{key: ds.header[i], keyLine: cells[i].line, keyCol: cells[i].col, val: &cells[i]}
	}
	return obj, nil
}

// checkHeader checks that a CSV file has every column the template of ds
// uses, and reports each it has not at the template's string. The rows a
// RowReader makes have the names it gives them.
func (b *builder) checkHeader(ds *dataset) bool {
	if ds.reader != nil {
		return true
	}
	used := map[string]templateUse{}
	var order []string
	templateNames(ds.template, jsonpointer.AppendIndex("/datasets", ds.index)+"/task", used, &order)
	ok := true
	for _, name := range order {
		if !slices.Contains(ds.header, name) {
			u := used[name]
			b.d.errorf(u.v, u.ptr, "{row.%s}: %s has no column %q; its columns are %s", name, ds.shown, name, quoteList(ds.header))
			ok = false
		}
	}
	return ok
}

// jsonlRows reads the rows of a JSON Lines file: an object per line; blank
// lines are skipped.
func jsonlRows(ds *dataset, f io.Reader, rs rowSink) error {
	br := bufio.NewReaderSize(f, 64<<10)
	var off int64
	var line []byte
	for n := 1; ; n++ {
		line = line[:0]
		for {
			chunk, err := br.ReadSlice('\n')
			if len(line)+len(chunk) > MaxRowBytes {
				return &Error{Pos: Pos{File: ds.shown, Line: n, Col: 1}, Message: fmt.Sprintf("the line is over %d bytes, the limit for a row", MaxRowBytes), Kind: ErrSyntax}
			}
			line = append(line, chunk...)
			if err == bufio.ErrBufferFull {
				continue
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				return err
			}
			break
		}
		if len(line) == 0 {
			return nil
		}
		span := [2]int64{off, off + int64(len(line))}
		off = span[1]
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !rs.take(jsonRow(ds, bytes.TrimRight(line, "\r\n"), n, 1, span)) {
			return nil
		}
	}
}

// jsonRow parses one row of JSON, which starts at line:col of the file.
func jsonRow(ds *dataset, data []byte, line, col int, span [2]int64) (*row, *Error) {
	v, errs := parseJSONFrom(ds.shown, data, line, col, nil)
	if errs != nil {
		return nil, errs[0]
	}
	if v.kind != kindObject {
		return nil, &Error{Pos: Pos{File: ds.shown, Line: v.line, Col: v.col}, Message: fmt.Sprintf("expected a row as a JSON object, got %s", describe(v)), Kind: ErrSyntax}
	}
	return &row{obj: v, line: v.line, col: v.col, span: span}, nil
}

// jsonRows reads the rows of a JSON file: a list of objects. The file is
// read whole (at most MaxDatasetBytes) and each row parsed on its own.
func jsonRows(ds *dataset, f io.Reader, rs rowSink) error {
	data, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	base := int64(len(data)) // the offsets below count from after any byte order mark
	data = bytes.TrimPrefix(data, utf8BOM)
	base -= int64(len(data))
	lc := lineCounter{data: data, line: 1, col: 1}
	dec := json.NewDecoder(bytes.NewReader(data))
	syntax := func(err error) error {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		line, col := lc.pos(int(off))
		msg := strings.TrimPrefix(err.Error(), "json: ")
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			msg = "unexpected end of JSON input"
		}
		return &Error{Pos: Pos{File: ds.shown, Line: line, Col: col}, Message: "invalid JSON: " + msg, Kind: ErrSyntax}
	}
	tok, err := dec.Token()
	if err != nil {
		return syntax(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		line, col := lc.pos(int(dec.InputOffset()) - 1)
		return &Error{Pos: Pos{File: ds.shown, Line: line, Col: col}, Message: "expected a JSON list of rows, each an object", Kind: ErrSyntax}
	}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return syntax(err)
		}
		end := dec.InputOffset()
		start := end - int64(len(raw))
		if len(raw) > MaxRowBytes {
			line, col := lc.pos(int(start))
			return &Error{Pos: Pos{File: ds.shown, Line: line, Col: col}, Message: fmt.Sprintf("the row is over %d bytes, the limit for a row", MaxRowBytes), Kind: ErrSyntax}
		}
		line, col := lc.pos(int(start))
		if !rs.take(jsonRow(ds, raw, line, col, [2]int64{base + start, base + end})) {
			return nil
		}
	}
	return nil
}

// lineCounter converts increasing byte offsets of data to lines and
// columns counted in characters.
type lineCounter struct {
	data      []byte
	off       int
	line, col int
}

func (c *lineCounter) pos(off int) (int, int) {
	off = min(off, len(c.data))
	for ; c.off < off; c.off++ {
		switch b := c.data[c.off]; {
		case b == '\n':
			c.line++
			c.col = 1
		case b&0xC0 != 0x80:
			c.col++
		}
	}
	return c.line, c.col
}

// ref is where a placeholder of the template took its value from: the
// template string at tline:tcol, the row's cell name at line:col.
type ref struct {
	tline, tcol int
	name        string
	line, col   int
}

// expander writes a row into a template.
type expander struct {
	row     *value
	refs    []ref
	missing []string // names the row has not
	values  int      // values made, against the task budget
	bytes   int      // string bytes made, against MaxTaskBytes
}

// expand returns v with the row written in: v itself when it uses no
// placeholder.
func (x *expander) expand(v *value) *value {
	switch v.kind {
	case kindString:
		return x.str(v)
	case kindArray:
		var items []*value
		for i, it := range v.items {
			if e := x.expand(it); e != it && items == nil {
				items = slices.Clone(v.items)
				items[i] = e
			} else if items != nil {
				items[i] = e
			}
		}
		if items == nil {
			return v
		}
		out := *v
		out.items = items
		return &out
	case kindObject:
		var fields []field
		for i, f := range v.fields {
			e := x.expand(f.val)
			if e != f.val && fields == nil {
				fields = slices.Clone(v.fields)
			}
			if fields != nil {
				fields[i].val = e
			}
		}
		if fields == nil {
			return v
		}
		out := *v
		out.fields = fields
		return &out
	}
	return v
}

// cell returns the row's member name, noting where it came from; nil when
// the row has none.
func (x *expander) cell(v *value, name string) *value {
	f := x.row.getField(name)
	if f == nil {
		if !slices.Contains(x.missing, name) {
			x.missing = append(x.missing, name)
		}
		return nil
	}
	x.refs = append(x.refs, ref{tline: v.line, tcol: v.col, name: name, line: f.val.line, col: f.val.col})
	return f.val
}

func (x *expander) str(v *value) *value {
	start, end, name := placeholder(v.lit, 0)
	if start < 0 {
		return v
	}
	if start == 0 && end == len(v.lit) {
		c := x.cell(v, name)
		if c == nil {
			return v
		}
		return x.clone(c, v.line, v.col)
	}
	var b strings.Builder
	at := 0
	for start >= 0 {
		b.WriteString(v.lit[at:start])
		if c := x.cell(v, name); c == nil {
			b.WriteString(v.lit[start:end])
		} else if c.kind == kindString {
			b.WriteString(c.lit)
		} else {
			var buf bytes.Buffer
			c.write(&buf, "", "")
			b.Write(buf.Bytes())
		}
		if b.Len() > MaxTaskBytes {
			x.bytes = MaxTaskBytes + 1
			return v
		}
		at = end
		start, end, name = placeholder(v.lit, at)
	}
	b.WriteString(v.lit[at:])
	x.values++
	x.bytes += b.Len()
	return &value{kind: kindString, lit: b.String(), line: v.line, col: v.col}
}

// clone copies a row value into the template at line:col: each value of
// the copy is placed at the template string it replaces.
func (x *expander) clone(c *value, line, col int) *value {
	x.values++
	x.bytes += len(c.lit)
	if x.values > taskValueBudget || x.bytes > MaxTaskBytes {
		return &value{kind: kindNull, line: line, col: col}
	}
	out := &value{kind: c.kind, lit: c.lit, line: line, col: col}
	if c.items != nil {
		out.items = make([]*value, len(c.items))
		for i, it := range c.items {
			out.items[i] = x.clone(it, line, col)
		}
	}
	if c.fields != nil {
		out.fields = make([]field, len(c.fields))
		for i, f := range c.fields {
			out.fields[i] = field{key: f.key, keyLine: line, keyCol: col, val: x.clone(f.val, line, col)}
		}
	}
	return out
}

// expandRow writes r into the template of ds. The problems are the row's
// own: names it has not, or a task over the limits.
func (ds *dataset) expandRow(r *row) (*value, *expander, *Error) {
	x := &expander{row: r.obj}
	tv := x.expand(ds.template)
	at := Pos{File: ds.shown, Line: r.line, Col: r.col}
	switch {
	case len(x.missing) > 0:
		var keys []string
		for _, f := range r.obj.fields {
			keys = append(keys, f.key)
		}
		what := "keys"
		if ds.format == formatCSV {
			what = "columns"
		}
		return nil, x, &Error{Pos: at, Message: fmt.Sprintf("the row has no %s, which the task template uses; its %s are %s",
			quoteList(x.missing), what, quoteList(keys)), Kind: ErrSemantic}
	case x.values > taskValueBudget:
		return nil, x, &Error{Pos: at, Message: fmt.Sprintf("the task made from the row holds more than %d JSON values, the limit for a task", taskValueBudget), Kind: ErrSemantic}
	case x.bytes > MaxTaskBytes:
		return nil, x, &Error{Pos: at, Message: fmt.Sprintf("the task made from the row holds more than %d bytes of strings, the limit for a task made from a row", MaxTaskBytes), Kind: ErrSemantic}
	}
	return tv, x, nil
}

// rowTask adds the task made from row r of ds. It returns the problem of
// a row that makes no task, and for a task with problems (reported), an
// error with no message; nil when the row made a good task.
func (b *builder) rowTask(ds *dataset, r *row) *Error {
	tv, x, rerr := ds.expandRow(r)
	if rerr != nil {
		return rerr
	}
	i := len(b.s.Tasks)
	ptr := jsonpointer.AppendIndex("/tasks", i)
	errs := suiteSchema.validateTask(b.file, tv, i)
	n := len(b.d.errs)
	t := b.d.task(tv, ptr, i)
	t.Pos = Pos{File: ds.shown, Line: r.line, Col: r.col}
	t.Vars = r.obj.compact()
	b.s.Tasks = append(b.s.Tasks, t.ref())
	if idv := tv.get("taskId"); idv != nil && idv.kind == kindString {
		b.d.rowID(idv, ptr, t.ID, ds, r)
	}
	errs = append(errs, b.d.errs[n:]...)
	b.d.errs = b.d.errs[:n]
	b.d.errs = append(b.d.errs, ds.place(errs, x, r, ptr)...)
	b.compactForm(compactForm{span: r.span, ds: int32(ds.index + 1)})
	if len(errs) > 0 {
		return &Error{Pos: Pos{File: ds.shown, Line: r.line, Col: r.col}}
	}
	return nil
}

// rowID checks that the id of a task made from a row is new.
func (d *decoder) rowID(idv *value, ptr, id string, ds *dataset, r *row) {
	if line, ok := d.taskLines[id]; ok {
		d.errorf(idv, ptr+"/taskId", "duplicate task id %q; first defined at line %d", id, line)
		return
	}
	if d.rowIDs == nil {
		d.rowIDs = map[string]rowAt{}
	}
	if at, ok := d.rowIDs[id]; ok {
		d.errorf(idv, ptr+"/taskId", "duplicate task id %q; first made from the row at %s:%d", id, d.rowFiles[at.ds], at.line)
		return
	}
	for len(d.rowFiles) <= ds.index {
		d.rowFiles = append(d.rowFiles, "")
	}
	d.rowFiles[ds.index] = ds.shown
	d.rowIDs[id] = rowAt{ds: int32(ds.index), line: int32(r.line)}
}

// rowAt is the row a task id was made from.
type rowAt struct{ ds, line int32 }

// place rewrites the problems of the task made from row r, whose pointer
// in the task list is ptr: their pointer becomes the template's, and their
// message names the row, and the cell when the value came from one. A
// problem of the template itself, the same for every row, is reported once
// for the dataset, with the rows that have it (see repeats).
func (ds *dataset) place(errs Errors, x *expander, r *row, ptr string) Errors {
	base := jsonpointer.AppendIndex("/datasets", ds.index) + "/task"
	what := "key"
	if ds.format == formatCSV {
		what = "column"
	}
	out := errs[:0]
	for _, e := range errs {
		if e.Pointer == ptr || strings.HasPrefix(e.Pointer, ptr+"/") {
			e.Pointer = base + e.Pointer[len(ptr):]
		}
		var from string
		for _, rf := range x.refs {
			if rf.tline == e.Pos.Line && rf.tcol == e.Pos.Col {
				from = fmt.Sprintf(" (from %s:%d:%d, %s %q", ds.shown, rf.line, rf.col, what, rf.name)
				if ds.format == formatCSV && strings.HasPrefix(e.Message, "expected a") && !strings.HasPrefix(e.Message, "expected a string") {
					from += "; a CSV cell is always a string: write numbers, booleans and lists in a JSON Lines file"
				}
				from += ")"
				break
			}
		}
		if from != "" {
			e.Message += from
			out = append(out, e)
			continue
		}
		key := repeatKey{e.Pos, e.Pointer, e.Message}
		if rep, ok := ds.repeats[key]; ok {
			rep.rows++
			rep.err.Message = fmt.Sprintf("%s (rows %s:%d and %d more)", rep.msg, ds.shown, rep.first, rep.rows-1)
			continue
		}
		if ds.repeats == nil {
			ds.repeats = map[repeatKey]*repeat{}
		}
		ds.repeats[key] = &repeat{err: e, msg: e.Message, first: r.line, rows: 1}
		e.Message += fmt.Sprintf(" (row %s:%d)", ds.shown, r.line)
		out = append(out, e)
	}
	return out
}

// repeatKey is a problem of a template, the same for each row.
type repeatKey struct {
	pos      Pos
	ptr, msg string
}

// repeat is a problem of a template reported once: its error, message,
// first row and how many rows have it.
type repeat struct {
	err   *Error
	msg   string
	first int
	rows  int
}

// full decodes again the task made from the row at span, which starts at
// line, for Suite.Full.
func (ds *dataset) full(span [2]int64, line int) (*value, json.RawMessage, error) {
	body, err := readSpan(ds.root, ds.real, MaxDatasetBytes, span)
	if err != nil {
		return nil, nil, err
	}
	r := &row{span: span}
	switch ds.format {
	case formatCSV:
		rec, err := csv.NewReader(bytes.NewReader(body)).Read()
		if err != nil || len(rec) != len(ds.header) {
			return nil, nil, fmt.Errorf("the row is no longer a row of %d cells", len(ds.header))
		}
		var problem *Error
		if r.obj, problem = ds.csvObject(rec, nil, line, 1); problem != nil {
			return nil, nil, problem
		}
	default:
		jr, perr := jsonRow(ds, body, 1, 1, span)
		if perr != nil {
			return nil, nil, perr
		}
		r = jr
	}
	tv, _, rerr := ds.expandRow(r)
	if rerr != nil {
		return nil, nil, rerr
	}
	return tv, r.obj.compact(), nil
}
