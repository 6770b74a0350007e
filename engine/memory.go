package engine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/parser"
)

// defaultMemoryLimit is memory_limit's default (see docs/sql.md and
// docs/benchmarks.md for why this value).
const defaultMemoryLimit = "320MB"

// memoryUnits are the suffixes of a memory size, as Postgres reads them
// (work_mem = '64MB': powers of 1024), plus the IEC spellings.
var memoryUnits = []struct {
	suffix string
	mult   int64
}{
	{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"tib", 1 << 40},
	{"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"tb", 1 << 40},
	{"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"t", 1 << 40},
	{"b", 1},
}

// parseMemorySize reads a memory size: a number of bytes, or a whole
// number with a unit (kB, MB, GB, TB as in Postgres, powers of 1024;
// also KiB/MiB/GiB/TiB and k/m/g/t as Flink writes them), case and the
// space before the unit ignored. 0 means no limit.
func parseMemorySize(v string) (int64, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	mult := int64(1)
	for _, u := range memoryUnits {
		if strings.HasSuffix(s, u.suffix) {
			s, mult = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("memory size %q: want a whole number of bytes or of kB, MB, GB, TB", v)
	}
	return n * mult, nil
}

// memoryLimitAtOpen is the memory_limit the state opens with: the last
// valid SET memory_limit of opts.Script (which the run will apply anyway,
// and Badger's buffers cannot be resized once open), else opts.Settings',
// else the default.
func memoryLimitAtOpen(opts Options) int64 {
	v := defaultMemoryLimit
	for k, s := range opts.Settings {
		if strings.EqualFold(k, "memory_limit") {
			v = s
		}
	}
	if stmts, err := parser.Parse(opts.Script); err == nil {
		for _, st := range stmts {
			if set, ok := st.(*parser.SetStmt); ok && strings.EqualFold(set.Name, "memory_limit") && checkSetting("memory_limit", set.Value) == nil {
				v = set.Value
			}
		}
	}
	n, _ := parseMemorySize(v) // Open checks opts.Settings; an invalid value there fails it
	return n
}

// stateBytes is the bytes of operator and view state the pipelines may
// keep in memory under memory limit limit (0: no limit): half of what
// Badger's buffers (two memtables' arenas and the index cache) leave,
// the other half being the heap's room for garbage, batches in flight
// and decoding; at least an eighth of the limit.
func stateBytes(limit int64) int64 {
	if limit <= 0 {
		return 0
	}
	sz := state.BadgerSizes(limit)
	rest := limit - 2*sz.MemTableArena() - sz.IndexCache
	return max(rest/2, limit/8)
}

// applyMemoryLimit resizes the state's memory budget to a memory_limit
// value and hands the value to Options.SetMemoryLimit.
func (e *Engine) applyMemoryLimit(v string) {
	n, err := parseMemorySize(v)
	if err != nil {
		return
	}
	e.mem.SetTotal(stateBytes(n))
	if e.opts.SetMemoryLimit != nil {
		e.opts.SetMemoryLimit(n)
	}
}
