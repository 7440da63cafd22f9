package results

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Spill is a scratch file that keeps tasks' trials out of memory until
// results.json is written: the trials are most of a large run's results
// (every check of every trial), and a task's are read by nothing else once
// it passed (#6). They are kept as the bytes Write writes for them, so
// that writing them back (a WriteRestoring restore that calls Append)
// costs a copy, not a decoding and an encoding. Trials a file already
// holds as those bytes (a shard's results.json, added with Source) are
// not copied: their spans point into that file.
//
// Add, AddBytes and Source may be called from several goroutines; Append
// once adding is done.
type Spill struct {
	mu      sync.Mutex
	f       *os.File
	w       *bufio.Writer
	size    int64
	read    bool
	sources []source
	windows []window // by source, once Append reads
}

// spillPattern names the spill files, for os.CreateTemp and
// RemoveStaleSpills.
const spillPattern = ".trials-*.json"

// NewSpill creates a spill file in dir (the temporary folder when "").
// Close removes it; a process killed before leaves it, and the next one
// that locks the folder removes it (RemoveStaleSpills).
func NewSpill(dir string) (*Spill, error) {
	f, err := os.CreateTemp(dir, spillPattern)
	if err != nil {
		return nil, fmt.Errorf("could not create a scratch file in %q: %w", dir, err)
	}
	return &Spill{f: f, w: bufio.NewWriterSize(f, 256<<10)}, nil
}

// Add writes trials to the file and returns where they are.
func (s *Spill) Add(trials []Trial) (Span, error) {
	buf := buffers.Get().(*[]byte)
	defer buffers.Put(buf)
	data, err := encodeTrials((*buf)[:0], trials)
	if err != nil {
		return Span{}, err
	}
	*buf = data
	return s.AddBytes(data)
}

// AddBytes writes trials already encoded as Write writes them.
func (s *Spill) AddBytes(data []byte) (Span, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.w.Write(data); err != nil {
		return Span{}, fmt.Errorf("could not write to the scratch file: %w", err)
	}
	sp := Span{Off: s.size, Len: int64(len(data))}
	s.size += sp.Len
	return sp, nil
}

// source is a file spans may point into: a shard's results.json, opened
// by the one reader of input files.
type source interface {
	io.ReaderAt
	io.Closer
	Name() string
}

// Source adds f, a file that holds trials as Write writes them (a shard's
// results.json), to the files spans may point into, and returns its
// number. The spill closes it. Holding it open keeps the bytes read even
// if the file is replaced meanwhile, by a merge writing into its folder.
func (s *Spill) Source(f source) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sources = append(s.sources, f)
	return len(s.sources)
}

// Append appends the trials added at sp to b. A merge reads back 200,000
// tasks' trials: read into one buffer the writer reuses, they allocate
// nothing, where a slice each was most of what writing allocated. They
// are read a window of each file at a time: the merged order walks each
// shard's file from start to end, and a read a task was 200,000 system
// calls, the longest part of writing the merged results.json.
func (s *Spill) Append(b []byte, sp Span) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var f source = s.f
	if sp.Source > 0 {
		f = s.sources[sp.Source-1]
	} else if !s.read {
		if err := s.w.Flush(); err != nil {
			return nil, fmt.Errorf("could not write to the scratch file: %w", err)
		}
		s.read = true
	}
	for len(s.windows) <= sp.Source {
		s.windows = append(s.windows, window{})
	}
	w := &s.windows[sp.Source]
	if sp.Off < w.off || sp.Off+sp.Len > w.off+int64(len(w.data)) {
		w.data = slices.Grow(w.data[:0], int(max(sp.Len, windowSize)))
		n, err := f.ReadAt(w.data[:cap(w.data)], sp.Off)
		if int64(n) < sp.Len {
			return nil, fmt.Errorf("could not read back trials from %q: %w", f.Name(), cmp.Or(err, io.ErrUnexpectedEOF))
		}
		w.off, w.data = sp.Off, w.data[:n]
	}
	return append(b, w.data[sp.Off-w.off:][:sp.Len]...), nil
}

// window is the part of a file Append read last.
type window struct {
	off  int64
	data []byte
}

// windowSize is how much of a file Append reads at a time: as much as
// the task writer restores for one batch (batchBytes). A larger window
// held more of the file in memory for no fewer reads worth counting (a
// 1 MiB window was a sixth of the heap at the end of a 1,000-task run).
const windowSize = batchBytes

// Close removes the file; a nil spill has none.
func (s *Spill) Close() error {
	if s == nil {
		return nil
	}
	err := s.f.Close()
	if rerr := os.Remove(s.f.Name()); err == nil {
		err = rerr
	}
	for _, f := range s.sources {
		f.Close() // read only
	}
	return err
}

// RemoveStaleSpills removes the spill files in dir that a killed process
// left: a SIGKILL ends a run before Close. Only a process that holds the
// folder's lock may call it, since any spill file there is then no other
// running process's (each run spills into the output folder it locked).
// It removes names, links included, and follows none.
func RemoveStaleSpills(dir string) error {
	stale, err := filepath.Glob(filepath.Join(dir, spillPattern))
	if err != nil {
		return err
	}
	var errs []error
	for _, p := range stale {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// buffers hold Spill.Add's encodings, which several goroutines make.
var buffers = sync.Pool{New: func() any { return new([]byte) }}

// encodeTrials appends a task's trials to b as Write writes them: lists
// that are null written as [].
func encodeTrials(b []byte, trials []Trial) ([]byte, error) {
	t := Task{Trials: trials}
	fixTask(&t)
	return appendTrials(b, t.Trials, trialsPrefix)
}
