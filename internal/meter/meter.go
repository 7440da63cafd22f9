// Package meter bounds what the checks of a trial may spend. The checks
// come from suites, which on a pull request from a fork are the
// attacker's, and they run over what an agent wrote, up to its output
// cap; a regular expression or an expression cannot be stopped from the
// outside once it runs. So the parts of a check that can take long take a
// Meter, which holds the context the check runs under (the trial's
// deadline and the run's Ctrl-C), and stop when it ends:
//
//   - a regular expression is compiled by Compile, which applies the caps
//     of internal/limits to its text and to the program it compiles to, a
//     pattern an expression computes while it runs as much as a literal
//     one;
//   - Match refuses, before it starts, a match whose cost (the compiled
//     program's instructions times the bytes of the text) is over
//     limits.RegexCost, and stops a costly one within milliseconds of the
//     context's end, so no check given up on goes on using a CPU;
//   - Patch rewrites a checked expr-lang tree so that its `matches` go
//     through Compile and Match, and each step of its loops (all, any,
//     filter, map, ...) looks at the meter, which the expression finds in
//     its environment under Var.
//
// judges.Executor creates one Meter per trial's checks; the world of a
// trial (package fixtures) creates one per tool call. docs/security.md,
// "One check executor", says what this guarantees.
package meter

import (
	"context"
	"sync"
)

// Meter is what one run of checks may spend: it ends with its context.
// A nil *Meter has no context: its matches run to the end, within the
// cost budget. It is safe for concurrent use.
type Meter struct {
	ctx context.Context

	mu       sync.Mutex
	compiled map[string]*Regexp // patterns computed at run time
}

// maxCompiled bounds the computed patterns a Meter keeps compiled: an
// expression that computes a new one at each step of a loop compiles
// each, and keeps none past this many.
const maxCompiled = 64

// New returns a meter that ends with ctx.
func New(ctx context.Context) *Meter { return &Meter{ctx: ctx} }

// Err is nil while the meter's context runs, and the context's error
// once it has ended.
func (m *Meter) Err() error {
	if m == nil {
		return nil
	}
	select {
	case <-m.ctx.Done():
		return m.ctx.Err()
	default:
		return nil
	}
}

// Context is the context the meter ends with; context.Background() for
// a nil meter.
func (m *Meter) Context() context.Context {
	if m == nil {
		return context.Background()
	}
	return m.ctx
}

// Compile is the package's Compile for a pattern computed while a check
// runs: the meter keeps the last patterns it compiled, so a loop that
// computes the same one at each step compiles it once.
func (m *Meter) Compile(pattern string) (*Regexp, error) {
	if m == nil {
		return Compile(pattern)
	}
	m.mu.Lock()
	re, ok := m.compiled[pattern]
	m.mu.Unlock()
	if ok {
		return re, nil
	}
	re, err := Compile(pattern)
	if err != nil {
		return nil, err
	}
	m.mu.Lock()
	if m.compiled == nil {
		m.compiled = map[string]*Regexp{}
	}
	if len(m.compiled) < maxCompiled {
		m.compiled[pattern] = re
	}
	m.mu.Unlock()
	return re, nil
}
