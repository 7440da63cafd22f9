package regression

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/evalgate/evalgate/internal/diag"
	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/results"
)

// Position places a value of the run Load read from spec: the file it is
// in and the line and column it starts at, found by reading the file again
// (a problem is rare, and a baseline may be a gigabyte). pointer is the
// value's JSON pointer in the run ("/suites/0/tasks/3/latencyMs"); in a
// folder of summaries, where suite i is the i-th file, it is placed in that
// file. Without a line (the value is not found, the file cannot be read
// again) it is the file alone.
func Position(ctx context.Context, spec, dir, pointer string) diag.Pos {
	if strings.HasPrefix(spec, GitPrefix) {
		ref, path, _ := strings.Cut(strings.TrimPrefix(spec, GitPrefix), ":")
		if checkRef(ref) != nil {
			return diag.Pos{File: spec}
		}
		data, err := gitShow(ctx, dir, ref, path)
		if err != nil {
			return diag.Pos{File: spec}
		}
		return position(spec, bytes.NewReader(data), pointer)
	}
	file, root := spec, ""
	if fi, err := os.Stat(spec); err == nil && fi.IsDir() {
		var summaries []string
		file, summaries = folderFiles(spec)
		root = spec
		if file == "" {
			file, pointer = summaryOf(summaries, pointer)
		}
	}
	if file == "" {
		return diag.Pos{File: spec}
	}
	f, err := inputfile.OpenIn(root, file, MaxBaselineBytes)
	if err != nil {
		return diag.Pos{File: file}
	}
	defer f.Close()
	return position(file, f, pointer)
}

// summaryOf is the summary file suite i of pointer (/suites/i/...) was
// read from, and the pointer in that file.
func summaryOf(summaries []string, pointer string) (string, string) {
	var i int
	if n, _ := fmt.Sscanf(pointer, "/suites/%d", &i); n != 1 || i < 0 || i >= len(summaries) {
		return "", pointer
	}
	return summaries[i], strings.TrimPrefix(pointer, fmt.Sprintf("/suites/%d", i))
}

// position is where pointer is in the JSON r reads, from file.
func position(file string, r io.Reader, pointer string) diag.Pos {
	line, col, ok := results.Position(r, pointer)
	if !ok {
		return diag.Pos{File: file}
	}
	return diag.Pos{File: file, Line: line, Col: col}
}
