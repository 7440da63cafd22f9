// Package pgtest starts a real PostgreSQL server for the tests of the
// history store: initdb into a temporary folder, postgres on a loopback
// port, as an unprivileged user when the tests run as root (PostgreSQL
// refuses to run as root). One server serves every test of a test binary;
// TestMain stops it:
//
//	func TestMain(m *testing.M) { code := m.Run(); pgtest.Stop(); os.Exit(code) }
//
// Without PostgreSQL's programs (Debian's postgresql package) the tests
// that need a server skip, unless EVALGATE_REQUIRE_POSTGRES=1 (.ci/run
// sets it), which makes a skip a failure.
package pgtest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/evalgate/evalgate/internal/process"
	"github.com/evalgate/evalgate/internal/waittest"
)

// Server is a running PostgreSQL server.
type Server struct {
	// DSN connects to its postgres database as its superuser, with the
	// password.
	DSN      string
	Password string
	Port     int

	dir     string
	bin     string
	proc    *process.Process
	exited  chan struct{} // closed once proc has exited
	release func()
	nobody  bool
	counter int
	mu      sync.Mutex
}

var (
	once   sync.Once
	shared *Server
	err    error
)

// Shared returns the test binary's server, starting it the first time;
// it skips t (fails it under EVALGATE_REQUIRE_POSTGRES=1) without
// PostgreSQL's programs.
func Shared(t *testing.T) *Server {
	t.Helper()
	bin, found := binDir()
	if !found {
		if os.Getenv("EVALGATE_REQUIRE_POSTGRES") == "1" {
			t.Fatal("PostgreSQL's programs (initdb, postgres) are not installed, and EVALGATE_REQUIRE_POSTGRES=1: apt-get install postgresql")
		}
		t.Skip("PostgreSQL's programs (initdb, postgres) are not installed (apt-get install postgresql); set EVALGATE_REQUIRE_POSTGRES=1 to fail instead")
	}
	once.Do(func() { shared, err = start(t, bin) })
	if err != nil {
		t.Fatal(err)
	}
	return shared
}

// Database creates a database of its own for a test and returns its DSN.
func (s *Server) Database(t *testing.T) string {
	t.Helper()
	s.mu.Lock()
	s.counter++
	name := fmt.Sprintf("t%d_%s", s.counter, hex.EncodeToString(random(4)))
	s.mu.Unlock()
	ctx := waittest.Context(t)
	conn, err := pgx.Connect(ctx, s.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("postgres://evalgate:%s@127.0.0.1:%d/%s?sslmode=disable", s.Password, s.Port, name)
}

// binDir finds the folder of initdb and postgres: on PATH, else Debian's
// /usr/lib/postgresql/<version>/bin, the newest.
func binDir() (string, bool) {
	if p, ok := lookPath("initdb"); ok {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		dir := filepath.Dir(p)
		if _, err := os.Stat(filepath.Join(dir, "postgres")); err == nil {
			return dir, true
		}
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return vb - va
	})
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			return d, true
		}
	}
	return "", false
}

// lookPath finds a program on PATH.
func lookPath(name string) (string, bool) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// asUser is the command run as the unprivileged user nobody when the
// tests run as root.
func (s *Server) asUser(args ...string) []string {
	if !s.nobody {
		return args
	}
	return append([]string{"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"}, args...)
}

func start(t *testing.T, bin string) (*Server, error) {
	dir, err := os.MkdirTemp("", "evalgate-pgtest-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin, nobody: os.Geteuid() == 0, Password: hex.EncodeToString(random(12))}
	if err := os.Chmod(dir, 0o755); err != nil {
		return nil, err
	}
	data := filepath.Join(dir, "data")
	pwfile := filepath.Join(dir, "pw")
	if err := os.WriteFile(pwfile, []byte(s.Password+"\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.Mkdir(data, 0o700); err != nil {
		return nil, err
	}
	if s.nobody {
		if err := os.Chown(data, 65534, 65534); err != nil {
			return nil, err
		}
	}
	ctx := context.Background()
	if err := s.run(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "evalgate", "--pwfile", pwfile,
		"--auth=scram-sha-256", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		return nil, fmt.Errorf("initdb: %w", err)
	}
	pctx, release := process.Contain(ctx)
	s.release = release
	for attempt := 0; ; attempt++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		s.Port = l.Addr().(*net.TCPAddr).Port
		l.Close()
		s.proc, err = process.Start(pctx, process.Spec{Dir: dir, Env: os.Environ(), Command: s.asUser(filepath.Join(bin, "postgres"), "-D", data,
			"-p", strconv.Itoa(s.Port), "-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=",
			"-c", "fsync=off", "-c", "full_page_writes=off", "-c", "max_connections=50")})
		if err != nil {
			return nil, err
		}
		s.watch()
		s.DSN = fmt.Sprintf("postgres://evalgate:%s@127.0.0.1:%d/postgres?sslmode=disable", s.Password, s.Port)
		exited := false
		ready := waittest.Poll(t, func() bool {
			if s.hasExited() {
				exited = true
				return true
			}
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			conn, err := pgx.Connect(cctx, s.DSN)
			if err != nil {
				return false
			}
			conn.Close(cctx)
			return true
		})
		if exited && attempt < 3 {
			continue // the port was taken meanwhile
		}
		if exited || !ready {
			s.proc.Kill()
			<-s.exited
			return nil, fmt.Errorf("postgres did not start: %s", s.proc.Stderr())
		}
		return s, nil
	}
}

// watch closes s.exited once the server has exited.
func (s *Server) watch() {
	s.exited = make(chan struct{})
	go func() {
		defer close(s.exited)
		s.proc.Wait(24 * time.Hour) // returns once it exits; Stop makes it
	}()
}

func (s *Server) hasExited() bool {
	select {
	case <-s.exited:
		return true
	default:
		return false
	}
}

// run runs a program of the server's to its end.
func (s *Server) run(ctx context.Context, args ...string) error {
	var out bytes.Buffer
	p, err := process.Run(ctx, process.Spec{Command: s.asUser(args...), Dir: s.dir, Env: os.Environ()}, &out)
	if err != nil {
		return err
	}
	if !p.Success() {
		return errors.New(p.Exit() + ": " + string(p.Stderr()) + out.String())
	}
	return nil
}

// Stop stops the shared server, if one was started, and removes its
// folder.
func Stop() {
	if shared == nil {
		return
	}
	s := shared
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := s.run(ctx, filepath.Join(s.bin, "pg_ctl"), "stop", "-D", filepath.Join(s.dir, "data"), "-m", "fast", "-w"); err != nil {
		s.proc.Kill()
	}
	<-s.exited
	s.release()
	os.RemoveAll(s.dir)
}
