// Package runner drives the agent under test: it runs every selected task
// trial with a bounded pool of agents, answers tool calls from fixtures,
// scores what comes back, and hands results to an Observer as they finish.
//
// Agents are reached through drivers that implement Agent:
//
//   - Exec speaks the evalgate/1 JSON Lines protocol with one process per
//     trial (tool calls answered from the task's fixtures).
//   - Plain writes the input to stdin and takes stdout as the output.
//   - OpenAI is the agent loop over an OpenAI-compatible chat API.
//
// A misbehaving agent never stops a run: a crash, a hang or garbage becomes
// that task's error (kinds in package results), with a message in
// evalgate's own words that quotes nothing the agent said. Only an agent
// that cannot run does, because then no task can: one that cannot be
// started at all, or one that never speaks (CannotRunError: the first
// trials of the first three tasks all failed before writing a line).
//
// A typical run:
//
//	plan := runner.Plan(loaded, runner.Selection{Tags: []string{"smoke"}})
//	suites, err := runner.Run(ctx, plan, runner.Options{
//		Agent:       &runner.Exec{Command: []string{"python3", "agent.py"}},
//		Concurrency: 8,
//	})
package runner
