package scaffold

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/evalgate/evalgate/internal/inputfile"
)

// gitignoreLines are what init adds to .gitignore, next to evalgate.yaml:
// the run's outputs and the judge cache. See ignoreKey for which lines
// already there count as these.
var gitignoreLines = []string{"evalgate-out/", ".evalgate/cache/"}

const gitignoreComment = "# evalgate: run outputs and the judge cache"

// gitignoreEdit is what init adds to a .gitignore.
type gitignoreEdit struct {
	path    string
	data    []byte // the whole new content
	missing []string
	created bool
}

// maxGitignoreBytes bounds the .gitignore init reads and adds to.
const maxGitignoreBytes = 16 << 20

// planGitignore returns the edit that adds to the .gitignore at path the
// gitignoreLines it lacks, or nil when it lacks none. The edit keeps the
// file's content and line endings, and ends a last line that has no newline
// before adding after it.
func planGitignore(path string) (*gitignoreEdit, error) {
	old, err := inputfile.Read(path, maxGitignoreBytes)
	created := errors.Is(err, fs.ErrNotExist)
	if err != nil && !created {
		return nil, fmt.Errorf("could not read %q: %w", path, err)
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(old), "\n") {
		have[ignoreKey(line)] = true
	}
	e := &gitignoreEdit{path: path, created: created}
	for _, l := range gitignoreLines {
		if !have[ignoreKey(l)] {
			e.missing = append(e.missing, l)
		}
	}
	if len(e.missing) == 0 {
		return nil, nil
	}
	nl := "\n"
	if bytes.Contains(old, []byte("\r\n")) {
		nl = "\r\n"
	}
	b := bytes.NewBuffer(old)
	if len(old) > 0 && old[len(old)-1] != '\n' {
		b.WriteString(nl)
	}
	if !have[gitignoreComment] {
		b.WriteString(gitignoreComment + nl)
	}
	for _, l := range e.missing {
		b.WriteString(l + nl)
	}
	e.data = b.Bytes()
	return e, nil
}

// ignoreKey is the form in which .gitignore lines compare: without blanks
// around it and without one leading and one trailing slash, so
// "evalgate-out", "/evalgate-out" and "/evalgate-out/" all count as
// "evalgate-out/": each ignores the output folder next to the .gitignore.
// A negated line ("!evalgate-out/") is the user's choice and counts too.
// Other patterns that happen to match (".evalgate/", "*-out/") do not.
func ignoreKey(line string) string {
	k := strings.TrimSpace(line)
	if strings.HasPrefix(k, "#") {
		return k
	}
	k = strings.TrimPrefix(k, "!")
	k = strings.TrimPrefix(k, "/")
	return strings.TrimSuffix(k, "/")
}
