// Command evalgate runs AI-agent eval suites and gates CI on the result.
// See README.md, or run `evalgate help`.
package main

import (
	"os"

	"github.com/evalgate/evalgate/cli"
)

func main() {
	cmd := &cli.Command{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr}
	os.Exit(cmd.Main(os.Args))
}
