// Command mcpagent is the agent of the MCP workload (bench/mcp.sh): an
// evalgate/1 agent that answers each task {"a":A,"b":B} with the sum the
// tool calc.add returns. It makes that call (-calls times, the same call)
// as tool_call lines or, with -mcp, over MCP at EVALGATE_MCP_URL through
// the official Go SDK's client, so the two runs differ in the tool's
// transport only. With -mcp-client raw the MCP client is a minimal one on
// net/http (raw.go) instead, so that a run shows evalgate's side without
// the SDK client's own cost. With BENCH_RTT_FILE set it appends each
// call's round trip, in microseconds, measured from the request written
// to the answer read.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	useMCP := flag.Bool("mcp", false, "call the tool over MCP instead of a tool_call line")
	calls := flag.Int("calls", 1, "how many times to make the call")
	client := flag.String("mcp-client", "sdk", "the MCP client with -mcp: sdk (the official Go SDK's) or raw (a minimal one on net/http)")
	flag.Parse()
	if *client != "sdk" && *client != "raw" {
		fmt.Fprintf(os.Stderr, "mcpagent: -mcp-client is sdk or raw, not %q\n", *client)
		os.Exit(2)
	}
	if err := run(*useMCP, *client, *calls); err != nil {
		fmt.Fprintln(os.Stderr, "mcpagent:", err)
		os.Exit(1)
	}
}

func run(useMCP bool, client string, calls int) error {
	in := bufio.NewReader(os.Stdin)
	var task struct {
		Input json.RawMessage `json:"input"`
	}
	if err := readLine(in, &task); err != nil {
		return err
	}
	var sum struct {
		Sum json.RawMessage `json:"sum"`
	}
	var (
		rtts []time.Duration
		call func() error
	)
	if useMCP && client == "raw" {
		ctx := context.Background()
		c, err := connectRaw(ctx, os.Getenv("EVALGATE_MCP_URL"))
		if err != nil {
			return err
		}
		defer c.close(ctx) //nolint:errcheck // the answer is written by then
		call = func() error {
			res, err := c.callTool(ctx, "calc.add", task.Input)
			if err != nil {
				return err
			}
			return json.Unmarshal(res, &sum)
		}
	} else if useMCP {
		ctx := context.Background()
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: os.Getenv("EVALGATE_MCP_URL"), DisableStandaloneSSE: true}, nil)
		if err != nil {
			return err
		}
		defer cs.Close()
		call = func() error {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "calc.add", Arguments: task.Input})
			if err != nil {
				return err
			}
			b, _ := json.Marshal(res.StructuredContent)
			return json.Unmarshal(b, &sum)
		}
	} else {
		n := 0
		call = func() error {
			n++
			line, _ := json.Marshal(map[string]any{"type": "tool_call", "id": "c" + strconv.Itoa(n), "name": "calc.add", "arguments": task.Input})
			os.Stdout.Write(append(line, '\n'))
			var result struct {
				Content json.RawMessage `json:"content"`
			}
			if err := readLine(in, &result); err != nil {
				return err
			}
			return json.Unmarshal(result.Content, &sum)
		}
	}
	for range calls {
		start := time.Now()
		if err := call(); err != nil {
			return err
		}
		rtts = append(rtts, time.Since(start))
	}
	if path := os.Getenv("BENCH_RTT_FILE"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		var b []byte
		for _, rtt := range rtts {
			b = strconv.AppendInt(b, rtt.Microseconds(), 10)
			b = append(b, '\n')
		}
		f.Write(b) // one short write: appends do not interleave
		f.Close()
	}
	final, _ := json.Marshal(map[string]any{"type": "final", "output": sum.Sum})
	_, err := os.Stdout.Write(append(final, '\n'))
	return err
}

func readLine(in *bufio.Reader, v any) error {
	line, err := in.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("could not read a line: %w", err)
	}
	return json.Unmarshal(line, v)
}
