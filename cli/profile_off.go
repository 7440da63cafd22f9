//go:build !evalgate_profile

package cli

// startProfiles does nothing in a binary built without the evalgate_profile
// tag (profile.go has the profiles). Without runtime/pprof in the binary
// the runtime keeps no heap profile: no sampled allocation's stack is
// walked and kept, which cost every run of a 1,000-task suite about
// 0.7 MiB of peak memory.
func (c *Command) startProfiles() func() { return func() {} }
