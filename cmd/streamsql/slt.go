package main

import (
	"context"

	"github.com/streamsql/streamsql/sqllogic"
)

func (d *sltDB) Exec(ctx context.Context, sql string) (*sqllogic.Result, error) {
	r, err := d.e.Exec(ctx, sql)
	if err != nil || r == nil || r.Schema == nil {
		return nil, err
	}
	return &sqllogic.Result{Schema: r.Schema, Rows: r.Rows}, nil
}

func (d *sltDB) Close() error      { return d.e.Close() }
func (d *sltDB) Crash() error      { return d.e.Crash() }
func (d *sltDB) Checkpoint() error { return d.e.Checkpoint() }

// sltParallelism are the settings every slt file runs under; results must
// agree.
var sltParallelism = []string{"1", "4"}

func runSLT(ctx context.Context, paths []string, out interface{ Write([]byte) (int, error) }) (bool, error) {
	all := true
	for _, p := range sltParallelism {
		ok, err := sqllogic.RunPaths(ctx, paths, sqllogic.Options{
			Opener:   openSLT(discard{}),
			Settings: map[string]string{"parallelism": p},
		}, prefixed{out, "[parallelism " + p + "] "})
		if err != nil {
			return false, err
		}
		all = all && ok
	}
	return all, nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

type prefixed struct {
	w      interface{ Write([]byte) (int, error) }
	prefix string
}

func (p prefixed) Write(b []byte) (int, error) {
	if _, err := p.w.Write(append([]byte(p.prefix), b...)); err != nil {
		return 0, err
	}
	return len(b), nil
}
