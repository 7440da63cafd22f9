package promptfoo

import (
	"os"
	"testing"

	"github.com/evalgate/evalgate/internal/testenv"
)

// TestMain runs the tests' Python straight, not through a shim.
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
