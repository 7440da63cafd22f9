//go:build evalgate_profile

package cli

import (
	"os"
	"runtime"
	"runtime/pprof"
)

// Profiling is for evalgate's own benchmarks, in a binary built with
// `-tags evalgate_profile`, and is not a documented flag:
// EVALGATE_CPUPROFILE=FILE writes a CPU profile of the whole command and
// EVALGATE_MEMPROFILE=FILE a heap profile (allocations since start) when it
// ends. Read them with `go tool pprof`.
const (
	envCPUProfile = "EVALGATE_CPUPROFILE"
	envMemProfile = "EVALGATE_MEMPROFILE"
)

// startProfiles starts what the environment asks for and returns the
// function that writes the profiles out.
func (c *Command) startProfiles() func() {
	cpuPath, memPath := c.Getenv(envCPUProfile), c.Getenv(envMemProfile)
	if cpuPath == "" && memPath == "" {
		return func() {}
	}
	var cpu *os.File
	if cpuPath != "" {
		f, err := os.Create(cpuPath)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			c.env.Say(c.Stderr, "evalgate: could not start the CPU profile %q: %v\n", cpuPath, err)
		} else {
			cpu = f
		}
	}
	return func() {
		if cpu != nil {
			pprof.StopCPUProfile()
			cpu.Close()
		}
		if memPath != "" {
			if err := writeHeapProfile(memPath); err != nil {
				c.env.Say(c.Stderr, "evalgate: could not write the heap profile %q: %v\n", memPath, err)
			}
		}
	}
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	runtime.GC() // up-to-date statistics of what is still live
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
