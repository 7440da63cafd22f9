package history

import (
	"os"
	"testing"

	"github.com/evalgate/evalgate/internal/pgtest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}
