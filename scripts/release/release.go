package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"
)

// Exit codes.
const (
	exitOK       = 0
	exitMismatch = 1 // -check: the archives differ from the checksums file
	exitUsage    = 2
	exitBuild    = 3
)

// target is one platform a release is built for.
type target struct{ goos, goarch string }

func (t target) String() string { return t.goos + "/" + t.goarch }

// archive is the name of the target's archive of version (v1.2.3), the name
// action/install.sh downloads.
func (t target) archive(version string) string {
	ext := "tar.gz"
	if t.goos == "windows" {
		ext = "zip"
	}
	return fmt.Sprintf("evalgate_%s_%s_%s.%s", strings.TrimPrefix(version, "v"), t.goos, t.goarch, ext)
}

func (t target) binary() string {
	if t.goos == "windows" {
		return "evalgate.exe"
	}
	return "evalgate"
}

// allTargets are the platforms of every release.
var allTargets = []target{
	{"linux", "amd64"}, {"linux", "arm64"},
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// archiveTime is the modification time of the binary in every archive, so
// that an archive's bytes depend on the binary alone.
var archiveTime = time.Date(2020, time.January, 1, 0, 0, 0, 0, time.UTC)

// versionRE is a release version: tags vX.Y.Z.
var versionRE = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$`)

type options struct {
	version   string
	goVersion string
	out       string
	dir       string
	checksums string
	targets   []target
	write     bool
	check     bool
}

// exitError is an error with the exit code it stands for.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }

func usageError(format string, a ...any) error {
	return &exitError{exitUsage, fmt.Errorf(format, a...)}
}

func run(args []string, stdout, stderr io.Writer) int {
	err := release(args, stdout, stderr)
	if err == nil {
		return exitOK
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	fmt.Fprintln(stderr, "release:", err)
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	return exitBuild
}

func release(args []string, stdout, stderr io.Writer) error {
	opts, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	if err := emptyDir(opts.out); err != nil {
		return err
	}
	var file *sumsFile
	if opts.write || opts.check {
		// Read before building, so that a bad file fails fast.
		if file, err = readSums(opts.checksums); err != nil {
			return usageError("%w", err)
		}
	}
	sums, err := buildAll(opts, stderr)
	if err != nil {
		return err
	}
	var list bytes.Buffer
	for _, s := range sums {
		fmt.Fprintf(&list, "%s  %s\n", s.sum, s.name)
	}
	if err := os.WriteFile(filepath.Join(opts.out, "checksums.txt"), list.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprint(stdout, list.String())
	switch {
	case opts.write:
		file.replace(opts.version, sums)
		if err := os.WriteFile(opts.checksums, file.bytes(), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote the %d sums of %s to %s\n", len(sums), opts.version, opts.checksums)
	case opts.check:
		if problems := file.check(opts.version, sums); len(problems) > 0 {
			for _, p := range problems {
				fmt.Fprintln(stderr, p)
			}
			return &exitError{exitMismatch, fmt.Errorf("the %s archives built here do not match %s: they must not be published", opts.version, opts.checksums)}
		}
		fmt.Fprintf(stdout, "every %s archive matches %s\n", opts.version, opts.checksums)
	}
	return nil
}

func parseArgs(args []string, stderr io.Writer) (options, error) {
	opts := options{checksums: filepath.Join("action", "checksums.txt")}
	fs := flag.NewFlagSet(args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&opts.goVersion, "go", "", "the Go that builds releases, e.g. go1.26.8 (scripts/release-build.sh sets it)")
	fs.StringVar(&opts.out, "out", "dist", "the folder for the archives and their checksums.txt; it must be empty or absent")
	fs.StringVar(&opts.dir, "dir", ".", "the module to build")
	fs.StringVar(&opts.checksums, "checksums", opts.checksums, "the checksums file of -write and -check")
	targets := fs.String("targets", "", "comma-separated os/arch pairs; empty builds every release target")
	fs.BoolVar(&opts.write, "write", false, "put the archives' sums into the checksums file, replacing earlier lines of VERSION")
	fs.BoolVar(&opts.check, "check", false, "fail unless the checksums file lists exactly these archives' sums for VERSION")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: %s -go GOVERSION [flags] VERSION\n", args[0])
		fs.PrintDefaults()
	}
	// Flags may come before or after VERSION.
	var positional []string
	rest := args[1:]
	for {
		if err := fs.Parse(rest); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return opts, err
			}
			return opts, &exitError{exitUsage, err}
		}
		if rest = fs.Args(); len(rest) == 0 {
			break
		}
		positional, rest = append(positional, rest[0]), rest[1:]
	}
	if len(positional) != 1 {
		return opts, usageError("expected one VERSION, e.g. v1.2.3; got %d arguments", len(positional))
	}
	opts.version = positional[0]
	if !versionRE.MatchString(opts.version) {
		return opts, usageError("version %q is not a release version like v1.2.3", opts.version)
	}
	if opts.goVersion == "" {
		return opts, usageError("-go is missing: run scripts/release-build.sh, which pins the Go that builds releases")
	}
	if opts.goVersion != runtime.Version() {
		return opts, usageError("releases are built with %s, but this is %s: run scripts/release-build.sh, which sets GOTOOLCHAIN=%s", opts.goVersion, runtime.Version(), opts.goVersion)
	}
	if opts.write && opts.check {
		return opts, usageError("-write and -check exclude each other")
	}
	opts.targets = allTargets
	if *targets != "" {
		opts.targets = nil
		for _, s := range strings.Split(*targets, ",") {
			i := slices.IndexFunc(allTargets, func(t target) bool { return t.String() == strings.TrimSpace(s) })
			if i < 0 {
				return opts, usageError("-targets: %q is not a release target; expected some of %s", s, targetList())
			}
			opts.targets = append(opts.targets, allTargets[i])
		}
	}
	return opts, nil
}

func targetList() string {
	var names []string
	for _, t := range allTargets {
		names = append(names, t.String())
	}
	return strings.Join(names, ", ")
}

// emptyDir creates dir, or checks that it is empty: archives of another
// build left in it could be published with this one.
func emptyDir(dir string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return os.MkdirAll(dir, 0o755)
	}
	if err != nil {
		return &exitError{exitBuild, err}
	}
	if len(entries) > 0 {
		return usageError("%s is not empty: remove it or pass another -out", dir)
	}
	return nil
}

// sum is one archive and its SHA-256 in hex.
type sum struct{ sum, name string }

// buildAll builds and packs every target into opts.out.
func buildAll(opts options, stderr io.Writer) ([]sum, error) {
	tmp, err := os.MkdirTemp("", "evalgate-release-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var sums []sum
	for _, t := range opts.targets {
		fmt.Fprintf(stderr, "building %s for %s with %s\n", opts.version, t, opts.goVersion)
		bin := filepath.Join(tmp, t.goos+"-"+t.goarch, t.binary())
		if err := buildBinary(opts, t, bin, stderr); err != nil {
			return nil, &exitError{exitBuild, fmt.Errorf("could not build %s: %w", t, err)}
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := pack(&buf, t, data); err != nil {
			return nil, fmt.Errorf("could not pack %s: %w", t, err)
		}
		name := t.archive(opts.version)
		if err := os.WriteFile(filepath.Join(opts.out, name), buf.Bytes(), 0o644); err != nil {
			return nil, err
		}
		h := sha256.Sum256(buf.Bytes())
		sums = append(sums, sum{hex.EncodeToString(h[:]), name})
	}
	slices.SortFunc(sums, func(a, b sum) int { return strings.Compare(a.name, b.name) })
	return sums, nil
}

// buildBinary builds the target's binary with nothing from the environment
// that could change its bytes: no cgo, no paths (-trimpath), no VCS stamp
// (the commit that adds the sums is not the commit they were built from),
// the baseline instruction sets, the pinned Go.
func buildBinary(opts options, t target, dst string, stderr io.Writer) error {
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags", "-s -w -X github.com/evalgate/evalgate/cli.Version="+opts.version,
		"-o", dst, ".")
	cmd.Dir = opts.dir
	cmd.Stdout, cmd.Stderr = stderr, stderr
	cmd.Env = append(withoutVars(os.Environ(),
		"CGO_ENABLED", "GOOS", "GOARCH", "GOFLAGS", "GOWORK", "GOEXPERIMENT",
		"GOAMD64", "GOARM64", "GOTOOLCHAIN", "GODEBUG"),
		"CGO_ENABLED=0", "GOOS="+t.goos, "GOARCH="+t.goarch,
		"GOFLAGS=-mod=readonly", "GOWORK=off", "GOAMD64=v1", "GOARM64=v8.0",
		"GOTOOLCHAIN="+opts.goVersion)
	return cmd.Run()
}

func withoutVars(env []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, name)
	})
}

// pack writes the archive of one binary: a .tar.gz, or a .zip for windows.
// Times, owners and modes are fixed and gzip carries no name or time, so
// the same binary always gives the same bytes.
func pack(w io.Writer, t target, bin []byte) error {
	if t.goos == "windows" {
		zw := zip.NewWriter(w)
		h := &zip.FileHeader{Name: t.binary(), Method: zip.Deflate, Modified: archiveTime}
		h.SetMode(0o755)
		f, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := f.Write(bin); err != nil {
			return err
		}
		return zw.Close()
	}
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	err = tw.WriteHeader(&tar.Header{
		Typeflag: tar.TypeReg,
		Name:     t.binary(),
		Mode:     0o755,
		Size:     int64(len(bin)),
		ModTime:  archiveTime,
		Format:   tar.FormatUSTAR,
	})
	if err != nil {
		return err
	}
	if _, err := tw.Write(bin); err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// sumsFile is action/checksums.txt: comment and blank lines, kept as they
// are, and one "<sha256>  <archive>" line per archive.
type sumsFile struct {
	lines []string // every line, without its newline
}

var sumLineRE = regexp.MustCompile(`^([0-9a-f]{64})  (evalgate_\S+)$`)

func readSums(path string) (*sumsFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("could not read the checksums file: %w", err)
	}
	defer f.Close()
	file := &sumsFile{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if trimmed := strings.TrimSpace(line); trimmed != "" && !strings.HasPrefix(trimmed, "#") && !sumLineRE.MatchString(line) {
			return nil, fmt.Errorf("%s:%d: expected \"<sha256>  evalgate_<version>_<os>_<arch>.<tar.gz|zip>\" (64 lowercase hex digits, two spaces, the archive) or a # comment", path, n)
		}
		file.lines = append(file.lines, line)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("could not read %s: %w", path, err)
	}
	return file, nil
}

// listed is the sums the file lists for version, by archive name.
func (f *sumsFile) listed(version string) map[string]string {
	prefix := "evalgate_" + strings.TrimPrefix(version, "v") + "_"
	m := map[string]string{}
	for _, line := range f.lines {
		if sub := sumLineRE.FindStringSubmatch(line); sub != nil && strings.HasPrefix(sub[2], prefix) {
			m[sub[2]] = sub[1]
		}
	}
	return m
}

// replace drops the lines of version and appends sums.
func (f *sumsFile) replace(version string, sums []sum) {
	old := f.listed(version)
	f.lines = slices.DeleteFunc(f.lines, func(line string) bool {
		sub := sumLineRE.FindStringSubmatch(line)
		return sub != nil && old[sub[2]] != ""
	})
	for _, s := range sums {
		f.lines = append(f.lines, s.sum+"  "+s.name)
	}
}

func (f *sumsFile) bytes() []byte {
	return []byte(strings.Join(f.lines, "\n") + "\n")
}

// check compares the file's lines of version with sums, one problem a line.
func (f *sumsFile) check(version string, sums []sum) []string {
	listed := f.listed(version)
	var problems []string
	for _, s := range sums {
		want, ok := listed[s.name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: built %s, not listed", s.name, s.sum))
		case want != s.sum:
			problems = append(problems, fmt.Sprintf("%s: built %s, listed %s", s.name, s.sum, want))
		}
		delete(listed, s.name)
	}
	for _, name := range slices.Sorted(maps.Keys(listed)) {
		problems = append(problems, fmt.Sprintf("%s: listed %s, not built", name, listed[name]))
	}
	return problems
}
