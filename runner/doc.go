// Package runner drives the agent under test: it runs every selected task
// trial with a bounded pool of agents, answers tool calls from fixtures,
// records what each trial did, hands the trials whose agent answered to a
// Scorer, and hands results to an Observer as they finish, in plan order.
// It scores nothing itself: the pipeline's Scorer scores each trial with
// package judges and aggregates with package gates (docs/architecture.md).
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
//		Scorer:      scorer, // judges score each trial, gates aggregate
//	})
package runner
