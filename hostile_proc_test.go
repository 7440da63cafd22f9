package main

// hostileProcCases try to leave processes behind: the one process
// lifecycle (docs/security.md) must end them all.
func hostileProcCases() []hostileCase {
	return []hostileCase{
		{
			name: "a program check that leaves a daemon when its stdin closes", agent: "sleepy.sh", suite: "program.yaml",
			env:      map[string]string{"HOSTILE_SLEEP": "0"},
			wantExit: 0, outputs: true,
		},
		{
			// ExitCode is -1 for a process ended by a signal.
			name: "an agent that SIGKILLs evalgate after starting a grandchild and a daemon", agent: "killer.sh", suite: "plain.yaml",
			wantExit: -1, outputs: false,
		},
	}
}
