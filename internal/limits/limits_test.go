package limits

import (
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestExprLimitScan checks how the scan of an expression counts brackets.
func TestExprLimitScan(t *testing.T) {
	deep := strings.Repeat("(", ExprNesting+1)
	cases := []struct {
		src  string
		over bool
	}{
		{deep, true},
		{`"` + deep + `"`, false},
		{`"\"` + deep + `"`, false},
		{`'\'` + deep + `'`, false},
		{"`" + deep + "`", false},
		{"`a``" + deep + "`", false},
		{"`a`" + deep, true},
		{`"a` + "\n" + deep, true}, // a string ends at a newline
		{"// " + deep + "\ntrue", false},
		{"// x\n" + deep, true},
		{"/* " + deep + " */", false},
		{"/* x */" + deep, true},
		{"1 / 2 / " + deep, true},
		{strings.Repeat("())", 100) + strings.Repeat("(", ExprNesting), false}, // closing more than open does not go below zero
		{strings.Repeat("{[(", ExprNesting/3) + "[[", true},
	}
	for _, c := range cases {
		err := Expr(c.src, "checks")
		assert.Check(t, (err != nil) == c.over, "%q: %v", c.src, err)
	}
}

// TestRegexLimitScan checks how the scan of a regular expression counts
// groups.
func TestRegexLimitScan(t *testing.T) {
	deep := strings.Repeat("(", RegexNesting+1)
	cases := []struct {
		src  string
		over bool
	}{
		{deep, true},
		{strings.Repeat(`\(`, 100), false},
		{`\Q` + deep + `\E`, false},
		{`\Q` + deep, false},
		{`\Qx\E` + deep, true},
		{"[" + deep + "]", false},
		{"[]" + deep + "]", false},
		{"[^]" + deep + "]", false},
		{"[[:alpha:]" + deep + "]", false},
		{`[\]` + deep + "]", false},
		{"[a]" + deep, true},
		{"[[:alpha:]]" + deep, true},
	}
	for _, c := range cases {
		err := Regex(c.src)
		assert.Check(t, (err != nil) == c.over, "%q: %v", c.src, err)
	}
}
