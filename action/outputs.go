package action

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// outputName is what an output name may look like; anything else could
// break the file format of GITHUB_OUTPUT.
var outputName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// WriteOutputs appends the step outputs to the file named by GITHUB_OUTPUT,
// each as a heredoc with its own random delimiter
// (name<<ghadelimiter_<32 hex digits>), so a value cannot end its heredoc
// early and inject another output: it would have to guess 128 random bits.
// Names are written in sorted order.
func WriteOutputs(env func(string) string, outs map[string]string) error {
	path := env("GITHUB_OUTPUT")
	if path == "" {
		return fmt.Errorf("could not write outputs: GITHUB_OUTPUT is not set")
	}
	names := make([]string, 0, len(outs))
	for name := range outs {
		if !outputName.MatchString(name) {
			return fmt.Errorf("could not write output %q: a name is letters, digits, - and _", name)
		}
		names = append(names, name)
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		value := outs[name]
		delim, err := outputDelimiter(value)
		if err != nil {
			return fmt.Errorf("could not write output %q: %w", name, err)
		}
		fmt.Fprintf(&b, "%s<<%s\n%s\n%s\n", name, delim, value, delim)
	}
	if err := appendFile(path, b.String()); err != nil {
		return fmt.Errorf("could not write outputs to %q: %w", path, err)
	}
	return nil
}

// outputDelimiter returns a fresh random delimiter that does not occur in
// value.
func outputDelimiter(value string) (string, error) {
	for range 3 {
		var buf [16]byte
		if _, err := rand.Read(buf[:]); err != nil {
			return "", err
		}
		delim := "ghadelimiter_" + hex.EncodeToString(buf[:])
		if !strings.Contains(value, delim) {
			return delim, nil
		}
	}
	return "", fmt.Errorf("the value contains every delimiter tried")
}

// MaxStepSummary is the size GitHub accepts for one step's job summary.
const MaxStepSummary = 1 << 20

// summaryNote ends a job summary that was cut to fit MaxStepSummary.
const summaryNote = "\n\n---\n_evalgate: the scorecard was truncated to fit the 1 MiB job summary limit; the full scorecard is the file in the `scorecard` output._\n"

// AppendStepSummary appends markdown to the job summary file named by
// GITHUB_STEP_SUMMARY. When the file would grow past MaxStepSummary, the
// markdown is cut at a line end (never inside a UTF-8 character) and a note
// says so; truncated reports it.
func AppendStepSummary(env func(string) string, markdown string) (truncated bool, err error) {
	path := env("GITHUB_STEP_SUMMARY")
	if path == "" {
		return false, fmt.Errorf("could not write the job summary: GITHUB_STEP_SUMMARY is not set")
	}
	var used int64
	if fi, err := os.Stat(path); err == nil {
		used = fi.Size()
	}
	room := MaxStepSummary - int(used) - 1 // the newline we add
	if !strings.HasSuffix(markdown, "\n") {
		markdown += "\n"
	}
	if len(markdown) > room {
		markdown, truncated = truncateMarkdown(markdown, room-len(summaryNote)), true
		if markdown != "" || room >= len(summaryNote) {
			markdown += summaryNote
		}
	}
	if markdown == "" {
		return truncated, nil
	}
	if err := appendFile(path, markdown); err != nil {
		return truncated, fmt.Errorf("could not write the job summary to %q: %w", path, err)
	}
	return truncated, nil
}

// truncateMarkdown cuts s to at most n bytes, at the last line end when
// there is one, and never inside a UTF-8 sequence.
func truncateMarkdown(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	cut := s[:n]
	if i := strings.LastIndexByte(cut, '\n'); i > 0 {
		return cut[:i+1]
	}
	for len(cut) > 0 && !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	return cut
}

func appendFile(path, s string) (err error) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	_, err = f.WriteString(s)
	return err
}
