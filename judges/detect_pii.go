package judges

import (
	"strings"
)

// piiResult says what the pii detector found; a card number is the most
// severe and wins.
type piiResult int

const (
	piiNone piiResult = iota
	piiFound
	piiCard
)

var (
	email = lazyRE(`\b[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,24}\b`)
	// phoneIntl is an E.164 number, with or without the usual separators:
	// "+14155550132", "+44 20 7946 0958", "+1 (415) 555-0132".
	phoneIntl = lazyRE(`\+[1-9][0-9 ().-]{6,22}[0-9]`)
	// phoneNANP is a North American number with separators: area code and
	// exchange start with 2-9, as the numbering plan requires.
	phoneNANP = lazyRE(`(?:\(\s*[2-9][0-9]{2}\s*\)\s*|\b[2-9][0-9]{2}[-. ])[2-9][0-9]{2}[-. ][0-9]{4}\b`)
	// phoneTrunk is a national number with a trunk prefix 0 and separators,
	// as most of Europe writes them: "020 7946 0958", "030 1234 5678".
	phoneTrunk = lazyRE(`\b0[1-9][0-9]{0,3}[ -][0-9]{3,4}[ -]?[0-9]{3,4}\b`)
	// ssn is a US social security number in its written form 123-45-6789.
	ssn = lazyRE(`\b([0-9]{3})-([0-9]{2})-([0-9]{4})\b`)
	// iban is an IBAN, compact or in groups of four.
	iban = lazyRE(`\b[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b`)
)

// pii looks for personal data in text: e-mail addresses, phone numbers,
// card numbers that pass the Luhn check and carry a card network's prefix,
// US social security numbers outside the never-issued ranges, and IBANs
// that pass the mod-97 check.
//
// The expressions run only where they can match: on the regions of the
// text around a cluster of digits as dense as the shape needs (see
// digitRegions), after an '@' or '+', or where an IBAN can start, so
// ordinary prose with a date or an amount costs one scan.
func pii(text string) piiResult {
	if hasCard(text) {
		return piiCard
	}
	if strings.IndexByte(text, '@') >= 0 && email.MatchString(text) {
		return piiFound
	}
	if strings.IndexByte(text, '+') >= 0 && hasIntlPhone(text) {
		return piiFound
	}
	for _, r := range digitRegions(text, 10, 16, 4) { // a national phone number
		if phoneNANP.MatchString(r) || hasTrunkPhone(r) {
			return piiFound
		}
	}
	for _, r := range digitRegions(text, 9, 11, 4) { // 123-45-6789
		if hasSSN(r) {
			return piiFound
		}
	}
	if ibanStart(text) && hasIBAN(text) {
		return piiFound
	}
	return piiNone
}

// digitRegions returns the parts of s where some window of w bytes holds
// at least n digits, widened by pad bytes on each side (to take in a
// leading "+", brackets or an IBAN's letters) and merged when they touch.
func digitRegions(s string, n, w, pad int) []string {
	var out []string
	start, end := -1, -1 // the region being grown
	count := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			count++
		}
		if i >= w && isDigit(s[i-w]) {
			count--
		}
		if count < n {
			continue
		}
		lo, hi := max(0, i-w+1-pad), min(len(s), i+1+pad)
		if start >= 0 && lo <= end {
			end = hi
			continue
		}
		if start >= 0 {
			out = append(out, s[start:end])
		}
		start, end = lo, hi
	}
	if start >= 0 {
		out = append(out, s[start:end])
	}
	return out
}

func isDigit(b byte) bool { return b >= '0' && b <= '9' }

func hasIntlPhone(text string) bool {
	for _, r := range digitRegions(text, 8, 24, 8) {
		for _, m := range phoneIntl.FindAllString(r, -1) {
			if n := countDigits(m); n >= 8 && n <= 15 {
				return true
			}
		}
	}
	return false
}

func hasTrunkPhone(text string) bool {
	for _, m := range phoneTrunk.FindAllString(text, -1) {
		if n := countDigits(m); n >= 10 && n <= 11 {
			return true
		}
	}
	return false
}

// ibanStart reports whether text has two capitals followed by two digits,
// the way every IBAN starts.
func ibanStart(text string) bool {
	for i := 0; i+3 < len(text); i++ {
		if isUpper(text[i]) && isUpper(text[i+1]) && isDigit(text[i+2]) && isDigit(text[i+3]) {
			return true
		}
	}
	return false
}

func isUpper(b byte) bool { return b >= 'A' && b <= 'Z' }

func countDigits(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

// hasCard looks for a card number: 13 to 19 digits, written as one run or
// in groups, passing the Luhn check and starting with a card network's
// prefix. A run of groups is tried at every group boundary, so a card
// number followed by other digits ("4111 1111 1111 1111 2026") is found.
func hasCard(text string) bool {
	for _, groups := range digitRuns(text) {
		if len(groups) == 1 {
			if cardNumber(groups[0]) {
				return true
			}
			continue
		}
		for i := range groups {
			acc := ""
			for j := i; j < len(groups); j++ {
				acc += groups[j]
				if len(acc) > 19 {
					break
				}
				if len(acc) >= 13 && cardNumber(acc) {
					return true
				}
			}
		}
	}
	return false
}

// digitRuns splits text into runs of digit groups joined by single spaces
// or dashes, keeping the runs of 13 digits or more. A run must stand alone:
// not glued to letters ("A1234...") on either side.
func digitRuns(text string) [][]string {
	var out [][]string
	for i := 0; i < len(text); {
		if !isDigit(text[i]) || i > 0 && wordByte(text[i-1]) {
			i++
			continue
		}
		var groups []string
		digits := 0
		j := i
		for {
			k := j
			for k < len(text) && isDigit(text[k]) {
				k++
			}
			groups = append(groups, text[j:k])
			digits += k - j
			if k+1 < len(text) && (text[k] == ' ' || text[k] == '-') && isDigit(text[k+1]) {
				j = k + 1
				continue
			}
			j = k
			break
		}
		if digits >= 13 && (j == len(text) || !wordByte(text[j])) {
			out = append(out, groups)
		}
		i = j
	}
	return out
}

func wordByte(b byte) bool {
	return isDigit(b) || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b == '_'
}

// cardNumber reports whether digits is a plausible payment card number.
func cardNumber(digits string) bool {
	n := len(digits)
	if n < 13 || n > 19 || !luhn(digits) {
		return false
	}
	p2 := atoi(digits[:2])
	p3 := atoi(digits[:3])
	p4 := atoi(digits[:4])
	switch {
	case digits[0] == '4': // Visa
		return n == 13 || n == 16 || n == 19
	case p2 >= 51 && p2 <= 55, p4 >= 2221 && p4 <= 2720: // Mastercard
		return n == 16
	case p2 == 34 || p2 == 37: // American Express
		return n == 15
	case p4 == 6011, p2 == 65, p3 >= 644 && p3 <= 649: // Discover
		return n >= 16
	case p4 >= 3528 && p4 <= 3589: // JCB
		return n >= 16
	case p3 >= 300 && p3 <= 305, p2 == 36, p2 == 38: // Diners Club
		return n >= 14
	case p2 == 62: // UnionPay
		return n >= 16
	}
	return false
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// luhn reports whether a string of digits passes the Luhn checksum.
func luhn(digits string) bool {
	sum := 0
	double := false
	for i := len(digits) - 1; i >= 0; i-- {
		d := int(digits[i] - '0')
		if double {
			d *= 2
			if d > 9 {
				d -= 9
			}
		}
		sum += d
		double = !double
	}
	return sum%10 == 0
}

// hasSSN looks for a US social security number outside the ranges the SSA
// never issues: area 000, 666 and 900-999, group 00, serial 0000.
func hasSSN(text string) bool {
	for _, m := range ssn.FindAllStringSubmatch(text, -1) {
		area, group, serial := atoi(m[1]), atoi(m[2]), atoi(m[3])
		if area == 0 || area == 666 || area >= 900 || group == 0 || serial == 0 {
			continue
		}
		return true
	}
	return false
}

// hasIBAN looks for an IBAN of a known country with its length, passing
// the ISO 7064 mod-97 check. Text matched past the country's length (a
// following word in capitals) is cut off first.
func hasIBAN(text string) bool {
	for _, m := range iban.FindAllString(text, -1) {
		compact := strings.ReplaceAll(m, " ", "")
		n, ok := ibanLengths[compact[:2]]
		if !ok || len(compact) < n {
			continue
		}
		if ibanValid(compact[:n]) {
			return true
		}
	}
	return false
}

// ibanValid computes the mod-97 check of an IBAN without spaces.
func ibanValid(s string) bool {
	rearranged := s[4:] + s[:4]
	rem := 0
	for i := 0; i < len(rearranged); i++ {
		c := rearranged[i]
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			return false
		}
	}
	return rem == 1
}

// ibanLengths is the IBAN length of each country in the SWIFT registry.
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22,
	"BH": 22, "BI": 27, "BR": 29, "BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24,
	"DE": 22, "DJ": 27, "DK": 18, "DO": 28, "EE": 20, "EG": 29, "ES": 24, "FI": 18,
	"FK": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27,
	"GT": 28, "HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27,
	"JO": 30, "KW": 30, "KZ": 20, "LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20,
	"LV": 21, "LY": 25, "MC": 27, "MD": 24, "ME": 22, "MK": 19, "MN": 20, "MR": 27,
	"MT": 31, "MU": 30, "NI": 28, "NL": 18, "NO": 15, "OM": 23, "PK": 24, "PL": 28,
	"PS": 29, "PT": 25, "QA": 29, "RO": 24, "RS": 22, "RU": 33, "SA": 24, "SC": 31,
	"SD": 18, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "SO": 23, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20, "YE": 30,
}
