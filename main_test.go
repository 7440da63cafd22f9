package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/testenv"
)

func TestMain(m *testing.M) {
	code := testenv.Run(m)
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// built is the evalgate binary the tests run, built once for all of them.
var built struct {
	once sync.Once
	dir  string
	out  []byte
	err  error
}

// buildEvalgate returns the path of an evalgate binary built from this
// repository, building it the first time it is asked for.
func buildEvalgate(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		if built.dir, built.err = os.MkdirTemp("", "evalgate-bin-"); built.err != nil {
			return
		}
		build := exec.Command("go", "build", "-o", filepath.Join(built.dir, "evalgate"), ".")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		built.out, built.err = build.CombinedOutput()
	})
	assert.NilError(t, built.err, "go build: %s", built.out)
	return filepath.Join(built.dir, "evalgate")
}
