// Command release builds evalgate's release archives reproducibly and keeps
// action/checksums.txt, the sums the GitHub Action installs against, in step
// with them. Run it through scripts/release-build.sh, which pins the Go
// toolchain; docs/github-action.md ("Cutting a release") says when.
//
// Usage:
//
//	go run ./scripts/release -go go1.26.8 [-out dist] [-targets os/arch,…]
//	    [-write | -check] [-checksums action/checksums.txt] [-dir .] VERSION
//
// It builds every target (linux, darwin, windows × amd64, arm64) with
// CGO_ENABLED=0 -trimpath -buildvcs=false and the version stamped in, packs
// each binary into evalgate_<version>_<os>_<arch>.tar.gz (.zip for
// windows) with fixed times, owners and modes, and writes the archives'
// sums to DIR/checksums.txt in sha256sum's format. -write puts those sums
// into the checksums file in place of any earlier lines of the version;
// -check fails (exit 1) unless the checksums file lists exactly those sums
// for the version. Exit 2 is a bad invocation, 3 a build that failed.
package main

import "os"

func main() {
	os.Exit(run(os.Args, os.Stdout, os.Stderr))
}
