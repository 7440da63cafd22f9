package process

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"gotest.tools/v3/assert"

	"github.com/evalgate/evalgate/internal/waittest"
)

// dummyKind is a new kind of child as a feature would add one, with no
// code of its own for the lifecycle: it starts its process through Start
// with the context it is given and never waits for it, ends it or tells
// anyone of it.
type dummyKind struct{ p *Process }

func (d *dummyKind) start(ctx context.Context, script, dir string) error {
	p, err := Start(ctx, Spec{
		Command:     []string{"/bin/sh", "-c", script},
		Env:         ScrubEnv(os.Environ(), nil, map[string]string{"DIR": dir}),
		Interactive: true,
	})
	d.p = p
	return err
}

// TestNewChildKindIsHeld: a new kind of child started under a containment
// leads a group of its own, is tracked as a live descendant, and is ended
// by the release (stdin closed, a grace to exit, its group killed) before
// the final sweep, which then kills the daemon it left as it ended; after
// the release nothing more starts under that containment.
func TestNewChildKindIsHeld(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("setsid is not on PATH")
	}
	ctx, release := Contain(context.Background())
	released := false
	defer func() {
		if !released {
			release()
		}
	}()
	dir := t.TempDir()
	var d dummyKind
	// It starts a grandchild in its group, waits for the end of stdin,
	// says so, and leaves a daemon out of its group as it exits.
	assert.NilError(t, d.start(ctx, `echo $$ > "$DIR/pid"
		sleep 60 & echo $! > "$DIR/grandchild"
		cat >/dev/null
		echo ended > "$DIR/ended"
		setsid sleep 60 & echo $! > "$DIR/daemon"`, dir))
	pid := waittest.Pid(t, filepath.Join(dir, "pid"))
	grandchild := waittest.Pid(t, filepath.Join(dir, "grandchild"))

	st, ok := readStat(pid)
	assert.Assert(t, ok)
	assert.Equal(t, st.pgid, pid, "not the leader of a group of its own")
	assert.Assert(t, st.pgid != syscall.Getpgrp())
	assert.Assert(t, isLive(pid), "not tracked")
	sc := scopeOf(ctx)
	sc.mu.Lock()
	_, inScope := sc.procs[d.p]
	sc.mu.Unlock()
	assert.Assert(t, inScope, "not in its containment")
	guardProc := guardPid()
	assert.Assert(t, guardProc != 0, "no guard to tell its group")

	release()
	released = true
	_, err := os.Stat(filepath.Join(dir, "ended"))
	assert.NilError(t, err, "the release did not close its stdin and give it time to exit")
	assert.Check(t, d.p.Success(), d.p.Exit())
	assert.Check(t, !isLive(pid))
	daemon := waittest.Pid(t, filepath.Join(dir, "daemon"))
	assert.Check(t, waittest.Exited(t, grandchild), "its group was not killed")
	assert.Check(t, waittest.Exited(t, daemon), "the final sweep did not come after it ended")
	assert.Check(t, waittest.Exited(t, guardProc), "the guard outlived the release")

	err = d.start(ctx, "true", dir)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestReleaseEndsOnlyItsOwn: a process started outside the containment
// outlives its release, guard and final sweep included.
func TestReleaseEndsOnlyItsOwn(t *testing.T) {
	outside, err := Start(context.Background(), Spec{Command: []string{"sleep", "60"}, Env: os.Environ()})
	assert.NilError(t, err)
	defer outside.Wait(0)
	ctx, release := Contain(context.Background())
	inside, err := Start(ctx, Spec{Command: []string{"sleep", "60"}, Env: os.Environ()})
	assert.NilError(t, err)
	release()
	assert.Check(t, inside.hasExited())
	assert.Check(t, !outside.hasExited())
	assert.NilError(t, syscall.Kill(outside.proc.Pid, 0))
}
