// Package process runs the programs a project gives evalgate — agents
// under test, exec judges — on a short leash. Each one leads its own
// process group, so a timeout, a cancel or a kill ends everything it
// started; its stdout is read under caps; its stderr is kept up to a bound,
// for transcripts; its environment is the parent's scrubbed of evalgate's
// credentials (ScrubEnv).
//
// Two shapes of program are served. Run runs one to completion: the whole
// stdin up front, stdout read to its end.
//
//	var out bytes.Buffer
//	p, err := process.Run(ctx, process.Spec{
//		Command:        []string{"python3", "judge.py"},
//		Env:            process.ScrubEnv(os.Environ(), nil, nil),
//		Stdin:          request,
//		MaxStdoutBytes: 1 << 20,
//	}, &out)
//	// err: a *StartError, the context's error, ErrOutputTooLarge;
//	// otherwise p.Success(), p.Exit() ("exit status 1") and p.Stderr().
//
// Start starts one the caller talks to, line by line: Write to its stdin,
// ReadLine from its stdout (each line and the whole under a cap), then
// Wait with a grace to exit before the group is killed.
//
//	p, err := process.Start(ctx, process.Spec{Command: cmd, Env: env, Interactive: true})
//	if err != nil { ... }
//	p.Write(request)
//	line, err := p.ReadLine()
//	...
//	p.Wait(2 * time.Second)
//
// Once the context ends, the group is killed and blocked reads and writes
// return at once, even when a descendant that left the group still holds
// the pipes; Wait then waits at most WaitDelay for those pipes.
//
// Every process evalgate starts goes through this package, in one
// lifecycle (lifecycle.go; a test fails on a process started anywhere
// else). A run starts its processes under the context Contain returns:
//
//	ctx, release := process.Contain(ctx)
//	defer release()
//	... Start(ctx, …), Run(ctx, …), from any code given ctx ...
//	release() // ends each process still running, then sweeps
//
// release ends every process still running under ctx (stdin closed,
// EndGrace, the group killed), whoever started it, and only then, on
// Linux, kills every leftover. While a containment lasts (Linux) a guard
// process ends evalgate's descendants if evalgate dies without release
// (guard_linux.go); docs/security.md says what it reaches.
//
// It is internal: the limits and the environment policy are evalgate's,
// not an API of their own.
package process
