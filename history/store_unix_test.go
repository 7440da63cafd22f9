//go:build unix

package history

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"

	"github.com/evalgate/evalgate/internal/waittest"
)

// TestDirStoreHostileFiles: a dir: store's folder may hold what a pull
// request put there (a cache restored from another branch): a link out of
// the folder, a FIFO that would block a reader, a file that is a folder.
// Each is skipped and named; the good record is read, and nothing hangs.
func TestDirStoreHostileFiles(t *testing.T) {
	dir := t.TempDir()
	ctx := waittest.Context(t)
	st, err := Open(ctx, "dir:h", Options{Dir: dir})
	assert.NilError(t, err)
	good := rec("good", 1, EventPush, "p")
	assert.NilError(t, st.Write(ctx, good, encode(t, good)))
	h := filepath.Join(dir, "h")
	secret := filepath.Join(t.TempDir(), "secret.json")
	assert.NilError(t, os.WriteFile(secret, encode(t, rec("secret", 2, EventPush, "p")), 0o644))
	assert.NilError(t, os.Symlink(secret, filepath.Join(h, "20261101T090000Z-secret.json")))
	assert.NilError(t, syscall.Mkfifo(filepath.Join(h, "20261101T090000Z-fifo.json"), 0o644))
	assert.NilError(t, os.Mkdir(filepath.Join(h, "20261101T090000Z-folder.json"), 0o755))

	w, err := st.Read(ctx, WindowQuery(0, "", "", ""))
	assert.NilError(t, err)
	assert.DeepEqual(t, runIDs(w), []string{"good"})
	var names []string
	for _, s := range w.Skipped {
		names = append(names, s.Name)
	}
	slices.Sort(names)
	assert.DeepEqual(t, names, []string{"20261101T090000Z-fifo.json", "20261101T090000Z-secret.json"})
	for _, sk := range w.Skipped {
		want := map[string]string{"20261101T090000Z-fifo.json": "found a named pipe", "20261101T090000Z-secret.json": "leads outside it through a symbolic link"}[sk.Name]
		assert.Check(t, is.Contains(sk.Reason, want), sk.Name)
	}
}
