package engine

import (
	"slices"
	"strings"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/planner"
	"github.com/streamsql/streamsql/types"
)

// The streamsql_catalog schema holds read-only system tables over the
// engine's figures (metrics.go): each query of one copies Metrics'
// snapshot into rows, so they show what /metrics and SHOW METRICS show,
// from the same counters. Ad-hoc queries resolve them by their qualified
// name (planner.BuildQuery tries schema.name first) and read them as
// TABLEs, so filters, projections, joins and ORDER BY work as on any
// other relation.

// SystemSchema is the schema of the system tables.
const SystemSchema = "streamsql_catalog"

// sysTable is one system table: its columns and its rows in a snapshot.
type sysTable struct {
	cols types.Schema
	rows func(s Snapshot) []types.Row
}

func col(name string, k types.Kind) types.Column { return types.Column{Name: name, Type: k} }

// sysTables are the system tables by name (without the schema).
var sysTables = map[string]sysTable{
	"sources": {types.Schema{col("pipeline", types.String), col("source", types.String), col("partition", types.Int),
		col("records_read", types.Int), col("on_error", types.String), col("decode_errors", types.Int),
		col("watermark", types.Timestamp), col("watermark_lag", types.Interval), col("idle", types.Bool),
		col("bytes_read", types.Int), col("lag", types.Int)}, sourceRows},
	"operators": {types.Schema{col("view", types.String), col("id", types.Int), col("operator", types.String),
		col("rows_in", types.Int), col("rows_out", types.Int), col("state_keys", types.Int),
		col("watermark", types.Timestamp), col("memory_bytes", types.Int), col("spilled_bytes", types.Int),
		col("spill_reads", types.Int), col("processing", types.Interval)}, operatorRows},
	"checkpoints": {types.Schema{col("id", types.Int), col("completed_at", types.Timestamp),
		col("duration", types.Interval), col("changes", types.Int), col("error", types.String),
		col("bytes", types.Int)}, checkpointRows},
	"sinks": {types.Schema{col("sink", types.String), col("connector", types.String), col("rows_written", types.Int),
		col("commits", types.Int), col("commit_seconds_total", types.Float), col("last_committed_checkpoint", types.Int),
		col("retries", types.Int)}, sinkRows},
	"late_rows": {types.Schema{col("view", types.String), col("policy", types.String), col("reason", types.String),
		col("count", types.Int)}, lateRows},
}

// SystemTables lists the system tables' qualified names and columns, for
// catalogs (the wire server's pg_catalog answers).
func SystemTables() map[string]types.Schema {
	out := make(map[string]types.Schema, len(sysTables))
	for name, t := range sysTables {
		out[SystemSchema+"."+name] = slices.Clone(t.cols)
	}
	return out
}

// systemTable returns the system table a qualified name names.
func systemTable(name string) (sysTable, bool) {
	schema, table, ok := strings.Cut(strings.ToLower(name), ".")
	if !ok || schema != SystemSchema {
		return sysTable{}, false
	}
	t, ok := sysTables[table]
	return t, ok
}

// queryResolver is the catalog of ad-hoc queries: the engine's objects
// and the system tables. Views do not read system tables (their figures
// are no stream): for them it owns the schema but knows no table in it.
type queryResolver struct {
	cat   planner.Resolver
	views bool
}

// Get implements planner.Resolver.
func (r queryResolver) Get(name string) (*catalog.Object, bool) {
	if t, ok := systemTable(name); ok && !r.views {
		return &catalog.Object{Name: strings.ToLower(name), Kind: catalog.Table, Schema: t.cols, TimeCol: -1}, true
	}
	return r.cat.Get(name)
}

// Function implements planner.FunctionResolver: the catalog's SQL
// functions.
func (r queryResolver) Function(name string) (*catalog.Function, bool) {
	if f, ok := r.cat.(planner.FunctionResolver); ok {
		return f.Function(name)
	}
	return nil, false
}

// OwnsSchema implements planner.SchemaResolver.
func (r queryResolver) OwnsSchema(schema string) bool { return strings.EqualFold(schema, SystemSchema) }

func (e *Engine) queryResolver() planner.Resolver {
	if e.params != nil {
		return paramResolver{queryResolver: queryResolver{cat: e.cat}, params: e.params}
	}
	return queryResolver{cat: e.cat}
}

// viewResolver is the catalog views and query sinks are planned with.
func viewResolver(cat planner.Resolver) planner.Resolver { return queryResolver{cat: cat, views: true} }

// systemRows returns the rows of system table name, ok false when name
// is not one; e.mu is held.
func (e *Engine) systemRows(name string) ([]types.Row, bool) {
	t, ok := systemTable(name)
	if !ok {
		return nil, false
	}
	return t.rows(e.figures()), true
}

// timeValue is a watermark as a TIMESTAMP, NULL when there is none.
func timeValue(us int64, has bool) types.Value {
	if !has || us == types.MinTime {
		return types.Value{}
	}
	return types.TimestampValue(us)
}

// lagValue is now minus a watermark as an INTERVAL, NULL without one.
func lagValue(now, us int64, has bool) types.Value {
	if !has || us == types.MinTime || us >= 1<<62 {
		return types.Value{}
	}
	return types.IntervalValue(now - us)
}

func sourceRows(s Snapshot) []types.Row {
	now := s.Now.UnixMicro()
	var rows []types.Row
	for _, src := range s.Sources {
		for p, ps := range src.Partitions {
			rows = append(rows, types.Row{types.StringValue(src.Pipeline), types.StringValue(src.Source),
				types.IntValue(int64(p)), types.IntValue(ps.Read), types.StringValue(onErrorName(src.OnError)),
				types.IntValue(src.DecodeErrors), timeValue(ps.Watermark, src.HasWatermark),
				lagValue(now, ps.Watermark, src.HasWatermark), types.BoolValue(ps.Idle), types.IntValue(ps.Bytes), consumerLag(ps)})
		}
	}
	return rows
}

// consumerLag is a partition's consumer lag, NULL when the source does
// not know it.
func consumerLag(ps PartitionStats) types.Value {
	if !ps.HasLag {
		return types.Value{}
	}
	return types.IntValue(ps.Lag)
}

// onErrorName is a source's on_error policy with its default spelled out.
func onErrorName(p string) string {
	if p == "" {
		return "fail"
	}
	return p
}

func operatorRows(s Snapshot) []types.Row {
	var rows []types.Row
	for _, v := range s.Views {
		for _, o := range v.Operators {
			keys, mem, spilled, reads := types.Value{}, types.Value{}, types.Value{}, types.Value{}
			if o.HasState {
				keys, mem = types.IntValue(o.StateKeys), types.IntValue(o.MemoryBytes)
				spilled, reads = types.IntValue(o.SpilledBytes), types.IntValue(o.SpillReads)
			}
			rows = append(rows, types.Row{types.StringValue(v.Name), types.IntValue(int64(o.ID)), types.StringValue(o.Operator),
				types.IntValue(o.RowsIn), types.IntValue(o.RowsOut), keys, timeValue(o.Watermark, true),
				mem, spilled, reads, types.IntervalValue(o.Processing.Microseconds())})
		}
	}
	return rows
}

func checkpointRows(s Snapshot) []types.Row {
	rows := make([]types.Row, 0, len(s.Checkpoints.Recent))
	for _, c := range s.Checkpoints.Recent {
		changes, msg, bytes := types.IntValue(c.Changes), types.Value{}, types.IntValue(c.Bytes)
		if c.Err != "" {
			changes, msg, bytes = types.Value{}, types.StringValue(c.Err), types.Value{}
		}
		rows = append(rows, types.Row{types.IntValue(int64(c.ID)), types.TimestampValue(c.At.UnixMicro()),
			types.IntervalValue(c.Duration.Microseconds()), changes, msg, bytes})
	}
	return rows
}

func sinkRows(s Snapshot) []types.Row {
	rows := make([]types.Row, 0, len(s.Sinks))
	for _, k := range s.Sinks {
		rows = append(rows, types.Row{types.StringValue(k.Name), types.StringValue(k.Connector), types.IntValue(k.Rows),
			types.IntValue(int64(k.Commit.Count)), types.FloatValue(k.Commit.Sum), types.IntValue(int64(k.LastCommitted)),
			types.IntValue(k.Retries)})
	}
	return rows
}

func lateRows(s Snapshot) []types.Row {
	var rows []types.Row
	for _, v := range s.Views {
		keys := make([]lateness.LateKey, 0, len(v.Late))
		for k := range v.Late {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b lateness.LateKey) int { return strings.Compare(a.Name(), b.Name()) })
		for _, k := range keys {
			rows = append(rows, types.Row{types.StringValue(v.Name), types.StringValue(k.Policy), types.StringValue(k.Reason),
				types.IntValue(v.Late[k])})
		}
	}
	return rows
}
