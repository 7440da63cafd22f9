package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
	"gotest.tools/v3/golden"
)

// TestHelp: every command's help, asked for as `CMD --help`, `CMD -h` or
// `evalgate help CMD`, is the same text on stdout with exit 0: synopsis,
// every flag, exit codes and examples. testdata/help/CMD.golden holds it
// (go test ./cli -run TestHelp -update).
func TestHelp(t *testing.T) {
	names := commandNames()
	for name := range commandDocs {
		assert.Assert(t, slices.Contains(names, name), "help for %q, which is not a command", name)
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			doc, ok := commandDocs[name]
			assert.Assert(t, ok, "no help for %q in commandDocs", name)
			assert.Assert(t, len(doc.exits) > 0 && len(doc.examples) > 0, "the help of %q needs exit codes and examples", name)

			r := runCLI(t, "", nil, name, "--help")
			assert.Equal(t, r.code, ExitPass, r.stderr)
			assert.Equal(t, r.stderr, "")
			golden.Assert(t, r.stdout, filepath.Join(testdata, "help", name+".golden"))
			for _, args := range [][]string{{name, "-h"}, {"help", name}} {
				again := runCLI(t, "", nil, args...)
				assert.Equal(t, again.code, ExitPass, again.stderr)
				assert.Equal(t, again.stdout, r.stdout, "evalgate %s", strings.Join(args, " "))
			}

			for _, want := range []string{"Usage:\n  evalgate " + name, "\nFlags", "\nExit codes:\n  0  ", "\nExamples:\n  # "} {
				assert.Assert(t, strings.Contains(r.stdout, want), "no %q in:\n%s", want, r.stdout)
			}
			assert.Assert(t, strings.Contains(r.stdout, "\n  -h, --help "), r.stdout)
			for _, e := range doc.examples {
				assert.Assert(t, strings.HasPrefix(e.line, "evalgate "+name), "an example of %s runs something else: %s", name, e.line)
			}
		})
	}
	t.Run("nested", func(t *testing.T) {
		r := runCLI(t, "", nil, "help", "baseline", "promote")
		assert.Equal(t, r.code, ExitPass, r.stderr)
		assert.Equal(t, r.stdout, runCLI(t, "", nil, "baseline", "promote", "--help").stdout)
		assert.Equal(t, r.stdout, runCLI(t, "", nil, "baseline", "--help").stdout)
	})
	t.Run("command list", func(t *testing.T) {
		for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
			r := runCLI(t, "", nil, args...)
			assert.Equal(t, r.code, ExitPass)
			for _, name := range names {
				assert.Assert(t, strings.Contains(r.stdout, "\n  "+name+" "), "%s is not listed:\n%s", name, r.stdout)
			}
			assert.Assert(t, strings.Contains(r.stdout, `"evalgate help <command>"`), r.stdout)
		}
	})
}

// TestHelpExamplesAreTrue runs every example of every command's help in a
// project where it applies, and expects exit 0. A "> FILE" at the end of
// an example writes stdout to FILE, as the shell would.
func TestHelpExamplesAreTrue(t *testing.T) {
	ran := []string{"run"}
	setups := map[string][][]string{
		"assess":   {ran},
		"diff":     {ran, {"baseline", "promote", "evalgate-out/"}},
		"merge":    {{"run", "--shard", "1/2", "--out", "shard-1"}, {"run", "--shard", "2/2", "--out", "shard-2"}},
		"report":   {ran},
		"trust":    {{"run", "--out", "last-week"}, ran},
		"baseline": {ran},
		"publish":  {{"run", "--no-publish"}},
		"history":  {ran},
	}
	// Commands that only work in GitHub Actions run there (comment: never).
	envs := map[string]func(dir string) map[string]string{
		"publish": func(dir string) map[string]string { return actionsEnv(dir, "") },
		// Outside a trial nothing listens there; with stdin at its end the
		// bridge has nothing to carry.
		"mcp": func(string) map[string]string { return map[string]string{"EVALGATE_MCP_URL": "http://127.0.0.1:9/"} },
	}
	// What the examples of a command leave behind.
	wantFiles := map[string][]string{
		"assess":    {"evalgate-out/assessment.json", "evalgate-out/assessment.svg", "evalgate-out/assessment.png", "evalgate-out/assessment.md", "evalgate-out/assessment.openbadge.json"},
		"run":       {"evalgate-out/results.json"},
		"export":    {"support.openwop.json"},
		"merge":     {"evalgate-out/results.json"},
		"report":    {"junit.xml"},
		"trust":     {"evalgate-out/trust.json"},
		"baseline":  {".evalgate/baseline.json", "baselines/nightly.json"},
		"calibrate": {".evalgate/calibration.json"},
		"init":      {"evalgate.yaml", "services/support-agent/evalgate.yaml"},
		"schema":    {"suite.schema.json"},
		"import":    {"imported/evalgate.yaml", "imported/import-report.json", "imported/evals/promptfoo.suite.yaml"},
		"publish":   {"summary.md", "output"},
	}
	for _, name := range commandNames() {
		t.Run(name, func(t *testing.T) {
			dir := exampleProject(t)
			if name == "init" {
				dir = t.TempDir()
			}
			for _, args := range setups[name] {
				mustRun(t, dir, args...)
			}
			if name == "diff" {
				commitAll(t, dir)
			}
			var env map[string]string
			if envs[name] != nil {
				env = envs[name](dir)
			}
			for _, e := range commandDocs[name].examples {
				args, redirect := shellWords(t, e.line)
				r := runCLI(t, dir, env, args[1:]...)
				assert.Equal(t, r.code, ExitPass, "%s\nstdout:\n%s\nstderr:\n%s", e.line, r.stdout, r.stderr)
				if redirect != "" {
					assert.NilError(t, os.WriteFile(filepath.Join(dir, redirect), []byte(r.stdout), 0o644))
				}
			}
			for _, f := range wantFiles[name] {
				fi, err := os.Stat(filepath.Join(dir, f))
				assert.NilError(t, err)
				assert.Assert(t, fi.Size() > 0, "%s is empty", f)
			}
		})
	}
}

// commitAll makes dir a git repository whose branch main holds its files.
func commitAll(t *testing.T, dir string) {
	t.Helper()
	git(t, dir, "init", "-q", "-b", "main")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "baseline")
}

// shellWords splits an example's command line as sh would split it: words,
// 'single-quoted' words, and a final "> FILE".
func shellWords(t *testing.T, line string) (args []string, redirect string) {
	t.Helper()
	var word strings.Builder
	inWord, quoted := false, false
	for _, r := range line + " " {
		switch {
		case r == '\'':
			quoted, inWord = !quoted, true
		case r == ' ' && !quoted:
			if inWord {
				args = append(args, word.String())
			}
			word.Reset()
			inWord = false
		default:
			assert.Assert(t, quoted || !strings.ContainsRune(`"$|&;<*?`+"`", r), "the test cannot run %q", line)
			word.WriteRune(r)
			inWord = true
		}
	}
	assert.Assert(t, !quoted, "unbalanced quote in %q", line)
	if n := len(args); n >= 2 && args[n-2] == ">" {
		args, redirect = args[:n-2], args[n-1]
	}
	assert.Assert(t, !slices.Contains(args, ">"), "the test cannot run %q", line)
	return args, redirect
}

// TestReadmeCommands keeps the README's table of commands true: it lists
// every command, in the order evalgate --help does, and each flag it shows
// is one the command's help lists.
func TestReadmeCommands(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testdata, "..", "..", "README.md"))
	assert.NilError(t, err)
	_, table, ok := strings.Cut(string(data), "\n## Commands\n")
	assert.Assert(t, ok, "README.md has no Commands section")
	table, _, _ = strings.Cut(table, "\n## ")
	var listed []string
	for _, line := range strings.Split(table, "\n") {
		synopsis, ok := strings.CutPrefix(line, "| `evalgate ")
		if !ok {
			continue
		}
		synopsis, _, _ = strings.Cut(synopsis, "`")
		words := strings.Fields(synopsis)
		name := words[0]
		listed = append(listed, name)
		if name == "help" {
			continue
		}
		help := runCLI(t, "", nil, name, "--help")
		assert.Equal(t, help.code, ExitPass, "README.md lists %q: %s", name, help.stderr)
		for _, w := range words[1:] {
			if flagName, ok := strings.CutPrefix(strings.Trim(w, "[]"), "--"); ok {
				assert.Assert(t, strings.Contains(help.stdout, "\n  --"+flagName+" "), "README.md shows %s for %s, which it does not take", w, name)
			}
		}
	}
	// One order everywhere: --help lists the commands alphabetically, and
	// the README's table in the same order (help last), every one of them.
	usage := runCLI(t, "", nil, "--help")
	_, list, _ := strings.Cut(usage.stdout, "\nCommands:\n")
	list, _, _ = strings.Cut(list, "\n\n")
	var helpOrder []string
	for _, line := range strings.Split(list, "\n") {
		helpOrder = append(helpOrder, strings.Fields(line)[0])
	}
	assert.DeepEqual(t, helpOrder, commandNames())
	assert.Assert(t, slices.IsSorted(helpOrder), "evalgate --help lists the commands out of alphabetical order: %v", helpOrder)
	assert.DeepEqual(t, slices.Compact(listed), append(commandNames(), "help"))
}
