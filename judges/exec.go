package judges

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/evalgate/evalgate/internal/inputfile"
	"github.com/evalgate/evalgate/internal/process"
)

// Limits of the exec judge.
const (
	maxJudgeStdout = 1 << 20
	// identityFiles and identityBytes bound how much of a judge program's
	// folder is hashed into its identity.
	identityFiles = 256
	identityBytes = 8 << 20
)

// Exec is a rubric judge run as a program, for graders in any language
// (docs/judges.md, "The exec judge"). Each sample runs the program once: stdin gets one JSON object
//
//	{"criteria":[{"criterion":"...","weight":0.5}],"input":...,"output":...,"trace":[{"name","args","result","isError"}]}
//
// and stdout must hold {"criteria":[{"met":true,"reason":"..."}]}, one
// entry per criterion in order. A graded criterion comes with its "scale"
// ({"min","max","levels":[{"level","descriptor"}]}) and is answered with
// {"level":n,"reason":"..."}, n from min to max (docs/judges.md, "Graded criteria"). The program runs in its own process group
// with a scrubbed environment plus EVALGATE_SUITE_ID and EVALGATE_TASK_ID;
// a timeout or an over-size stdout kills the group. A non-zero exit or a
// malformed answer is an error for that task; a program that cannot be
// started is ErrUnavailable.
//
// Build it with NewExec; the zero value is not usable.
type Exec struct {
	command  []string
	dir      string
	env      []string
	samples  int
	timeout  time.Duration
	identity string
	tally    tally
}

var _ Rubric = (*Exec)(nil)

// ExecOptions configure NewExec.
type ExecOptions struct {
	Command []string // program and arguments
	Dir     string   // working directory; "" for the current one
	// Env is the program's whole environment, scrubbed by the caller of
	// evalgate's credentials; nil means only PATH and HOME of this process.
	Env     []string
	Samples int           // votes per decision; 1 when 0
	Timeout time.Duration // per run of the program; DefaultJudgeTimeout when 0
}

// NewExec returns an exec judge. Its identity hashes the content of the
// program: the first file or folder its command names (relative to Dir),
// such as judge.py in [python3, judge.py] or ./grader in [go, run,
// ./grader]; so editing the judge invalidates cached verdicts and
// calibrations. Later arguments count by name only, since they may be files
// the judge writes.
func NewExec(o ExecOptions) (*Exec, error) {
	if len(o.Command) == 0 || o.Command[0] == "" {
		return nil, errors.New("judge.exec: expected a non-empty command")
	}
	env := o.Env
	if env == nil {
		for _, k := range []string{"PATH", "HOME"} {
			if v, ok := os.LookupEnv(k); ok {
				env = append(env, k+"="+v)
			}
		}
	}
	e := &Exec{
		command: o.Command,
		dir:     o.Dir,
		env:     env,
		samples: max(o.Samples, 1),
		timeout: cmp.Or(o.Timeout, DefaultJudgeTimeout),
	}
	h := sha256.New()
	fmt.Fprintf(h, "exec\x00samples=%d", e.samples)
	hashed := false
	for _, arg := range o.Command {
		fmt.Fprintf(h, "\x00arg\x00%s", arg)
		if hashed {
			continue
		}
		if _, err := os.Stat(e.path(arg)); err != nil {
			continue // a flag, or an interpreter found on PATH
		}
		hashed = true
		if err := hashPath(h, e.path(arg)); err != nil {
			return nil, fmt.Errorf("could not read the judge program %q: %w", arg, err)
		}
	}
	e.identity = "exec\x00" + hex.EncodeToString(h.Sum(nil))
	return e, nil
}

// ID names the judge in results.json: "exec:" and its command line.
func (e *Exec) ID() string { return "exec:" + strings.Join(e.command, " ") }

// Identity is everything that changes the judge's verdicts: the command,
// the content of the program it runs, and samples.
func (e *Exec) Identity() string { return e.identity }

// Unavailable is non-nil when the judge was called and could never be
// started: the run cannot be trusted (exit 3).
func (e *Exec) Unavailable() error { return e.tally.err() }

// Decide runs the program Samples times and returns the majority verdict.
func (e *Exec) Decide(ctx context.Context, req *RubricRequest) (*RubricVerdict, error) {
	stdin, err := json.Marshal(execRequest{
		Criteria: req.Criteria,
		Input:    orNull(req.Input),
		Output:   orNull(req.Output),
		Trace:    traceForJudge(req.Trace),
	})
	if err != nil {
		return nil, fmt.Errorf("could not encode the judge request: %w", err)
	}
	return vote(ctx, e.samples, req, &e.tally, func(ctx context.Context, req *RubricRequest) (*RubricVerdict, error) {
		return e.sample(ctx, req, stdin)
	})
}

// execRequest is the judge program's stdin.
type execRequest struct {
	Criteria []RubricCriterion `json:"criteria"`
	Input    json.RawMessage   `json:"input"`
	Output   json.RawMessage   `json:"output"`
	Trace    []judgeTrace      `json:"trace"`
}

func (e *Exec) sample(ctx context.Context, req *RubricRequest, stdin []byte) (*RubricVerdict, error) {
	tctx, cancel := context.WithTimeout(ctx, e.timeout)
	defer cancel()
	env := append(append([]string(nil), e.env...),
		"EVALGATE_SUITE_ID="+req.SuiteID,
		"EVALGATE_TASK_ID="+req.TaskID,
	)
	var stdout bytes.Buffer
	p, err := process.Run(tctx, process.Spec{
		Command:        e.command,
		Dir:            e.dir,
		Env:            env,
		Stdin:          stdin,
		MaxStdoutBytes: maxJudgeStdout,
	}, &stdout)
	var notStarted *process.StartError
	switch {
	case err == nil:
	case errors.As(err, &notStarted):
		return nil, &unavailable{fmt.Errorf("judge: %w", err)}
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, context.DeadlineExceeded):
		return nil, fmt.Errorf("the judge %q did not answer within %s", e.command[0], e.timeout)
	case errors.Is(err, process.ErrOutputTooLarge):
		return nil, fmt.Errorf("the judge %q wrote more than %d bytes", e.command[0], maxJudgeStdout)
	default:
		return nil, fmt.Errorf("could not read the answer of the judge %q: %w", e.command[0], err)
	}
	if !p.Success() {
		return nil, fmt.Errorf("the judge %q ended with %s%s", e.command[0], p.Exit(), stderrTail(p.Stderr()))
	}
	return parseVerdict(stdout.Bytes(), req.Criteria)
}

// stderrTail is the last line of a judge's stderr, to say why it failed.
// It goes to transcripts and the terminal, never to results.
func stderrTail(stderr []byte) string {
	lines := strings.Split(strings.TrimSpace(string(stderr)), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return ""
	}
	if len(last) > 200 {
		last = last[:200] + "..."
	}
	return ": " + last
}

// path resolves a command argument against the judge's folder.
func (e *Exec) path(arg string) string {
	if filepath.IsAbs(arg) || e.dir == "" {
		return arg
	}
	return filepath.Join(e.dir, arg)
}

// hashPath adds the content of the file or folder at p to h. A folder adds its
// regular files in lexical order, up to identityFiles files and
// identityBytes bytes, skipping hidden ones.
func hashPath(h io.Writer, p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.Mode().IsRegular() {
		return hashFile(h, p, fi.Size())
	}
	if !fi.IsDir() {
		return nil
	}
	files, total := 0, int64(0)
	return filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if path != p && strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		files++
		total += info.Size()
		if files > identityFiles || total > identityBytes {
			return filepath.SkipAll
		}
		rel, _ := filepath.Rel(p, path)
		fmt.Fprintf(h, "\x00file\x00%s", filepath.ToSlash(rel))
		return hashFile(h, path, info.Size())
	})
}

// hashFile adds the first identityBytes bytes of the file at path, of
// size, to h. It opens the file through the one reader of input files,
// whose limit is then the file's size: only a prefix is read.
func hashFile(h io.Writer, path string, size int64) error {
	f, err := inputfile.Open(path, max(size, identityBytes))
	if err != nil {
		return err
	}
	defer f.Close()
	fmt.Fprintf(h, "\x00%d\x00", size)
	_, err = io.Copy(h, io.LimitReader(f, identityBytes))
	return err
}
