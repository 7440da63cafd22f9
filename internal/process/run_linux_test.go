package process

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"
)

// BenchmarkRun starts a small program 8 at a time, the way the plain
// driver runs an agent (a line on stdin, then end of file; stdout read
// whole; the exit waited for): "lifecycle" through Run under a
// containment, as a run does, and "floor" with os/exec as bench/spawnfloor
// does, without groups, tracking, guard or sweeper. Beside the time a
// process it reports the CPU a process of this process alone
// ("self-µs/op") and of the children ("children-µs/op", their start
// before the program runs included): the lifecycle's over the floor's is
// what it costs a start. On a shared machine, compare
// the two measured in the same run (-count alternates them).
func BenchmarkRun(b *testing.B) {
	ctx, release := Contain(context.Background())
	defer release()
	input := []byte("task t1: add 1 2\n")
	spec := Spec{Command: []string{"/bin/cat"}, Env: os.Environ(), Stdin: input}
	runs := map[string]func(out *bytes.Buffer) error{
		"lifecycle": func(out *bytes.Buffer) error {
			_, err := Run(ctx, spec, out)
			return err
		},
		"floor": func(out *bytes.Buffer) error {
			cmd := exec.Command(spec.Command[0])
			cmd.Stdin = bytes.NewReader(input)
			cmd.Stdout = out
			return cmd.Run()
		},
	}
	for _, name := range []string{"lifecycle", "floor"} {
		b.Run(name, func(b *testing.B) {
			run := runs[name]
			b.SetParallelism(4) // 8 at a time on 2 processors
			self, kids := cpu(b)
			b.RunParallel(func(pb *testing.PB) {
				var out bytes.Buffer
				for pb.Next() {
					out.Reset()
					if err := run(&out); err != nil || !bytes.Equal(out.Bytes(), input) {
						b.Errorf("%s: %v, %q", name, err, out.Bytes())
						return
					}
				}
			})
			self2, kids2 := cpu(b)
			b.ReportMetric(float64((self2-self).Microseconds())/float64(b.N), "self-µs/op")
			b.ReportMetric(float64((kids2-kids).Microseconds())/float64(b.N), "children-µs/op")
		})
	}
}

// cpu is the CPU, user and system, this process has used and that of its
// children it has waited for.
func cpu(b *testing.B) (self, children time.Duration) {
	usage := func(who int) time.Duration {
		var ru syscall.Rusage
		if err := syscall.Getrusage(who, &ru); err != nil {
			b.Fatal(err)
		}
		return time.Duration(syscall.TimevalToNsec(ru.Utime) + syscall.TimevalToNsec(ru.Stime))
	}
	return usage(syscall.RUSAGE_SELF), usage(syscall.RUSAGE_CHILDREN)
}
