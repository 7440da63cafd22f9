package cli

import (
	"os"
	"testing"

	"github.com/evalgate/evalgate/internal/pgtest"
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
	pgtest.Stop() // the PostgreSQL server of the history tests, if one started
	os.Exit(code)
}

// buildExampleAgent returns the example agent built, for --agent-cmd: the
// examples run it with go run, which would build it for every task and
// make its latency the compiler's.
func buildExampleAgent(t *testing.T) string {
	t.Helper()
	return testenv.Build(t, "agent", "../examples/agent")
}
