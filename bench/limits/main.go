// Command limits writes suites that sit just inside each of the loader's
// limits (docs/suites.md, "Limits"), one file per limit, so bench/limits.sh
// can check that loading the worst a pull request may commit stays under
// 10 s and 1 GB.
//
// Usage:
//
//	go run ./bench/limits -out DIR
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func main() {
	out := flag.String("out", "", "folder to write the suites into")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "limits: -out is required")
		os.Exit(2)
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "limits:", err)
		os.Exit(1)
	}
	for name, write := range map[string]func(*bufio.Writer){
		"values.json":  values,
		"exprs.json":   exprs,
		"schemas.json": schemas,
		"regexes.json": regexes,
		"aliases.yaml": aliases,
	} {
		if err := writeFile(filepath.Join(*out, name), write); err != nil {
			fmt.Fprintln(os.Stderr, "limits:", err)
			os.Exit(1)
		}
	}
}

func writeFile(path string, write func(*bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	write(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

const head = `{"suiteId": "bench.evals.limits", "version": "1.0.0", "modes": ["golden"], "tasks": [`

// task writes one golden task with the given input and extra fields of
// expected.
func task(w *bufio.Writer, i int, input, expected string) {
	if i > 0 {
		w.WriteString(",\n")
	}
	fmt.Fprintf(w, `{"taskId": "t%d", "input": %s, "expected": {"kind": "golden"%s}}`, i, input, expected)
}

// values: 16 tasks of almost 1,000,000 JSON values each, written two bytes
// a value: the per-task and per-file value budgets.
func values(w *bufio.Writer) {
	w.WriteString(head)
	for i := range 16 {
		input := "[" + strings.Repeat("0,", 999_900) + "0]"
		task(w, i, input, `, "match": {"strategy": "exact", "value": "x"}`)
	}
	w.WriteString("]}\n")
}

// exprs: distinct expressions of 4,000 bytes, about 4,000 parse-tree nodes
// each, up to the suite's node budget.
func exprs(w *bufio.Writer) {
	w.WriteString(head)
	for i := range 990 {
		expr := fmt.Sprintf("%d == %d || 0", i, i) + strings.Repeat("+1", 1990) + " > 0"
		task(w, i, `"hi"`, fmt.Sprintf(`, "assert": [{"expr": %q}]`, expr))
	}
	w.WriteString("]}\n")
}

// schemas: ten distinct output schemas of almost 10,000 JSON values each:
// the per-schema and per-suite schema budgets.
func schemas(w *bufio.Writer) {
	w.WriteString(head)
	for i := range 10 {
		var b strings.Builder
		b.WriteString(`{"type": "object", "properties": {`)
		for j := range 3300 {
			if j > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"p%d_%d": {"type": "string", "maxLength": %d}`, i, j, j+1)
		}
		b.WriteString("}}")
		task(w, i, `"hi"`, `, "outputSchema": `+b.String())
	}
	w.WriteString("]}\n")
}

// regexes: tasks whose match is a regular expression of about 1 KiB that
// compiles to about 1,000 instructions, until the file is near 64 MiB.
func regexes(w *bufio.Writer) {
	w.WriteString(head)
	const limit = 63 << 20
	written := len(head)
	for i := 0; written < limit; i++ {
		pattern := fmt.Sprintf("^t%d-", i) + strings.Repeat("[a-z]", 100) + "[a-z]{400}[0-9]{480}$"
		expected := fmt.Sprintf(`, "match": {"strategy": "regex", "value": %q}`, pattern)
		task(w, i, `"hi"`, expected)
		written += len(expected) + 64
	}
	w.WriteString("]}\n")
}

// aliases: a YAML suite near 4 MiB whose aliases expand to almost 1,000,000
// values, then as many plain tasks as fit.
func aliases(w *bufio.Writer) {
	var b strings.Builder
	b.WriteString("suiteId: bench.evals.limits\nversion: 1.0.0\nmodes: [golden]\ntasks:\n")
	b.WriteString("  - taskId: anchor\n    input: &a [" + strings.Repeat("0, ", 999) + "0]\n    expected: {kind: golden, match: {strategy: exact, value: x}}\n")
	for i := range 990 {
		fmt.Fprintf(&b, "  - taskId: alias-%d\n    input: *a\n    expected: {kind: golden, match: {strategy: exact, value: x}}\n", i)
	}
	for i := 0; b.Len() < 4<<20-200; i++ {
		fmt.Fprintf(&b, "  - taskId: plain-%d\n    input: {question: what is %d plus %d}\n    expected: {kind: golden, match: {strategy: exact, value: \"%d\"}}\n", i, i, i, 2*i)
	}
	w.WriteString(b.String())
}
