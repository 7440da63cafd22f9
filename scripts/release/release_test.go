package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gotest.tools/v3/assert"
)

// TestPack checks that an archive's bytes depend on its binary alone and
// that what a user unpacks is the binary, executable, owned by root, with
// the fixed time.
func TestPack(t *testing.T) {
	bin := bytes.Repeat([]byte("evalgate binary "), 1000)
	for _, tg := range []target{{"linux", "amd64"}, {"darwin", "arm64"}, {"windows", "amd64"}} {
		t.Run(tg.String(), func(t *testing.T) {
			var a, b bytes.Buffer
			assert.NilError(t, pack(&a, tg, bin))
			assert.NilError(t, pack(&b, tg, bin))
			assert.Assert(t, bytes.Equal(a.Bytes(), b.Bytes()), "two packs of the same binary differ")

			if tg.goos == "windows" {
				zr, err := zip.NewReader(bytes.NewReader(a.Bytes()), int64(a.Len()))
				assert.NilError(t, err)
				assert.Equal(t, len(zr.File), 1)
				f := zr.File[0]
				assert.Equal(t, f.Name, "evalgate.exe")
				assert.Equal(t, f.Mode(), os.FileMode(0o755))
				assert.Assert(t, f.Modified.Equal(archiveTime), "modified %v", f.Modified)
				assert.DeepEqual(t, readAll(t, f.Open), bin)
				return
			}
			gz, err := gzip.NewReader(bytes.NewReader(a.Bytes()))
			assert.NilError(t, err)
			assert.Equal(t, gz.Name, "")
			assert.Assert(t, gz.ModTime.IsZero(), "gzip time %v", gz.ModTime)
			tr := tar.NewReader(gz)
			h, err := tr.Next()
			assert.NilError(t, err)
			assert.Equal(t, h.Name, "evalgate")
			assert.Equal(t, h.Mode, int64(0o755))
			assert.Equal(t, h.Uid, 0)
			assert.Equal(t, h.Gid, 0)
			assert.Equal(t, h.Uname, "")
			assert.Assert(t, h.ModTime.Equal(archiveTime), "mtime %v", h.ModTime)
			data, err := io.ReadAll(tr)
			assert.NilError(t, err)
			assert.DeepEqual(t, data, bin)
			_, err = tr.Next()
			assert.Equal(t, err, io.EOF, "one file per archive")
		})
	}
}

func readAll(t *testing.T, open func() (io.ReadCloser, error)) []byte {
	t.Helper()
	r, err := open()
	assert.NilError(t, err)
	defer r.Close()
	data, err := io.ReadAll(r)
	assert.NilError(t, err)
	return data
}

const header = "# SHA-256 sums of the release archives.\n#\n# A header the tool keeps.\n"

// TestWriteThenCheck runs the tool as a release is made: a build writes its
// sums into the checksums file, another build from another copy of the
// source checks against it, and a file whose sums differ stops a release.
func TestWriteThenCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a module twice")
	}
	module := writeModule(t)
	sums := filepath.Join(t.TempDir(), "checksums.txt")
	older := strings.Repeat("a", 64) + "  evalgate_0.9.0_linux_amd64.tar.gz\n"
	assert.NilError(t, os.WriteFile(sums, []byte(header+older), 0o644))
	targets := "linux/amd64,windows/arm64"

	first := filepath.Join(t.TempDir(), "first")
	r := runTool(t, "-dir", module, "-out", first, "-targets", targets, "-checksums", sums, "v1.2.3", "-write")
	assert.Equal(t, r.code, exitOK, r.stderr)
	written, err := os.ReadFile(sums)
	assert.NilError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(written), "\n"), "\n")
	assert.Equal(t, strings.Join(lines[:4], "\n")+"\n", header+older, "the header and earlier releases stay as they were")
	assert.Equal(t, len(lines), 6)
	assert.Assert(t, strings.HasSuffix(lines[4], "  evalgate_1.2.3_linux_amd64.tar.gz"), lines[4])
	assert.Assert(t, strings.HasSuffix(lines[5], "  evalgate_1.2.3_windows_arm64.zip"), lines[5])
	listed, err := os.ReadFile(filepath.Join(first, "checksums.txt"))
	assert.NilError(t, err)
	assert.Equal(t, string(listed), lines[4]+"\n"+lines[5]+"\n", "DIR/checksums.txt lists this build")
	for _, name := range []string{"evalgate_1.2.3_linux_amd64.tar.gz", "evalgate_1.2.3_windows_arm64.zip"} {
		_, err := os.Stat(filepath.Join(first, name))
		assert.NilError(t, err)
	}

	// Writing the same release again replaces its lines.
	r = runTool(t, "-dir", module, "-out", filepath.Join(t.TempDir(), "again"), "-targets", targets, "-checksums", sums, "-write", "v1.2.3")
	assert.Equal(t, r.code, exitOK, r.stderr)
	again, err := os.ReadFile(sums)
	assert.NilError(t, err)
	assert.Equal(t, string(again), string(written))

	// Another copy of the source, at another path, builds the same bytes.
	copyOf := writeModule(t)
	r = runTool(t, "-dir", copyOf, "-out", filepath.Join(t.TempDir(), "second"), "-targets", targets, "-checksums", sums, "-check", "v1.2.3")
	assert.Equal(t, r.code, exitOK, r.stderr)
	assert.Assert(t, strings.Contains(r.stdout, "every v1.2.3 archive matches "+sums), r.stdout)

	type testCase struct {
		name    string
		edit    func(string) string
		wantErr []string
	}
	linux := lines[4][:64]
	for _, tc := range []testCase{
		{
			name:    "a sum differs",
			edit:    func(s string) string { return strings.Replace(s, linux, strings.Repeat("0", 64), 1) },
			wantErr: []string{"evalgate_1.2.3_linux_amd64.tar.gz: built " + linux + ", listed " + strings.Repeat("0", 64)},
		},
		{
			name:    "an archive is not listed",
			edit:    func(s string) string { return strings.Replace(s, lines[5]+"\n", "", 1) },
			wantErr: []string{"evalgate_1.2.3_windows_arm64.zip: built ", ", not listed"},
		},
		{
			name:    "a listed archive is not built",
			edit:    func(s string) string { return s + strings.Repeat("b", 64) + "  evalgate_1.2.3_plan9_amd64.tar.gz\n" },
			wantErr: []string{"evalgate_1.2.3_plan9_amd64.tar.gz: listed " + strings.Repeat("b", 64) + ", not built"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			edited := filepath.Join(t.TempDir(), "checksums.txt")
			assert.NilError(t, os.WriteFile(edited, []byte(tc.edit(string(written))), 0o644))
			r := runTool(t, "-dir", module, "-out", filepath.Join(t.TempDir(), "out"), "-targets", targets, "-checksums", edited, "-check", "v1.2.3")
			assert.Equal(t, r.code, exitMismatch, r.stderr)
			for _, want := range tc.wantErr {
				assert.Assert(t, strings.Contains(r.stderr, want), "stderr lacks %q:\n%s", want, r.stderr)
			}
			assert.Assert(t, strings.Contains(r.stderr, "release: the v1.2.3 archives built here do not match "+edited+": they must not be published"), r.stderr)
		})
	}
}

func TestUsageErrors(t *testing.T) {
	goVersion := runtime.Version()
	sums := filepath.Join(t.TempDir(), "checksums.txt")
	assert.NilError(t, os.WriteFile(sums, []byte(header+"0123  evalgate_1.0.0_linux_amd64.tar.gz\n"), 0o644))
	full := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(full, "old.tar.gz"), nil, 0o644))
	type testCase struct {
		name string
		args []string
		want string
	}
	run := func(t *testing.T, tc testCase) {
		args := append([]string{"release"}, tc.args...)
		var stdout, stderr bytes.Buffer
		code := run(args, &stdout, &stderr)
		assert.Equal(t, code, exitUsage, stderr.String())
		assert.Assert(t, strings.Contains(stderr.String(), tc.want), "stderr lacks %q:\n%s", tc.want, stderr.String())
	}
	for _, tc := range []testCase{
		{name: "no version", args: []string{"-go", goVersion}, want: "expected one VERSION, e.g. v1.2.3; got 0 arguments"},
		{name: "not a release version", args: []string{"-go", goVersion, "1.2.3"}, want: `version "1.2.3" is not a release version like v1.2.3`},
		{name: "a pre-release", args: []string{"-go", goVersion, "v1.2.3-rc.1"}, want: `version "v1.2.3-rc.1" is not a release version`},
		{name: "no Go pinned", args: []string{"v1.2.3"}, want: "-go is missing: run scripts/release-build.sh"},
		{name: "another Go", args: []string{"-go", "go1.2.3", "v1.2.3"}, want: "releases are built with go1.2.3, but this is " + goVersion + ": run scripts/release-build.sh, which sets GOTOOLCHAIN=go1.2.3"},
		{name: "write and check", args: []string{"-go", goVersion, "-write", "-check", "v1.2.3"}, want: "-write and -check exclude each other"},
		{name: "unknown target", args: []string{"-go", goVersion, "-targets", "linux/amd64,plan9/386", "v1.2.3"}, want: `-targets: "plan9/386" is not a release target; expected some of linux/amd64, linux/arm64, darwin/amd64, darwin/arm64, windows/amd64, windows/arm64`},
		{name: "unknown flag", args: []string{"-go", goVersion, "-sign", "v1.2.3"}, want: "flag provided but not defined: -sign"},
		{name: "output folder in use", args: []string{"-go", goVersion, "-out", full, "v1.2.3"}, want: full + " is not empty: remove it or pass another -out"},
		{name: "malformed checksums line", args: []string{"-go", goVersion, "-out", filepath.Join(t.TempDir(), "out"), "-checksums", sums, "-check", "v1.2.3"},
			want: sums + `:4: expected "<sha256>  evalgate_<version>_<os>_<arch>.<tar.gz|zip>"`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

type result struct {
	code           int
	stdout, stderr string
}

// runTool runs the tool with the Go running the test as the pinned one.
func runTool(t *testing.T, args ...string) result {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(append([]string{"release", "-go", runtime.Version()}, args...), &stdout, &stderr)
	return result{code, stdout.String(), stderr.String()}
}

// writeModule writes a small main module to build, in a new folder.
func writeModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/tiny\n\ngo 1.21\n"), 0o644))
	assert.NilError(t, os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { println(\"tiny\") }\n"), 0o644))
	return dir
}

// TestVerifyScript runs scripts/release-verify.sh, the publish job's last
// check, on archives it must let through and on archives it must stop.
func TestVerifyScript(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed")
	}
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("sha256sum is not installed")
	}
	archives := map[string]string{
		"evalgate_1.2.3_linux_amd64.tar.gz": "linux archive",
		"evalgate_1.2.3_windows_arm64.zip":  "windows archive",
	}
	var lines []string
	for name, body := range archives {
		lines = append(lines, sha256Hex(body)+"  "+name)
	}
	slices.Sort(lines)
	listed := strings.Join(lines, "\n") + "\n"
	other := strings.Repeat("c", 64) + "  evalgate_1.2.2_linux_amd64.tar.gz\n"

	type testCase struct {
		name      string
		checksums string           // the committed file
		edit      func(dir string) // changes to the archives' folder
		version   string           // default v1.2.3
		wantErr   string           // empty: it passes
	}
	run := func(t *testing.T, tc testCase) {
		dir := t.TempDir()
		for name, body := range archives {
			assert.NilError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
		}
		assert.NilError(t, os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(listed), 0o644))
		if tc.edit != nil {
			tc.edit(dir)
		}
		sums := filepath.Join(t.TempDir(), "checksums.txt")
		assert.NilError(t, os.WriteFile(sums, []byte(tc.checksums), 0o644))
		if tc.version == "" {
			tc.version = "v1.2.3"
		}
		out, err := exec.Command(bash, filepath.Join("..", "release-verify.sh"), tc.version, dir, sums).CombinedOutput()
		if tc.wantErr == "" {
			assert.NilError(t, err, "%s", out)
			assert.Assert(t, strings.Contains(string(out), "the 2 archives of v1.2.3 in "+dir+" match "+sums), "%s", out)
			return
		}
		assert.Assert(t, err != nil, "release-verify.sh let it through: %s", out)
		assert.Assert(t, strings.HasPrefix(lastLine(string(out)), "release-verify: "), "%s", out)
		assert.Assert(t, strings.Contains(lastLine(string(out)), strings.ReplaceAll(tc.wantErr, "DIR", dir)), "%s", out)
	}
	for _, tc := range []testCase{
		{name: "archives as listed", checksums: header + other + listed},
		{name: "an archive changed", checksums: header + listed,
			edit:    func(dir string) { writeFile(t, filepath.Join(dir, "evalgate_1.2.3_linux_amd64.tar.gz"), "tampered") },
			wantErr: "the archives in DIR do not match the sums of v1.2.3"},
		{name: "an archive missing", checksums: header + listed,
			edit: func(dir string) {
				assert.NilError(t, os.Remove(filepath.Join(dir, "evalgate_1.2.3_windows_arm64.zip")))
			},
			wantErr: "the archives in DIR do not match the sums of v1.2.3"},
		{name: "a file not listed", checksums: header + listed,
			edit:    func(dir string) { writeFile(t, filepath.Join(dir, "evalgate_1.2.3_plan9_amd64.tar.gz"), "extra") },
			wantErr: "DIR/evalgate_1.2.3_plan9_amd64.tar.gz is not listed in"},
		{name: "the build's checksums.txt differs", checksums: header + listed,
			edit:    func(dir string) { writeFile(t, filepath.Join(dir, "checksums.txt"), lines[0]+"\n") },
			wantErr: "DIR/checksums.txt differs from the lines of v1.2.3"},
		{name: "nothing listed for the version", checksums: header + other,
			wantErr: "lists no archive of v1.2.3: write them with scripts/release-build.sh v1.2.3 --write and tag that commit"},
		{name: "not a release version", checksums: header + listed, version: "v1.2",
			wantErr: `version "v1.2" is not a release version like v1.2.3`},
	} {
		t.Run(tc.name, func(t *testing.T) { run(t, tc) })
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	assert.NilError(t, os.WriteFile(path, []byte(data), 0o644))
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
