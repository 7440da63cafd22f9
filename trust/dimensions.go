package trust

import (
	"fmt"
	"strings"

	"github.com/evalgate/evalgate/results"
	"github.com/evalgate/evalgate/suites"
)

// The rules of the five dimensions. Each rule is worth a fixed number of
// points, 20 in all per dimension; docs/trust.md quotes every one of them,
// and a change here changes it there.

func contractClarity(ev *evidence) Dimension {
	var d Dimension
	switch {
	case ev.tools == 0:
		d.add(5, 0, "", "no suite declares its tools (suite tools with an inputSchema)")
	case ev.toolSchemas == 0:
		d.add(5, 0, "", fmt.Sprintf("no declared tool has an inputSchema (%s)", n(ev.tools, "tool")))
	case ev.toolSchemas == ev.tools:
		d.add(5, 5, fmt.Sprintf("every declared tool has an inputSchema (%s)", n(ev.tools, "tool")), "")
	default:
		d.add(5, 2, fmt.Sprintf("%d of %s have an inputSchema", ev.toolSchemas, n(ev.tools, "declared tool")),
			fmt.Sprintf("%s without an inputSchema", n(ev.tools-ev.toolSchemas, "declared tool")))
	}
	switch {
	case ev.tasks > 0 && ev.outputSchemaTasks == ev.tasks:
		d.add(5, 5, fmt.Sprintf("every task checks an outputSchema (%s)", n(ev.tasks, "task")), "")
	case ev.outputSchemaTasks > 0:
		d.add(5, 2, fmt.Sprintf("%d of %s check an outputSchema", ev.outputSchemaTasks, n(ev.tasks, "task")),
			fmt.Sprintf("%s without an outputSchema", n(ev.tasks-ev.outputSchemaTasks, "task")))
	default:
		d.add(5, 0, "", "no task checks an outputSchema")
	}
	switch {
	case ev.argCheckedTrials == 0:
		d.add(4, 0, "", "no trial called a tool whose arguments were checked against an inputSchema")
	case ev.argViolations == 0:
		d.add(4, 4, fmt.Sprintf("tool arguments checked against their inputSchema in %s, no violation", n(ev.argCheckedTrials, "trial")), "")
	default:
		d.add(4, 0, "", fmt.Sprintf("%s broke the inputSchema (finding schema-violation)", n(ev.argViolations, "tool call")))
	}
	if ev.tasks > 0 {
		d.add(3, 3, "every suite has a semver version", "")
	} else {
		d.add(3, 0, "", "no suite ran")
	}
	if ev.edgeTasks > 0 {
		d.add(3, 3, fmt.Sprintf("%s tagged edge-adversarial", n(ev.edgeTasks, "task")), "")
	} else {
		d.add(3, 0, "", "no task is tagged edge-adversarial (edge cases as tasks)")
	}
	return d
}

func idempotency(ev *evidence) Dimension {
	var d Dimension
	switch {
	case ev.tasks == 0:
		d.add(8, 0, "", "no task ran")
	case ev.multiTrialTasks < ev.tasks:
		d.add(8, 0, "", fmt.Sprintf("trials is 1 for %d of %s: idempotency unknown (set trials: 2 or more)", ev.tasks-ev.multiTrialTasks, n(ev.tasks, "task")))
	default:
		d.add(8, 8, "every task ran at least 2 trials", "")
	}
	switch {
	case ev.multiTrialTasks == 0:
		d.add(6, 0, "", "no task ran twice to compare")
	case len(ev.notIdempotent) == 0:
		d.add(6, 6, fmt.Sprintf("identical verdicts and outputs across trials in every task run twice or more (%s)", n(ev.multiTrialTasks, "task")), "")
	default:
		d.add(6, 0, "", fmt.Sprintf("verdicts or outputs differed across trials in %s: %s", n(len(ev.notIdempotent), "task"), names(ev.notIdempotent)))
	}
	switch {
	case ev.faultIdem == 0 && ev.faultNotIdem == 0:
		d.add(4, 0, "", "no task with injected faults ran twice or more")
	case ev.faultNotIdem == 0:
		d.add(4, 4, fmt.Sprintf("identical across trials under injected faults (%s)", n(ev.faultIdem, "task")), "")
	default:
		d.add(4, 0, "", fmt.Sprintf("%s with injected faults differed across trials", n(ev.faultNotIdem, "task")))
	}
	switch {
	case ev.sideEffectTools == 0:
		d.add(2, 0, "", "no tool is declared sideEffect: duplicate side effects are not looked for")
	case ev.sideRepeats == 0:
		d.add(2, 2, "no duplicate side effect (a sideEffect tool called twice with the same arguments)", "")
	default:
		d.add(2, 0, "", fmt.Sprintf("%s: a sideEffect tool called again with the same arguments", n(ev.sideRepeats, "duplicate side effect")))
	}
	return d
}

func observability(ev *evidence, r *results.Run) Dimension {
	var d Dimension
	if ev.spoke {
		d.add(4, 4, "the agent speaks a protocol: it called tools, reported usage or sent OpenTelemetry spans", "")
	} else {
		d.add(4, 0, "", "no trial called a tool, reported usage or sent spans: a plain agent, or a silent one")
	}
	switch {
	case ev.answered == 0:
		d.add(5, 0, "", "no trial answered")
	case ev.usageReported == ev.answered:
		d.add(5, 5, fmt.Sprintf("usage reported on every trial that answered (%s)", n(ev.answered, "trial")), "")
	default:
		d.add(5, 0, "", fmt.Sprintf("usage missing on %d of %s that answered", ev.answered-ev.usageReported, n(ev.answered, "trial")))
	}
	switch {
	case ev.trials == 0:
		d.add(4, 0, "", "no trial ran")
	case ev.crashes == 0 && ev.structured > 0:
		d.add(4, 4, fmt.Sprintf("failures reported as structured error lines (%d), no crash", ev.structured), "")
	case ev.crashes == 0:
		d.add(4, 4, "no trial ended in a crash", "")
	default:
		d.add(4, 0, "", fmt.Sprintf("%s ended in a crash (an exit without a final or error line)", n(ev.crashes, "trial")))
	}
	if ev.trials > 0 && ev.protocolErrors == 0 {
		d.add(3, 3, "no protocol error", "")
	} else if ev.trials == 0 {
		d.add(3, 0, "", "no trial ran")
	} else {
		d.add(3, 0, "", fmt.Sprintf("%s ended in a protocol error", n(ev.protocolErrors, "trial")))
	}
	switch {
	case r.Health == nil:
		d.add(4, 0, "", "no agent.health command in the config")
	case r.Health.Passed:
		d.add(4, 4, "agent.health exited 0", "")
	default:
		d.add(4, 0, "", "agent.health failed: "+r.Health.Message)
	}
	return d
}

func errorContainment(ev *evidence) Dimension {
	var d Dimension
	switch {
	case ev.happyTasks == 0:
		d.add(5, 0, "", "no happy-path task (one without faults or an error scenario)")
	case len(ev.happyDirty) == 0:
		d.add(5, 5, fmt.Sprintf("no crash, timeout or protocol error on the happy path (%s)", n(ev.happyTasks, "task")), "")
	default:
		d.add(5, 0, "", fmt.Sprintf("a crash, timeout or protocol error in happy-path tasks: %s", names(ev.happyDirty)))
	}
	switch {
	case ev.faultTasks == 0:
		d.add(5, 0, "", "no task injects a tool error, delay, malformed response or timeout")
	case ev.faultsPassed == ev.faultTasks:
		d.add(5, 5, fmt.Sprintf("every fault-injection task passes (%s; %s)", n(ev.faultTasks, "task"), strings.Join(ev.faultKinds, ", ")), "")
	case ev.faultsPassed > 0:
		d.add(5, 2, fmt.Sprintf("%d of %s pass", ev.faultsPassed, n(ev.faultTasks, "fault-injection task")),
			fmt.Sprintf("%s failing", n(ev.faultTasks-ev.faultsPassed, "fault-injection task")))
	default:
		d.add(5, 0, "", fmt.Sprintf("no fault-injection task passes (%s)", n(ev.faultTasks, "task")))
	}
	for _, sc := range scenarios {
		var why []string
		if f := ev.scenarioFailed[sc]; len(f) > 0 {
			why = append(why, fmt.Sprintf("%s did not pass", names(f)))
		}
		if f := ev.scenarioNoEvent[sc]; len(f) > 0 {
			why = append(why, fmt.Sprintf("the spans of %s have no %s event", names(f), suites.ScenarioEvents[sc]))
		}
		switch {
		case ev.scenarioTasks[sc] == 0:
			d.add(2, 0, "", fmt.Sprintf("no task is tagged %s", sc))
		case len(why) > 0:
			d.add(2, 0, "", fmt.Sprintf("scenario %s: %s", sc, strings.Join(why, "; ")))
		case ev.scenarioTraced[sc] > 0:
			d.add(2, 2, fmt.Sprintf("scenario %s: %s, passing; the spans sent report %s", sc, n(ev.scenarioTasks[sc], "task"), suites.ScenarioEvents[sc]), "")
		default:
			d.add(2, 2, fmt.Sprintf("scenario %s: %s, passing", sc, n(ev.scenarioTasks[sc], "task")), "")
		}
	}
	return d
}

func governance(repo *Repo) Dimension {
	var d Dimension
	if repo.Owner != "" {
		d.add(5, 5, fmt.Sprintf("owner %s (%s)", repo.Owner, repo.OwnerSource), "")
	} else {
		d.add(5, 0, "", "no CODEOWNERS entry covers the agent, and no trust.owner")
	}
	switch {
	case repo.AgentVersion == "":
		d.add(4, 0, "", "no agent.version in the config")
	case !semver(repo.AgentVersion):
		d.add(4, 0, "", fmt.Sprintf("agent.version %q is not a semver version such as 1.4.0", repo.AgentVersion))
	default:
		d.add(4, 4, "agent version "+repo.AgentVersion, "")
	}
	switch {
	case repo.Changelog == "":
		d.add(3, 0, "", "no CHANGELOG.md")
	case !repo.ChangelogEntry:
		d.add(3, 0, "", fmt.Sprintf("%s has no entry for agent version %s", repo.Changelog, versionOr(repo.AgentVersion)))
	default:
		d.add(3, 3, fmt.Sprintf("%s has an entry for %s", repo.Changelog, repo.AgentVersion), "")
	}
	if repo.Gates > 0 {
		d.add(3, 3, fmt.Sprintf("%s configured", n(repo.Gates, "gate")), "")
	} else {
		d.add(3, 0, "", "no gates configured: only the default gates ran")
	}
	if a := repo.attestation(KindSecurityReview); a != nil {
		d.add(5, 5, fmt.Sprintf("security review by %s on %s for %s", a.By, a.Date, a.AgentVersion), "")
	} else {
		d.add(5, 0, "", fmt.Sprintf("no security-review attestation in .evalgate/trust.yaml for agent version %s", versionOr(repo.AgentVersion)))
	}
	return d
}

// n counts a noun: "1 task", "3 tasks".
func n(count int, noun string) string {
	if count == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", count, noun)
}
