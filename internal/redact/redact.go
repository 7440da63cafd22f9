// Package redact keeps credentials out of what evalgate prints and writes:
// error messages, results.json and transcripts. A Redactor replaces the
// password of every URL with "xxxxx", as url.URL.Redacted does, and every
// occurrence of the credentials evalgate knows (the API keys it read from
// the environment, the GitHub token, URL passwords) with "[redacted]".
//
// String is the one redaction function; JSON applies it to the strings of
// a JSON document, which stays valid.
package redact

import (
	"bytes"
	"cmp"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"unicode"
)

// Mask replaces a known credential.
const Mask = "[redacted]"

// PasswordMask replaces the password of a URL, as url.URL.Redacted does.
const PasswordMask = "xxxxx"

// MinSecretLen is the length below which a value is not taken for a
// credential: no API key or token is that short, and redacting every
// occurrence of a short word ("test", "none") would blank out ordinary
// text.
const MinSecretLen = 8

// Redactor redacts one run's credentials. The zero value and nil redact
// URL passwords only. A Redactor is safe for concurrent use.
type Redactor struct {
	secrets  []string // longest first
	replacer *strings.Replacer
}

// New returns a Redactor of the given credentials. Empty values, white
// space around them and values shorter than MinSecretLen are dropped.
func New(secrets ...string) *Redactor {
	seen := map[string]bool{}
	var keep []string
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) < MinSecretLen || seen[s] {
			continue
		}
		seen[s] = true
		keep = append(keep, s)
	}
	// The longest first, so that a secret containing another is masked
	// whole.
	slices.SortStableFunc(keep, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	r := &Redactor{secrets: keep}
	if len(keep) > 0 {
		pairs := make([]string, 0, 2*len(keep))
		for _, s := range keep {
			pairs = append(pairs, s, Mask)
		}
		r.replacer = strings.NewReplacer(pairs...)
	}
	return r
}

// URLSecrets returns what a URL with a password gives away when a server
// echoes the request: the password, and the user and password as an HTTP
// Basic Authorization header carries them. None when raw has no password.
func URLSecrets(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return nil
	}
	pass, ok := u.User.Password()
	if !ok || pass == "" {
		return nil
	}
	basic := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + pass))
	return []string{pass, basic}
}

// String returns s with the password of every URL in it replaced by
// PasswordMask and every known credential by Mask.
func (r *Redactor) String(s string) string {
	s = redactURLs(s)
	if r == nil || r.replacer == nil {
		return s
	}
	return r.replacer.Replace(s)
}

// JSON returns data, a JSON document, with String applied to every string
// in it (keys too); data itself when nothing changed. Only strings are
// touched, so the document stays valid JSON.
func (r *Redactor) JSON(data []byte) []byte {
	if !r.mayHold(data) {
		return data
	}
	var out []byte
	last := 0
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(data) && data[j] != '"' {
			if data[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(data) {
			break
		}
		var s string
		if json.Unmarshal(data[i:j+1], &s) == nil {
			if red := r.String(s); red != s {
				out = append(out, data[last:i]...)
				out = appendString(out, red)
				last = j + 1
			}
		}
		i = j
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// appendString appends s to out as a JSON string, without the HTML
// escapes of json.Marshal.
func appendString(out []byte, s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(out, bytes.TrimSuffix(b.Bytes(), []byte("\n"))...)
}

// mayHold reports whether data might hold something to redact: a URL, or
// a credential as it is or escaped in a JSON string. A false answer is
// certain.
func (r *Redactor) mayHold(data []byte) bool {
	if bytes.Contains(data, []byte(":/")) { // "://", or ":\/\/" escaped
		return true
	}
	if r == nil {
		return false
	}
	for _, s := range r.secrets {
		if bytes.Contains(data, []byte(s)) {
			return true
		}
		if enc, _ := json.Marshal(s); !bytes.Contains(enc, []byte(s)) {
			return true // escaped in JSON: look closer, string by string
		}
	}
	return false
}

// redactURLs replaces the password of every scheme://user:password@host
// in s with PasswordMask. The authority of a URL ends at the first /, ?
// or #, or at a character no URL holds as it is (white space, quotes,
// angle brackets, a backslash); its user information at the last @.
func redactURLs(s string) string {
	if !strings.Contains(s, "://") {
		return s
	}
	var b strings.Builder
	rest := s
	for {
		i := strings.Index(rest, "://")
		if i < 0 {
			break
		}
		start := i + len("://")
		end := strings.IndexFunc(rest[start:], func(r rune) bool {
			return unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune("/?#\"'`<>\\", r)
		})
		if end < 0 {
			end = len(rest)
		} else {
			end += start
		}
		auth := rest[start:end]
		at := strings.LastIndexByte(auth, '@')
		colon := -1
		if at >= 0 {
			colon = strings.IndexByte(auth[:at], ':')
		}
		if colon < 0 {
			b.WriteString(rest[:end])
			rest = rest[end:]
			continue
		}
		b.WriteString(rest[:start+colon+1])
		b.WriteString(PasswordMask)
		b.WriteString(rest[start+at : end])
		rest = rest[end:]
	}
	b.WriteString(rest)
	return b.String()
}
