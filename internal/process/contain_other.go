//go:build !linux

package process

// Outside Linux the process group is what contains a process: no
// subreaper, sweeper or guard (see contain_linux.go), only the ending of
// the containment's processes at its release.

func containStart()        {}
func containEnd()          {}
func guardGroup(int, bool) {}
