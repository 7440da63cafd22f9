package history

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/atomicfile"
	"github.com/evalgate/evalgate/internal/inputfile"
)

// RecordFile is the kind of input a stored record is (internal/inputfile).
var RecordFile = inputfile.Kind{What: "a history record", Limit: MaxRecordBytes}

// dirStore keeps one file per record in a folder.
type dirStore struct {
	dir  string
	name string
}

func openDir(path string, o Options) (Store, error) {
	if path == "" {
		return nil, &UsageError{"history store \"dir:\": name a folder, such as dir:.evalgate/history"}
	}
	dir := path
	if !filepath.IsAbs(dir) && o.Dir != "" {
		dir = filepath.Join(o.Dir, dir)
	}
	return &dirStore{dir: dir, name: DirPrefix + path}, nil
}

func (s *dirStore) String() string { return s.name }
func (s *dirStore) Close() error   { return nil }

func (s *dirStore) unreachable(err error) error {
	return fmt.Errorf("%w: %s: %v", ErrUnreachable, s.name, unwrapPath(err))
}

// Write writes the record's file atomically; a file of the same run
// already there stays.
func (s *dirStore) Write(ctx context.Context, rec *Record, data []byte) error {
	files, err := s.list(ctx)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if recordFile(files, rec.RunID) != "" {
		return nil
	}
	if err := atomicfile.WriteFile(filepath.Join(s.dir, FileName(rec)), data, 0o644, 0o755); err != nil {
		return s.unreachable(err)
	}
	return nil
}

// list lists the folder; a folder not made yet holds nothing.
func (s *dirStore) list(context.Context) ([]fileEntry, error) {
	entries, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, s.unreachable(err)
	}
	files := make([]fileEntry, 0, len(entries))
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		var size int64
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			size = info.Size()
		}
		files = append(files, fileEntry{name: e.Name(), size: size})
	}
	return files, nil
}

// fetch reads each file through RecordFile, inside the folder: a link
// out of it, a FIFO or a file that grew past the limit is that file's
// error.
func (s *dirStore) fetch(_ context.Context, files []fileEntry, got func(fileEntry, []byte, error)) error {
	for _, f := range files {
		data, err := RecordFile.ReadIn(s.dir, filepath.Join(s.dir, f.name))
		got(f, data, err)
	}
	return nil
}

func (s *dirStore) Read(ctx context.Context, q Query) (*Window, error) {
	return readFiles(ctx, s, s.name, q)
}

func (s *dirStore) Prune(ctx context.Context, keep int, _ string) (int, error) {
	files, err := s.list(ctx)
	if err != nil {
		return 0, err
	}
	gone := pruned(files, keep)
	for i, f := range gone {
		if err := os.Remove(filepath.Join(s.dir, f.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return i, s.unreachable(err)
		}
	}
	return len(gone), nil
}

// unwrapPath drops the path an *fs.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return fmt.Errorf("%s %s: %w", pe.Op, pe.Path, pe.Err)
	}
	return err
}
