// Command spawnfloor is the spawn floor of the exec workload: the CPU it
// takes just to start the agent once per case, with nothing of evalgate's
// work around it. It reads a cases.jsonl of bench/gen and starts the agent
// once per case as evalgate's plain driver does (the input on stdin, then
// stdin closed; stdout read whole; the exit waited for), a number of cases
// at a time, in its own small process: no suite to load, no checks, no
// outputs, no process groups. Each output must be the line the case's
// equals check expects, so the floor does the agents' work in full.
//
// evalgate's CPU on the same workload, agents included, over this
// command's, agents included (both measured as /usr/bin/time does, user +
// sys of the process and its children), is what evalgate's own work costs
// on top of starting the agents (bench/README.md, "Targets").
//
// Usage:
//
//	go run ./bench/spawnfloor -cases DIR/cases.jsonl -agent bench/agent-plain.sh [-concurrency 8]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
)

func main() {
	if err := run(os.Args, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "spawnfloor:", err)
		os.Exit(1)
	}
}

// benchCase is what spawnfloor reads of a line of cases.jsonl.
type benchCase struct {
	ID      string `json:"id"`
	Input   string `json:"input"`
	Asserts []struct {
		Type  string `json:"type"`
		Value any    `json:"value"`
	} `json:"asserts"`
}

// want is the output the case's equals check expects; "" when it has none.
func (c *benchCase) want() string {
	for _, a := range c.Asserts {
		if s, ok := a.Value.(string); ok && a.Type == "equals" {
			return s
		}
	}
	return ""
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	casesPath := fs.String("cases", "", "cases.jsonl written by bench/gen")
	agent := fs.String("agent", "", "the agent program, which reads the input on stdin (bench/agent-plain.sh)")
	concurrency := fs.Int("concurrency", 8, "agents running at once (evalgate's default)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *casesPath == "" || *agent == "" || *concurrency < 1 {
		return errors.New("expected -cases FILE -agent PROGRAM [-concurrency N >= 1]")
	}
	cases, err := readCases(*casesPath)
	if err != nil {
		return err
	}
	var next atomic.Int64
	errs := make([]error, *concurrency)
	var wg sync.WaitGroup
	for w := range *concurrency {
		wg.Go(func() {
			var out bytes.Buffer
			for {
				i := int(next.Add(1)) - 1
				if i >= len(cases) {
					return
				}
				if err := spawn(*agent, &cases[i], &out); err != nil {
					errs[w] = err
					return
				}
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// spawn runs the agent on c and checks its answer.
func spawn(agent string, c *benchCase, out *bytes.Buffer) error {
	out.Reset()
	cmd := exec.Command(agent)
	cmd.Stdin = strings.NewReader(c.Input)
	cmd.Stdout = out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("case %s: %w", c.ID, err)
	}
	got := strings.TrimSuffix(out.String(), "\n")
	if want := c.want(); want != "" && got != want {
		return fmt.Errorf("case %s: the agent answered %q, want %q", c.ID, got, want)
	}
	return nil
}

func readCases(path string) ([]benchCase, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var cases []benchCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		var c benchCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(cases) == 0 {
		return nil, fmt.Errorf("%s: no cases", path)
	}
	return cases, nil
}
