package action

import (
	"os"
	"testing"

	"github.com/evalgate/evalgate/internal/testenv"
)

// TestMain removes the binaries testenv.Build made once every test ran.
func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }
