package postgres

import (
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/types"
)

// Delivery modes (the delivery option).
const (
	ExactlyOnce  = "exactly_once"
	AtLeastOnce  = "at_least_once"
	progressName = "streamsql_sink_progress"
)

// Options are the postgres sink's WITH options.
var Options = []connectors.OptionSpec{
	{Name: "dsn", Type: "string", Required: true, Doc: "The Postgres connection string, URL or key=value form. Its password never appears in logs, errors or EXPLAIN.", Example: "'postgres://app@127.0.0.1:5432/app'"},
	{Name: "table", Type: "string", Required: true, Doc: "The target table, optionally schema-qualified; unquoted names fold to lower case.", Example: "'public.q7_results'"},
	{Name: "primary_key", Type: "string", Doc: "The ON CONFLICT target: comma-separated column names (default: the view's key).", Example: "'window_start, auction'"},
	{Name: "create_table", Type: "bool", Default: "false", Doc: "Create the table (with the view's column types and the primary key) when it does not exist.", Example: "true"},
	{Name: "fillfactor", Type: "int", Doc: "With create_table: the table's fillfactor (10–100; default 50 for a keyed view that updates its rows, 100 for a view that only inserts). Below 100 leaves room on each page so an updated row's new version stays on its page (a HOT update, with no index write); 50 leaves room for every row to change once between Postgres's page cleanups, at twice the table's size.", Example: "70"},
	{Name: "delivery", Type: "string", Default: ExactlyOnce, Enum: []string{ExactlyOnce, AtLeastOnce}, Doc: "`exactly_once`: each checkpoint's changes and a progress row commit in one Postgres transaction; `at_least_once`: bulk idempotent upserts, flushed when batch_rows are buffered and at each checkpoint.", Example: "'at_least_once'"},
	{Name: "write_connections", Type: "int", Default: "1", Doc: "Connections a keyed sink writes through in parallel (1–16), each taking the changes whose key hashes to it, in its own transaction with its own progress row. Above 1, Postgres does several rows' work at once; each checkpoint still lands exactly once, but a reader may see one connection's share of a checkpoint before another's. 1 keeps every checkpoint one transaction.", Example: "2"},
	{Name: "batch_rows", Type: "int", Default: "10000", Doc: "Keys per bulk DELETE statement (upserts are streamed by COPY however many there are); in at_least_once mode also the buffer size that triggers a flush between checkpoints.", Example: "50000"},
	{Name: "retry_max_backoff", Type: "duration", Default: "5s", Doc: "The longest wait between retries while Postgres is unreachable.", Example: "'10s'"},
}

// Factory returns the postgres sink factory. logger (nil: none) receives
// a warning when Postgres becomes unreachable and a note when it is back
// (connectors.Outage), the single attempts at the debug level.
func Factory(logger *slog.Logger) connectors.SinkFactory {
	return connectors.SinkFactory{
		Name:    "postgres",
		Doc:     "Upserts a view's changes into a Postgres table, exactly once per checkpoint by default.",
		Options: Options,
		New: func(spec connectors.SinkSpec) (connectors.Sink, error) {
			return New(spec, logger)
		},
	}
}

// config is the parsed, validated options plus what they resolve to
// against the view's schema.
type config struct {
	sink        string
	dsn         string
	table       []string // [schema,] table, unquoted
	schema      types.Schema
	key         []int // positions of the primary key columns in schema
	create      bool
	fillfactor  int
	exactlyOnce bool
	batchRows   int
	lanes       int // write_connections
	maxBackoff  time.Duration
}

func parseConfig(spec connectors.SinkSpec) (*config, error) {
	if err := connectors.ValidateOptions("postgres", Options, connectors.CommonSinkOptions, spec.Options); err != nil {
		return nil, err
	}
	o := connectors.Opts{Values: spec.Options, Specs: Options}
	c := &config{
		sink:        spec.Name,
		dsn:         o.String("dsn"),
		schema:      spec.Schema,
		create:      o.Bool("create_table"),
		fillfactor:  defaultFillfactor(spec),
		exactlyOnce: strings.EqualFold(o.String("delivery"), ExactlyOnce),
		batchRows:   int(o.Int("batch_rows")),
		lanes:       int(o.Int("write_connections")),
		maxBackoff:  o.Duration("retry_max_backoff"),
	}
	if v, ok := spec.Options["fillfactor"]; ok && v != "" {
		c.fillfactor = int(o.Int("fillfactor"))
	}
	if c.batchRows <= 0 {
		return nil, fmt.Errorf("option 'batch_rows' must be positive, got %d", c.batchRows)
	}
	if c.fillfactor < 10 || c.fillfactor > 100 {
		return nil, fmt.Errorf("option 'fillfactor' must be between 10 and 100, got %d", c.fillfactor)
	}
	if c.lanes < 1 || c.lanes > 16 {
		return nil, fmt.Errorf("option 'write_connections' must be between 1 and 16, got %d", c.lanes)
	}
	if c.maxBackoff <= 0 {
		return nil, fmt.Errorf("option 'retry_max_backoff' must be positive, got %s", c.maxBackoff)
	}
	if _, err := parseDSN(c.dsn); err != nil {
		return nil, err
	}
	var err error
	if c.table, err = parseQualifiedName(o.String("table")); err != nil {
		return nil, fmt.Errorf("option 'table': %w", err)
	}
	if c.key, err = resolveKey(o.String("primary_key"), spec.Schema, spec.Key); err != nil {
		return nil, err
	}
	for _, k := range c.key {
		if spec.Schema[k].Type.IsArray() {
			return nil, fmt.Errorf("key column %s is an array (%s): the sink sends keys as arrays, and arrays of arrays are not supported", spec.Schema[k].Name, spec.Schema[k].Type)
		}
	}
	if c.lanes > 1 && len(c.key) == 0 {
		return nil, fmt.Errorf("option 'write_connections' above 1 needs a key (the view's, or primary_key): a keyless view's inserts cannot be dealt over connections and replayed safely")
	}
	if c.lanes > 1 && strings.Contains(spec.Name, "#") {
		return nil, fmt.Errorf("option 'write_connections' above 1: the sink's name %q may not contain '#', which names its connections' progress rows", spec.Name)
	}
	return c, nil
}

// defaultFillfactor is the fillfactor of a table the sink creates when
// the option is not set: 50 when the view updates rows by key, so that
// each row of a page can take its next version on the same page (a HOT
// update: no index entry, no new page; measured below in
// BenchmarkUpsert, updates run about 1.5x faster than at 90), and 100
// (packed) when the view only inserts.
func defaultFillfactor(spec connectors.SinkSpec) int {
	if spec.AppendOnly || (len(spec.Key) == 0 && strings.TrimSpace(spec.Options["primary_key"]) == "") {
		return 100
	}
	return 50
}

// resolveKey returns the primary key's column positions: the named
// columns, or the view's key when names is empty.
func resolveKey(names string, schema types.Schema, viewKey []int) ([]int, error) {
	if strings.TrimSpace(names) == "" {
		for _, k := range viewKey {
			if k < 0 || k >= len(schema) {
				return nil, fmt.Errorf("view key position %d is outside its %d columns", k, len(schema))
			}
		}
		return viewKey, nil
	}
	idents, err := parseIdentList(names)
	if err != nil {
		return nil, fmt.Errorf("option 'primary_key': %w", err)
	}
	key := make([]int, 0, len(idents))
	for _, id := range idents {
		i := columnIndex(schema, id)
		if i < 0 {
			return nil, fmt.Errorf("option 'primary_key': %s is not a column of the view (columns: %s)", id, strings.Join(schema.Names(), ", "))
		}
		for _, k := range key {
			if k == i {
				return nil, fmt.Errorf("option 'primary_key': column %s is named twice", id)
			}
		}
		key = append(key, i)
	}
	return key, nil
}

// columnIndex finds a column by exact name, then case-insensitively.
func columnIndex(schema types.Schema, name string) int {
	for i, c := range schema {
		if c.Name == name {
			return i
		}
	}
	return schema.Index(name)
}

// keyNames lists the key columns' names.
func (c *config) keyNames() []string {
	out := make([]string, len(c.key))
	for i, k := range c.key {
		out[i] = c.schema[k].Name
	}
	return out
}
