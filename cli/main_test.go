package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/testenv"
)

// asEvalgate makes the test binary evalgate itself, for tests that need a
// run in a process of its own (one they can kill): its arguments are
// evalgate's.
const asEvalgate = "EVALGATE_TEST_AS_EVALGATE"

func TestMain(m *testing.M) {
	if os.Getenv(asEvalgate) == "1" {
		os.Exit((&Command{}).Main(append([]string{"evalgate"}, os.Args[1:]...)))
	}
	code := testenv.Run(m)
	if exampleAgentBuild.dir != "" {
		os.RemoveAll(exampleAgentBuild.dir)
	}
	os.Exit(code)
}

// exampleAgentBuild is the example agent (examples/agent), built once for
// every test that runs it.
var exampleAgentBuild struct {
	once sync.Once
	dir  string
	out  []byte
	err  error
}

// buildExampleAgent returns the example agent built, for --agent-cmd: the
// examples run it with go run, which would build it for every task and
// make its latency the compiler's.
func buildExampleAgent(t *testing.T) string {
	t.Helper()
	b := &exampleAgentBuild
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", "evalgate-example-agent-"); b.err == nil {
			b.out, b.err = exec.Command("go", "build", "-o", filepath.Join(b.dir, "agent"), "../examples/agent").CombinedOutput()
		}
	})
	assert.NilError(t, b.err, "%s", b.out)
	return filepath.Join(b.dir, "agent")
}
