package process

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"gotest.tools/v3/assert"
	is "gotest.tools/v3/assert/cmp"
)

func TestBoundedBuffer(t *testing.T) {
	type testCase struct {
		name        string
		max         int
		writes      []string
		want        string
		wantDropped int64
	}
	run := func(t *testing.T, tc testCase) {
		b := &boundedBuffer{max: tc.max}
		for _, w := range tc.writes {
			n, err := b.Write([]byte(w))
			assert.Assert(t, n == len(w) && err == nil, "Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
		}
		got := string(b.bytes())
		assert.Check(t, got == tc.want && b.dropped == tc.wantDropped, "Write: kept %q, dropped %d; want %q, %d", got, b.dropped, tc.want, tc.wantDropped)

		// ReadFrom, as os/exec uses it, keeps the same, in small reads.
		b = &boundedBuffer{max: tc.max}
		all := strings.Join(tc.writes, "")
		n, err := b.ReadFrom(iotest.OneByteReader(strings.NewReader(all)))
		assert.Assert(t, n == int64(len(all)) && err == nil, "ReadFrom = %d, %v; want %d, nil", n, err, len(all))
		got = string(b.bytes())
		assert.Check(t, got == tc.want && b.dropped == tc.wantDropped, "ReadFrom: kept %q, dropped %d; want %q, %d", got, b.dropped, tc.want, tc.wantDropped)
	}
	for _, tc := range []testCase{
		{name: "fits", max: 10, writes: []string{"abc", "def"}, want: "abcdef"},
		{name: "cut inside a write", max: 4, writes: []string{"abc", "def"}, want: "abcd", wantDropped: 2},
		{name: "full before a write", max: 3, writes: []string{"abc", "def"}, want: "abc", wantDropped: 3},
		{name: "keeps nothing", max: 0, writes: []string{"abc"}, want: "", wantDropped: 3},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func TestReadLine(t *testing.T) {
	type testCase struct {
		name     string
		in       string
		maxLine  int
		maxTotal int64
		want     []string
		wantErr  error // after the lines
	}
	run := func(t *testing.T, tc testCase) {
		l := newLineReader(strings.NewReader(tc.in), 16, tc.maxLine, tc.maxTotal)
		var got []string
		var err error
		for {
			var line []byte
			line, err = l.readLine()
			if err != nil {
				break
			}
			got = append(got, string(line))
		}
		assert.Check(t, is.DeepEqual(tc.want, got), "lines")
		assert.Check(t, errors.Is(err, tc.wantErr), "error = %v, want %v", err, tc.wantErr)
	}
	long := strings.Repeat("x", 40) // longer than the reader's buffer
	for _, tc := range []testCase{
		{name: "lines", in: "a\r\n\n" + long + "\nlast", maxLine: 40, maxTotal: 100, want: []string{"a", "", long, "last"}, wantErr: io.EOF},
		{name: "at the line cap without a newline", in: long, maxLine: 40, maxTotal: 100, want: []string{long}, wantErr: io.EOF},
		{name: "over the line cap", in: "ok\n" + long + "\n", maxLine: 39, maxTotal: 100, want: []string{"ok"}, wantErr: ErrLineTooLong},
		{name: "over the line cap without a newline", in: long, maxLine: 39, maxTotal: 100, wantErr: ErrLineTooLong},
		{name: "at the total cap", in: "abc\ndef\n", maxLine: 40, maxTotal: 8, want: []string{"abc", "def"}, wantErr: io.EOF},
		{name: "over the total cap", in: "abc\ndef\n", maxLine: 40, maxTotal: 7, want: []string{"abc"}, wantErr: ErrOutputTooLarge},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}
