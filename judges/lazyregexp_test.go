package judges

import (
	"testing"

	"gotest.tools/v3/assert"
)

// TestDetectorPatternsCompile compiles every detector pattern: they compile
// on first use, so a bad one would otherwise panic in the middle of a run.
func TestDetectorPatternsCompile(t *testing.T) {
	all := append([]*lazyRegexp{printVerb, quoted, email, phoneIntl, phoneNANP, phoneTrunk, ssn, iban, skKey, assignment}, injectionCues...)
	for _, p := range secretPatterns {
		all = append(all, p.re)
	}
	for _, l := range all {
		assert.Check(t, l.get() != nil, "%s did not compile", l.src)
	}
}
