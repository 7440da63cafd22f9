//go:build darwin || dragonfly || freebsd || illumos || linux || netbsd || openbsd || solaris || windows

package dirlock

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"gotest.tools/v3/assert"
)

// holdEnv makes the test binary a process that locks the folder it names,
// says "locked" and waits to be killed.
const holdEnv = "DIRLOCK_TEST_HOLD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(holdEnv); dir != "" {
		if _, err := Acquire(dir); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("locked")
		time.Sleep(time.Hour) // longer than any test: the test kills it
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestAcquire: a held lock refuses a second Acquire at once, and is there
// to take again once released.
func TestAcquire(t *testing.T) {
	dir := t.TempDir()
	l, err := Acquire(dir)
	assert.NilError(t, err)
	_, err = Acquire(dir)
	assert.ErrorIs(t, err, ErrLocked)
	assert.NilError(t, l.Release())
	assert.NilError(t, l.Release(), "a second Release does nothing")
	_, err = os.Stat(filepath.Join(dir, File))
	assert.Assert(t, os.IsNotExist(err), "the lock file is left behind")
	l, err = Acquire(dir)
	assert.NilError(t, err)
	assert.NilError(t, l.Release())
}

// TestRemovedUnderneath: a lock whose file was removed locks nothing, and
// its holder knows it (inPlace, which makes Acquire try again); releasing
// it leaves alone the lock file that is there now.
func TestRemovedUnderneath(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, File)
	old, err := Acquire(dir)
	assert.NilError(t, err)
	assert.Assert(t, old.inPlace())
	assert.NilError(t, os.Remove(path))
	assert.NilError(t, os.WriteFile(path, nil, 0o644))
	assert.Assert(t, !old.inPlace())

	l, err := Acquire(dir)
	assert.NilError(t, err, "a lock on a removed file locks nothing")
	assert.NilError(t, old.Release())
	_, err = os.Stat(path)
	assert.NilError(t, err, "the release of a removed lock file removed the new one")
	_, err = Acquire(dir)
	assert.ErrorIs(t, err, ErrLocked)
	assert.NilError(t, l.Release())
}

// TestKilledHolder: a process that holds the lock and is killed (SIGKILL
// on Unix) leaves the folder free, with nobody cleaning up after it.
func TestKilledHolder(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a process")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	assert.NilError(t, err)
	assert.NilError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	assert.NilError(t, err)
	assert.Equal(t, line, "locked\n")

	_, err = Acquire(dir)
	assert.ErrorIs(t, err, ErrLocked, "the other process holds the lock")
	assert.NilError(t, cmd.Process.Kill())
	_ = cmd.Wait()
	l, err := Acquire(dir)
	assert.NilError(t, err, "the lock of a killed process is free")
	assert.NilError(t, l.Release())
}

// TestLinkIsReplaced: a symbolic link planted as the lock file is removed,
// not followed: its target is neither created nor opened.
func TestLinkIsReplaced(t *testing.T) {
	dir, outside := t.TempDir(), t.TempDir()
	missing := filepath.Join(outside, "created")
	assert.NilError(t, os.Symlink(missing, filepath.Join(dir, File)))
	l, err := Acquire(dir)
	assert.NilError(t, err)
	defer l.Release()
	_, err = os.Stat(missing)
	assert.Assert(t, os.IsNotExist(err), "the link's target was created")
	fi, err := os.Lstat(filepath.Join(dir, File))
	assert.NilError(t, err)
	assert.Assert(t, fi.Mode().IsRegular(), "the lock file is %v", fi.Mode())
}
