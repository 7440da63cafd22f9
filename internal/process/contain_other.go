//go:build !linux

package process

// Contain does nothing outside Linux: the process group is what contains
// an agent there (see the Linux version).
func Contain() (release func()) { return func() {} }
