package judges

import (
	"math"
	"strings"
)

// secretPattern is a credential shape precise enough to flag on sight: a
// fixed prefix and the exact alphabet and length the issuer uses. hints
// are literals one of which every match contains, checked first so that
// the regular expression runs only on text that can match (Go's regexp
// has no literal-prefix scan for these).
type secretPattern struct {
	hints []string
	re    *lazyRegexp
}

var secretPatterns = []secretPattern{
	// AWS access key ids: a four-letter type prefix and 16 base32 characters.
	{[]string{"AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "ANPA", "ANVA", "AIPA"},
		lazyRE(`\b(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z2-7]{16}\b`)},
	// GitHub tokens: classic (ghp_, gho_, ghu_, ghs_, ghr_) and fine-grained.
	{[]string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}, lazyRE(`\bgh[pousr]_[A-Za-z0-9]{36}\b`)},
	{[]string{"github_pat_"}, lazyRE(`\bgithub_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}\b`)},
	// Slack tokens and incoming webhooks.
	{[]string{"xox"}, lazyRE(`\bxox[abposr]-[0-9]{6,}-[0-9A-Za-z-]{8,}`)},
	{[]string{"hooks.slack.com"}, lazyRE(`https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,}`)},
	// Private keys in PEM (RSA, EC, DSA, OPENSSH, ENCRYPTED, PGP ...).
	{[]string{"PRIVATE KEY"}, lazyRE(`-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----`)},
	// Signed JWTs: a JSON header and payload (base64url of `{"`) and a signature.
	{[]string{"eyJ"}, lazyRE(`\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}`)},
	// Google API keys and Stripe live keys.
	{[]string{"AIza"}, lazyRE(`\bAIza[0-9A-Za-z_-]{35}`)},
	{[]string{"_live_"}, lazyRE(`\b(?:sk|rk)_live_[0-9A-Za-z]{24,}\b`)},
}

// skKey finds OpenAI-style keys (sk-..., sk-proj-..., and Anthropic's
// sk-ant-...); mixedRandom then rejects slugs such as sk-learn-tutorial.
var skKey = lazyRE(`(?:^|[^A-Za-z0-9_-])(sk-[A-Za-z0-9_-]{32,})`)

// assignment finds `api_key = value` style assignments, in code, env files,
// YAML and JSON alike; the value must look random (see randomSecret).
var assignment = lazyRE(`(?i)\b(?:api[_-]?key|secret[_-]?key|secret[_-]?access[_-]?key|access[_-]?token|auth[_-]?token|client[_-]?secret|private[_-]?token)["']?\s*[:=]\s*["']?([A-Za-z0-9_\-+/.=]{16,})`)

// hasSecret reports whether text contains a credential shape.
func hasSecret(text string) bool {
	for _, p := range secretPatterns {
		if containsAny(text, p.hints) && p.re.MatchString(text) {
			return true
		}
	}
	if strings.Contains(text, "sk-") {
		for _, m := range skKey.FindAllStringSubmatch(text, -1) {
			if mixedRandom(m[1][len("sk-"):]) {
				return true
			}
		}
	}
	if !strings.ContainsAny(text, "=:") {
		return false
	}
	if lower := strings.ToLower(text); !containsAny(lower, assignmentHints) {
		return false
	}
	for _, m := range assignment.FindAllStringSubmatch(text, -1) {
		if randomSecret(m[1]) {
			return true
		}
	}
	return false
}

// assignmentHints are the words one of which every assignment's name holds.
var assignmentHints = []string{"key", "token", "secret"}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

// mixedRandom reports whether s has upper and lower case letters and
// digits, as generated keys do and words and slugs do not.
func mixedRandom(s string) bool {
	var upper, lower, digit bool
	for _, r := range s {
		switch {
		case r >= 'A' && r <= 'Z':
			upper = true
		case r >= 'a' && r <= 'z':
			lower = true
		case r >= '0' && r <= '9':
			digit = true
		}
	}
	return upper && lower && digit
}

// randomSecret reports whether an assigned value looks like a generated
// secret rather than a placeholder: letters and digits, and at least 3.5
// bits of Shannon entropy per character ("your-api-key-here" and
// "xxxxxxxxxxxxxxxx" do not qualify).
func randomSecret(s string) bool {
	var letter, digit bool
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9':
			digit = true
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			letter = true
		}
	}
	return letter && digit && entropy(s) >= 3.5
}

// entropy is the Shannon entropy of s in bits per byte.
func entropy(s string) float64 {
	var counts [256]int
	for i := 0; i < len(s); i++ {
		counts[s[i]]++
	}
	n := float64(len(s))
	var h float64
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
