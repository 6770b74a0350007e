package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/sqllogic"
	"github.com/streamsql/streamsql/types"
)

func (d *sltDB) Exec(ctx context.Context, sql string) (*sqllogic.Result, error) {
	r, err := d.e.Exec(ctx, sql)
	if err != nil || r == nil {
		return nil, err
	}
	if r.Schema == nil {
		if n, ok := rowsAffected(r.Tag); ok {
			return &sqllogic.Result{
				Schema: types.Schema{{Name: sqllogic.RowsAffectedColumn, Type: types.Int}},
				Rows:   []types.Row{{types.IntValue(n)}},
			}, nil
		}
		return nil, nil
	}
	return &sqllogic.Result{Schema: r.Schema, Rows: r.Rows, TimeZone: r.TimeZone}, nil
}

// rowsAffected reads the row count of an INSERT, UPDATE, DELETE or COPY
// command tag ("INSERT 0 2"), for `statement count N`.
func rowsAffected(tag string) (int64, bool) {
	f := strings.Fields(tag)
	if len(f) < 2 {
		return 0, false
	}
	switch f[0] {
	case "INSERT", "UPDATE", "DELETE", "COPY":
		n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
		return n, err == nil
	}
	return 0, false
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
