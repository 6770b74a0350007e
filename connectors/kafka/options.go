package kafka

import (
	"fmt"
	"strings"
	"time"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/connectors/format"
)

// Formats a source accepts: plain rows (json, csv) or changelogs that feed a
// TABLE (upsert-json, debezium-json).
const (
	formatJSON     = "json"
	formatCSV      = "csv"
	formatUpsert   = "upsert-json"
	formatDebezium = "debezium-json"
)

// Startup modes: where a source without checkpointed offsets begins.
const (
	startEarliest = "earliest"
	startLatest   = "latest"
	startTime     = "timestamp"
	startGroup    = "group-offsets"
)

// Sink delivery guarantees.
const (
	atLeastOnce = "at_least_once"
	exactlyOnce = "exactly_once"
)

// DefaultProgressTopic is where exactly-once sinks record the last
// committed checkpoint per sink.
const DefaultProgressTopic = "_streamsql_sink_progress"

// setupTimeout bounds the metadata calls a factory makes.
const setupTimeout = 15 * time.Second

var brokersOpt = connectors.OptionSpec{Name: "brokers", Type: "string", Required: true,
	Doc: "Comma-separated bootstrap brokers (host:port).", Example: "'127.0.0.1:9092,127.0.0.1:9093'"}

var sourceOptions = append([]connectors.OptionSpec{
	brokersOpt,
	{Name: "topic", Type: "string", Required: true, Doc: "The topic to read; every Kafka partition is one source partition (the count is read from the cluster when the source starts, and partitions added later are found by `scan.topic-partition-discovery.interval`).", Example: "'bids'"},
	{Name: "scan.topic-partition-discovery.interval", Type: "duration", Default: "10s", Doc: "How often the source asks the cluster whether the topic gained partitions; a new partition is read from its start, whatever the startup mode. Its first records can reach the pipeline up to this long after they were written, so they count against the source's lateness like any delayed record. `0` turns discovery off.", Example: "'1 minute'"},
	{Name: "format", Type: "string", Default: formatJSON, Enum: []string{formatJSON, formatCSV, formatUpsert, formatDebezium},
		Doc:     "How record values decode: `json` and `csv` give append-only rows; `upsert-json` (the record key identifies the row, a null value deletes it) and `debezium-json` (Debezium change events) feed a TABLE.",
		Example: "'upsert-json'"},
	{Name: "key", Type: "string", Doc: "With `upsert-json` and `debezium-json`: the comma-separated key columns the record key holds (default: the first column). A key that is a JSON object maps its fields to these columns by name; a bare scalar key needs exactly one key column.", Example: "'id'"},
	{Name: "scan.startup.mode", Type: "string", Default: startEarliest, Enum: []string{startEarliest, startLatest, startTime, startGroup},
		Doc:     "Where to begin when there is no checkpoint: `earliest` (the log start), `latest` (only new records), `timestamp` (the first record at or after `scan.startup.timestamp`) or `group-offsets` (the offsets committed by consumer group `group`; partitions without one start at the earliest). After a checkpoint the source always resumes at the checkpointed offsets.",
		Example: "'latest'"},
	{Name: "scan.startup.timestamp", Type: "string", Doc: "With `scan.startup.mode = 'timestamp'`: epoch milliseconds or an RFC 3339 / 'YYYY-MM-DD HH:MM:SS' time (UTC).", Example: "'2024-01-01T00:00:00Z'"},
	{Name: "group", Type: "string", Doc: "With `scan.startup.mode = 'group-offsets'`: the consumer group whose committed offsets give the start. The source never commits to it.", Example: "'analytics'"},
	{Name: "isolation", Type: "string", Default: "read_committed", Enum: []string{"read_committed", "read_uncommitted"},
		Doc: "Whether records of open or aborted transactions are read (`read_uncommitted`) or skipped until committed (`read_committed`).", Example: "'read_uncommitted'"},
	{Name: "fetch.max_bytes", Type: "int", Default: "4194304", Doc: "The most bytes one fetch may return; with one fetch in flight per broker this bounds the memory a slow pipeline lets the source buffer (its backpressure).", Example: "'1048576'"},
	{Name: "poll.max_records", Type: "int", Default: "4096", Doc: "The most records the source takes from the client at once; they are handed out one partition per read.", Example: "'1024'"},
}, csvOptions()...)

// csvOptions are the format options that make sense per record: a Kafka
// record has no header line, so csv.header is not offered.
func csvOptions() []connectors.OptionSpec {
	var out []connectors.OptionSpec
	for _, o := range format.Options {
		if o.Name != "csv.header" {
			out = append(out, o)
		}
	}
	return out
}

var sinkOptions = []connectors.OptionSpec{
	brokersOpt,
	{Name: "topic", Type: "string", Required: true, Doc: "The topic to write; created with the broker's default partition count if missing. Record keys are the view key as a JSON object, values the row as JSON, deletes are tombstones (null value).", Example: "'q7'"},
	{Name: "format", Type: "string", Default: formatJSON, Enum: []string{formatJSON}, Doc: "The value encoding: one JSON object per row, keys are the column names.", Example: "'json'"},
	{Name: "delivery", Type: "string", Default: atLeastOnce, Enum: []string{atLeastOnce, exactlyOnce},
		Doc:     "`at_least_once`: an idempotent producer flushed at every checkpoint; after a crash the changes since the last checkpoint are written again (consumers converge by key). `exactly_once`: one Kafka transaction per checkpoint, committed with a progress record, so `read_committed` consumers see each change once.",
		Example: "'exactly_once'"},
	{Name: "key", Type: "string", Doc: "Comma-separated columns that form the record key, overriding the view's key.", Example: "'auction, window_start'"},
	{Name: "transactional_id", Type: "string", Doc: "With `exactly_once`: the Kafka transactional id (default `streamsql-<sink name>`). A restarted pipeline with the same id fences the old producer; two live sinks must not share one.", Example: "'q7-prod'"},
	{Name: "progress_topic", Type: "string", Default: DefaultProgressTopic, Doc: "With `exactly_once`: the compacted topic holding the last committed checkpoint id per sink (key: sink name), written in the same transaction as the changes; created if missing.", Example: "'_streamsql_sink_progress'"},
	{Name: "max_buffered_records", Type: "int", Default: "100000", Doc: "The most records the producer buffers before Write blocks (backpressure).", Example: "'10000'"},
}

// brokerList splits the brokers option.
func brokerList(s string) ([]string, error) {
	var out []string
	for _, b := range strings.Split(s, ",") {
		if b = strings.TrimSpace(b); b != "" {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("option 'brokers' is empty")
	}
	return out, nil
}

// columnList resolves comma-separated column names against names.
func columnList(opt, s string, names []string) ([]int, error) {
	var out []int
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		i := -1
		for j, c := range names {
			if strings.EqualFold(c, n) {
				i = j
			}
		}
		if i < 0 {
			return nil, fmt.Errorf("option '%s': no column %q (columns: %s)", opt, n, strings.Join(names, ", "))
		}
		out = append(out, i)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("option '%s' names no column", opt)
	}
	return out, nil
}
