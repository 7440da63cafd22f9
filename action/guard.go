package action

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"

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
	exists    bool
	size      int64
	sum       [sha256.Size]byte
	data      []byte // the content, when at most maxKept bytes
}

// GuardRunnerFiles records every runner file named in the environment.
func GuardRunnerFiles(getenv func(string) string) *Guard {
	g := &Guard{}
	for _, env := range process.RunnerFiles {
		path := getenv(env)
		if path == "" {
			continue
		}
		f := guardedFile{env: env, path: path}
		if data, err := os.ReadFile(path); err == nil {
			f.exists, f.size, f.sum = true, int64(len(data)), sha256.Sum256(data)
			if len(data) <= maxKept {
				f.data = data
			}
		}
		g.files = append(g.files, f)
	}
	return g
}

// Check compares every guarded file with what it held when the Guard was
// made and puts back each one that changed. The error names the files
// that changed, and says which could not be put back.
func (g *Guard) Check() error {
	var changed, lost []string
	for _, f := range g.files {
		data, err := os.ReadFile(f.path)
		same := err == nil && f.exists && int64(len(data)) == f.size && sha256.Sum256(data) == f.sum
		if os.IsNotExist(err) && !f.exists {
			same = true
		}
		if same {
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
	if int64(len(f.data)) != f.size {
		return false // too large to have been kept
	}
	if err := os.WriteFile(f.path, f.data, 0o644); err != nil {
		return false
	}
	data, err := os.ReadFile(f.path)
	return err == nil && bytes.Equal(data, f.data)
}
