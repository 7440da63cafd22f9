//go:build unix && !linux

package process

// containedParent is a helper of the Linux tests only.
func containedParent() {}
