package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/evalgate/evalgate/internal/memtune"
	"github.com/evalgate/evalgate/suites"
)

func validateCmd(_ context.Context, c *Command, args []string) error {
	fs := c.newFlags("validate", "[suite files or folders...]")
	configPath := fs.String("config", "", "project `file` whose suites to validate (default: evalgate.yaml here or in the nearest folder above, up to the repository root)")
	openwop := fs.Bool("openwop", false, "also report whether each file is strictly openwop-portable: no evalgate extension, and every task scoreable by an openwop runner (exit 2 when not)")
	if err := parse(fs, args); err != nil {
		return err
	}
	cfg, err := c.env.LoadConfig(*configPath)
	if err != nil {
		return invalid(err)
	}
	paths := fs.Args()
	if len(paths) == 0 {
		if err := cfg.CheckSuites(); err != nil {
			return invalid(err)
		}
		paths = cfg.Suites
	}
	if len(paths) == 0 {
		if none := c.env.NoConfig(cfg); none != "" {
			return invalid(errors.New(none + ", or name the suite files or folders to validate"))
		}
		return invalid(fmt.Errorf("no suites to validate: pass suite files or folders, or list them under \"suites\" in %s", filepath.ToSlash(cfg.File)))
	}
	all, err := suites.LoadWith(memtune.Load, paths...)
	if err != nil {
		c.env.Say(c.Stdout, "%v\n", err)
		return invalid(errors.New("invalid suites"))
	}
	if err := c.env.CheckJudged(cfg, all); err != nil {
		return err
	}
	if cfg.Assessment != nil {
		c.env.WarnSuiteDomains(all, cfg.Assessment.Taxonomy)
	}
	tasks := 0
	for _, s := range all {
		tasks += len(s.Tasks)
	}
	if *openwop {
		portable := true
		for _, s := range all {
			data, err := suites.ReadFile(s.Path)
			if err != nil {
				return invalid(err)
			}
			rep, err := suites.CheckOpenWOP(s.Path, data)
			if err != nil {
				return invalid(err)
			}
			if !rep.Portable() {
				portable = false
				c.env.Say(c.Stdout, "%s: not strictly openwop-portable: %s\n%v\n", s.Path, rep.Summary(), rep.Errors())
				continue
			}
			c.env.Say(c.Stdout, "%s: strictly openwop-portable: %s\n", s.Path, rep.Summary())
		}
		if !portable {
			return invalid(errors.New("some suites use evalgate extensions; `evalgate export --openwop FILE` strips them"))
		}
	}
	fmt.Fprintf(c.Stdout, "%d suite(s), %d task(s): valid\n", len(all), tasks)
	return nil
}
