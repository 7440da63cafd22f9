package process

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"

	"gotest.tools/v3/assert"
)

// BenchmarkChildren lists this process's children the two ways the
// sweeper can, with 8 children of its own (a run at concurrency 8) and
// the host as it is, then with 1,000 more processes on the host that are
// not its children. "host" reads every process's stat, as the sweeper did
// until it read its own threads' children lists ("own"); the sweeper
// lists 10 times a second while processes run. bench/README.md has
// figures.
func BenchmarkChildren(b *testing.B) {
	self := os.Getpid()
	for range 8 {
		p, err := Start(context.Background(), Spec{Command: []string{"sleep", "600"}, Env: os.Environ()})
		assert.NilError(b, err)
		defer p.Wait(0)
	}
	for _, more := range []int{0, 1000} {
		if more > 0 {
			// Grandchildren: on the host, not this process's children.
			script := "i=0; while [ $i -lt " + strconv.Itoa(more) + " ]; do sleep 600 & i=$((i+1)); done; echo started; wait"
			p, err := Start(context.Background(), Spec{Command: []string{"/bin/sh", "-c", script}, Env: os.Environ(), Interactive: true})
			assert.NilError(b, err)
			_, err = p.ReadLine()
			assert.NilError(b, err)
			defer p.Wait(0)
		}
		host := len(hostProcesses())
		for _, way := range []struct {
			name string
			list func(int) []child
		}{{"host", hostChildren}, {"own", ownChildren}} {
			b.Run(fmt.Sprintf("procs=%d/%s", host/100*100, way.name), func(b *testing.B) {
				for b.Loop() {
					if n := len(way.list(self)); n < 8 {
						b.Fatalf("%d children listed, want 8 or more", n)
					}
				}
				b.ReportMetric(float64(host), "host-procs")
			})
		}
	}
}

// TestOwnChildrenAsHost: the children lists and the host scan both find
// this process's children.
func TestOwnChildrenAsHost(t *testing.T) {
	if !hasChildrenLists() {
		t.Skip("the kernel keeps no children lists")
	}
	var ps []*Process
	for range 3 {
		p, err := Start(context.Background(), Spec{Command: []string{"sleep", "60"}, Env: os.Environ()})
		assert.NilError(t, err)
		ps = append(ps, p)
	}
	defer func() {
		for _, p := range ps {
			p.Wait(0)
		}
	}()
	pids := func(kids []child) map[int]bool {
		m := map[int]bool{}
		for _, k := range kids {
			m[k.pid] = true
		}
		return m
	}
	self := os.Getpid()
	own, host := pids(ownChildren(self)), pids(hostChildren(self))
	for _, p := range ps {
		pid := p.proc.Pid
		assert.Check(t, own[pid], "child %d not in the children lists", pid)
		assert.Check(t, host[pid], "child %d not found on the host", pid)
	}
}
