package main

import (
	"os"
	"testing"

	"github.com/evalgate/evalgate/internal/testenv"
)

func TestMain(m *testing.M) { os.Exit(testenv.Run(m)) }

// buildEvalgate returns an evalgate binary built from this repository, once
// for all the tests.
func buildEvalgate(t *testing.T) string {
	t.Helper()
	return testenv.Build(t, "evalgate", ".", "CGO_ENABLED=0")
}
