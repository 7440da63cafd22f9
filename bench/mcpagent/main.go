// Command mcpagent is the agent of the MCP workload (bench/mcp.sh): an
// evalgate/1 agent that answers each task {"a":A,"b":B} with the sum the
// tool calc.add returns. It makes that one call as a tool_call line or,
// with -mcp, over MCP at EVALGATE_MCP_URL through the official Go SDK's
// client, so the two runs differ in the tool's transport only. With
// BENCH_RTT_FILE set it appends the call's round trip, in microseconds,
// measured from the request written to the answer read.
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
	flag.Parse()
	if err := run(*useMCP); err != nil {
		fmt.Fprintln(os.Stderr, "mcpagent:", err)
		os.Exit(1)
	}
}

func run(useMCP bool) error {
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
	var rtt time.Duration
	if useMCP {
		ctx := context.Background()
		c := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: os.Getenv("EVALGATE_MCP_URL"), DisableStandaloneSSE: true}, nil)
		if err != nil {
			return err
		}
		defer cs.Close()
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "calc.add", Arguments: task.Input})
		rtt = time.Since(start)
		if err != nil {
			return err
		}
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &sum); err != nil {
			return err
		}
	} else {
		start := time.Now()
		line, _ := json.Marshal(map[string]any{"type": "tool_call", "id": "c1", "name": "calc.add", "arguments": task.Input})
		os.Stdout.Write(append(line, '\n'))
		var result struct {
			Content json.RawMessage `json:"content"`
		}
		if err := readLine(in, &result); err != nil {
			return err
		}
		rtt = time.Since(start)
		if err := json.Unmarshal(result.Content, &sum); err != nil {
			return err
		}
	}
	if path := os.Getenv("BENCH_RTT_FILE"); path != "" {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			return err
		}
		f.WriteString(strconv.FormatInt(rtt.Microseconds(), 10) + "\n") // one short write: appends do not interleave
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
