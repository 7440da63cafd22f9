package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/evalgate/evalgate/judges"
)

var _ judges.ProgramFunc = RunProgram

// RunProgram runs a helper program (an exec judge) to completion under ctx,
// with the same process handling as the agent drivers: the program leads
// its own process group, and when ctx ends (a timeout) or stdout goes over
// its bound the whole group is killed. The error wraps
// judges.ErrProgramNotStarted or judges.ErrStdoutTooLarge, or is the
// context's error or a read error; a program that ran and exited non-zero
// is not an error (see judges.ProgramResult.Success).
func RunProgram(ctx context.Context, p judges.Program) (*judges.ProgramResult, error) {
	if len(p.Command) == 0 || p.Command[0] == "" {
		return nil, fmt.Errorf("%w: no command given", judges.ErrProgramNotStarted)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	pr, err := startProc(ctx, procSpec{
		command:   p.Command,
		dir:       p.Dir,
		env:       p.Env,
		input:     p.Stdin,
		maxStderr: DefaultMaxStderrBytes,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("%w %q: %w", judges.ErrProgramNotStarted, p.Command[0], err)
	}
	limit := orDefault(p.MaxStdoutBytes, DefaultMaxOutputBytes)
	var buf bytes.Buffer
	_, readErr := buf.ReadFrom(io.LimitReader(pr.stdout, limit+1))
	switch {
	case ctx.Err() != nil:
		readErr = ctx.Err()
	case int64(buf.Len()) > limit:
		readErr = fmt.Errorf("%w: more than %d bytes", judges.ErrStdoutTooLarge, limit)
	}
	if readErr != nil {
		pr.kill()
		pr.wait(0)
		return nil, readErr
	}
	waitErr := pr.wait(0)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return &judges.ProgramResult{
		Stdout:  buf.Bytes(),
		Stderr:  pr.stderr.bytes(),
		Exit:    pr.exitText(waitErr),
		Success: pr.succeeded(),
	}, nil
}
