"""A deterministic stand-in for a model judge, for the agent-audit test.

It grades each dimension of the audit by the phrases the definition holds:
the level is how many of the dimension's four phrases appear (0-4). It
reads the evalgate exec judge protocol on stdin and answers on stdout.
"""
import json
import sys

PHRASES = {
    "Role": ["you are", "responsible for", "out of scope", "success looks like"],
    "Tools": ["crm_lookup", "use crm_lookup when", "never call crm_lookup", "if crm_lookup fails"],
    "Context": ["background:", "refund policy", "read the policy file", "if the policy is missing"],
    "Parallel": ["in parallel", "independent steps", "merge the results", "at most three at once"],
    "Concept": ["the goal is", "an order moves through", "states:", "edge case"],
    "Think": ["think", "plan before", "plan, act, check", "verify your answer"],
    "Compact": ["be brief", "leave out", "summarise the history", "under 200 words"],
    "Model": ["model", "written for a small model", "a stronger model", "temperature 0"],
    "Clarity": ["## ", "example:", "consistent terms", "checkable"],
    "Integration": ["answer with", "json", "handed to the billing agent", "escalate to a human"],
}

request = json.load(sys.stdin)
text = request["output"].lower()
answers = []
for criterion in request["criteria"]:
    dimension = criterion["criterion"].split(":")[0]
    level = sum(1 for phrase in PHRASES[dimension] if phrase in text)
    answers.append({"level": level, "reason": "%d of 4 phrases" % level})
print(json.dumps({"criteria": answers}))
