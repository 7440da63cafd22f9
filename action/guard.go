package action

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/internal/process"
)

// maxKept is the most of a runner file a Guard keeps to restore it; a
// larger file is only checked.
const maxKept = 8 << 20

// A Guard holds the runner's file commands as they were before the agents
// ran. Agents do not get their paths, but an agent that finds one (the
// runner keeps them in a known folder) could still append to it; Check
// says so and puts the file back.
type Guard struct {
	files []guardedFile
}

type guardedFile struct {
	env, path string
	fileState
}

// maxRunnerFile bounds a runner file the Guard reads: a file over it, or
// one that is no longer a regular file (an agent may put a link to
// /dev/zero there), counts as changed without being read whole.
const maxRunnerFile = 256 << 20

// fileState is what a runner file holds: whether it is there, whether it
// could be read (a regular file of at most maxRunnerFile), and then its
// size, hash and, when at most maxKept bytes, content.
type fileState struct {
	exists, read bool
	size         int64
	sum          [sha256.Size]byte
	data         []byte
}

// readState reads the file at path through the one reader of input
// files, hashing it as it goes.
func readState(path string) fileState {
	f, err := inputfile.Open(path, maxRunnerFile)
	if err != nil {
		return fileState{exists: !errors.Is(err, fs.ErrNotExist)}
	}
	defer f.Close()
	h := sha256.New()
	var kept bytes.Buffer
	w := io.Writer(h)
	if f.Size() <= maxKept {
		w = io.MultiWriter(h, &kept)
	}
	n, err := io.Copy(w, f)
	if err != nil {
		return fileState{exists: true}
	}
	st := fileState{exists: true, read: true, size: n}
	h.Sum(st.sum[:0])
	if n <= maxKept && int64(kept.Len()) == n {
		st.data = kept.Bytes()
	}
	return st
}

// same reports whether the file held the same before and after.
func (before fileState) same(after fileState) bool {
	if !before.exists || !after.exists {
		return before.exists == after.exists
	}
	return before.read && after.read && before.size == after.size && before.sum == after.sum
}

// GuardRunnerFiles records every runner file named in the environment.
func GuardRunnerFiles(getenv func(string) string) *Guard {
	g := &Guard{}
	for _, env := range process.RunnerFiles {
		path := getenv(env)
		if path == "" {
			continue
		}
		g.files = append(g.files, guardedFile{env: env, path: path, fileState: readState(path)})
	}
	return g
}

// Check compares every guarded file with what it held when the Guard was
// made and puts back each one that changed. The error names the files
// that changed, and says which could not be put back.
func (g *Guard) Check() error {
	var changed, lost []string
	for _, f := range g.files {
		if f.same(readState(f.path)) {
			continue
		}
		changed = append(changed, "$"+f.env)
		if !f.restore() {
			lost = append(lost, "$"+f.env)
		}
	}
	if len(changed) == 0 {
		return nil
	}
	msg := fmt.Sprintf("%s changed while the agents ran, though no agent is given its path: something the agent started wrote to the runner's file commands", strings.Join(changed, ", "))
	if len(lost) > 0 {
		return fmt.Errorf("%s; %s could not be put back: do not trust the steps after this one", msg, strings.Join(lost, ", "))
	}
	return fmt.Errorf("%s; put back as it was, and this run is not trusted", msg)
}

// restore writes the file back as it was; false when it cannot.
func (f *guardedFile) restore() bool {
	if !f.exists {
		if os.Remove(f.path) == nil {
			return true
		}
		// Emptied is safer than what was appended, but it is not how the
		// file was: say so.
		_ = os.WriteFile(f.path, nil, 0o644)
		return false
	}
	if !f.read || int64(len(f.data)) != f.size {
		return false // too large to have been kept
	}
	// Written beside and renamed over the name: a link an agent put there
	// is replaced, not followed.
	if err := atomicfile.WriteFile(f.path, f.data, 0o644, 0o755); err != nil {
		return false
	}
	return f.same(readState(f.path))
}
