// Package metrics exports an engine's figures to Prometheus: a collector
// that turns one engine.Snapshot into metric families at every scrape
// (the engine keeps its counters itself and knows nothing of Prometheus),
// the Go runtime and process collectors, and the /metrics handler that
// `streamsql serve` and `streamsql run --http` serve. docs/observability.md
// lists every metric.
package metrics

import (
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/types"
)

// Source is what the collector reads: *engine.Engine.
type Source interface {
	Metrics() engine.Snapshot
}

func desc(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc("streamsql_"+name, help, labels, nil)
}

// The metric descriptions, one per family (docs/observability.md).
var (
	recordsRead    = desc("source_records_read_total", "Records read from a source partition by a pipeline since the process started.", "pipeline", "source", "partition")
	bytesRead      = desc("source_bytes_read_total", "Bytes of the records (keys and values, poison ones too) read from a source partition by a pipeline since the process started.", "pipeline", "source", "partition")
	consumerLag    = desc("source_consumer_lag_records", "Records between a pipeline's position in a source partition and the partition's end (Kafka: end offset minus position).", "pipeline", "source", "partition")
	decodeErrors   = desc("source_decode_errors_total", "Undecodable source records by what the source's on_error did with them (failed, skipped, dead_lettered); kept across restarts.", "pipeline", "source", "policy")
	srcWatermark   = desc("source_watermark_seconds", "A source's event-time watermark as a Unix time.", "pipeline", "source")
	srcLag         = desc("source_watermark_lag_seconds", "Wall clock minus the source's watermark.", "pipeline", "source")
	partWatermark  = desc("source_partition_watermark_seconds", "A source partition's watermark as a Unix time.", "pipeline", "source", "partition")
	partIdle       = desc("source_partition_idle", "1 while a source partition is idle (idle_timeout) and does not hold the watermark back.", "pipeline", "source", "partition")
	viewRowsIn     = desc("view_rows_in_total", "Source rows fed to a view since the process started.", "view")
	viewRowsOut    = desc("view_rows_out_total", "Changes a view emitted (to its store, subscribers and sinks) since the process started.", "view")
	viewLate       = desc("view_late_rows_total", "Late rows by policy and reason (late: window fired, state kept; expired: state gone); kept across restarts.", "view", "policy", "reason")
	viewWatermark  = desc("view_watermark_seconds", "A view's watermark (the lowest over its sources) as a Unix time.", "view")
	viewLag        = desc("view_watermark_lag_seconds", "Wall clock minus the view's watermark.", "view")
	stalled        = desc("watermark_stalled", "1 while a view's watermark has not moved for watermark_stall_timeout although rows arrive.", "view")
	ckptDuration   = desc("checkpoint_duration_seconds", "Time to store a checkpoint and commit the sinks.")
	ckptFailures   = desc("checkpoint_failures_total", "Checkpoints that failed since the process started.")
	ckptLast       = desc("checkpoint_last_success_timestamp_seconds", "Unix time of the last successful checkpoint of this process (absent before the first).")
	ckptID         = desc("checkpoint_id", "The id of the last stored checkpoint.")
	restoreSeconds = desc("restore_duration_seconds", "Time Open took to restore the state at start (0 on a fresh start).")
	restoreBytes   = desc("restore_bytes", "Size of the state directory restored at start (0 on a fresh start).")
	sinkRows       = desc("sink_rows_written_total", "Changes written to a sink since the process started.", "sink", "connector")
	sinkCommit     = desc("sink_commit_duration_seconds", "Time a sink took to commit a checkpoint.", "sink", "connector")
	opRowsIn       = desc("operator_rows_in_total", "Rows a view's plan node received from its inputs since the process started.", "view", "operator")
	opRowsOut      = desc("operator_rows_out_total", "Rows (inserts and retractions) a view's plan node emitted since the process started.", "view", "operator")
	opStateKeys    = desc("operator_state_keys", "Keys (groups, windows, join keys, view rows) a view's stateful plan node holds in memory.", "view", "operator")
	opMemBytes     = desc("operator_state_memory_bytes", "Estimated bytes in memory of a view's stateful plan node's state (resident entries times the mean in-memory size of a sample, Go's overhead included; what it spills by under memory_limit).", "view", "operator")
	opSpillBytes   = desc("operator_state_spilled_bytes", "Bytes of a view's stateful plan node's values in the spill area (changed since the last checkpoint, evicted from memory).", "view", "operator")
	opSpillReads   = desc("operator_spill_reads_total", "Evicted state values a view's plan node read back (from the spill area or the checkpoint) since the process started.", "view", "operator")
	opProcessing   = desc("operator_processing_seconds_total", "Time a view's plan node itself spent on rows and watermarks (not the nodes after it) since the process started.", "view", "operator")
	opWatermark    = desc("operator_watermark_seconds", "The last watermark a view's plan node emitted, as a Unix time.", "view", "operator")
	ckptBytes      = desc("checkpoint_last_bytes", "Bytes (keys and values) the last checkpoint of this process wrote (absent before the first).")
	ckptChanges    = desc("checkpoint_last_changes", "State keys the last checkpoint of this process wrote or deleted (absent before the first).")
	sinkRetries    = desc("sink_retries_total", "Failed attempts a sink retried (its destination unreachable, a commit failed) since the process started.", "sink", "connector")
	sinkCommitted  = desc("sink_last_committed_checkpoint", "The id of the last checkpoint a sink committed in this process (0: none yet).", "sink", "connector")
	exprErrors     = desc("expression_errors_total", "Expression errors that evaluated to NULL since the process started.")
)

var allDescs = []*prometheus.Desc{recordsRead, bytesRead, consumerLag, decodeErrors, srcWatermark, srcLag, partWatermark, partIdle,
	viewRowsIn, viewRowsOut, viewLate, viewWatermark, viewLag, stalled,
	opRowsIn, opRowsOut, opStateKeys, opMemBytes, opSpillBytes, opSpillReads, opProcessing, opWatermark,
	ckptDuration, ckptFailures, ckptLast, ckptID, ckptChanges, ckptBytes, restoreSeconds, restoreBytes, sinkRows, sinkCommit, sinkRetries, sinkCommitted, exprErrors}

// Collector is a prometheus.Collector over an engine's figures.
type Collector struct{ src Source }

// NewCollector returns a collector reading src at every scrape.
func NewCollector(src Source) *Collector { return &Collector{src: src} }

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range allDescs {
		ch <- d
	}
}

// Collect sends the metrics of one engine snapshot.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.src.Metrics()
	now := float64(s.Now.UnixMicro()) / 1e6
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	counter := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	for _, src := range s.Sources {
		collectSource(src, now, gauge, counter)
	}
	for _, v := range s.Views {
		counter(viewRowsIn, float64(v.RowsIn), v.Name)
		counter(viewRowsOut, float64(v.RowsOut), v.Name)
		for k, n := range v.Late {
			counter(viewLate, float64(n), v.Name, k.Policy, k.Reason)
		}
		if v.HasWatermark && v.Watermark != types.MinTime {
			gauge(viewWatermark, seconds(v.Watermark), v.Name)
			gauge(viewLag, now-seconds(v.Watermark), v.Name)
		}
		gauge(stalled, boolValue(v.Stalled), v.Name)
		collectOperators(v, gauge, counter)
	}
	for _, k := range s.Sinks {
		counter(sinkRows, float64(k.Rows), k.Name, k.Connector)
		ch <- histogram(sinkCommit, k.Commit, k.Name, k.Connector)
		counter(sinkRetries, float64(k.Retries), k.Name, k.Connector)
		gauge(sinkCommitted, float64(k.LastCommitted), k.Name, k.Connector)
	}
	if c := lastStored(s.Checkpoints.Recent); c != nil {
		gauge(ckptChanges, float64(c.Changes))
		gauge(ckptBytes, float64(c.Bytes))
	}
	ch <- histogram(ckptDuration, s.Checkpoints.Duration)
	counter(ckptFailures, float64(s.Checkpoints.Failures))
	if !s.Checkpoints.LastSuccess.IsZero() {
		gauge(ckptLast, float64(s.Checkpoints.LastSuccess.UnixMicro())/1e6)
	}
	gauge(ckptID, float64(s.Checkpoints.LastID))
	gauge(restoreSeconds, s.Restore.Duration.Seconds())
	gauge(restoreBytes, float64(s.Restore.Bytes))
	counter(exprErrors, float64(s.ExpressionErrors))
}

type emit func(d *prometheus.Desc, v float64, labels ...string)

// collectSource sends one reader's metrics.
func collectSource(src engine.SourceStats, now float64, gauge, counter emit) {
	for i, p := range src.Partitions {
		part := strconv.Itoa(i)
		counter(recordsRead, float64(p.Read), src.Pipeline, src.Source, part)
		counter(bytesRead, float64(p.Bytes), src.Pipeline, src.Source, part)
		if p.HasLag {
			gauge(consumerLag, float64(p.Lag), src.Pipeline, src.Source, part)
		}
		if src.HasWatermark {
			if p.Watermark != types.MinTime {
				gauge(partWatermark, seconds(p.Watermark), src.Pipeline, src.Source, part)
			}
			gauge(partIdle, boolValue(p.Idle), src.Pipeline, src.Source, part)
		}
	}
	counter(decodeErrors, float64(src.DecodeErrors), src.Pipeline, src.Source, policyLabel(src.OnError))
	if src.HasWatermark && src.Watermark != types.MinTime {
		gauge(srcWatermark, seconds(src.Watermark), src.Pipeline, src.Source)
		gauge(srcLag, now-seconds(src.Watermark), src.Pipeline, src.Source)
	}
}

// lastStored is the last successful checkpoint of recent, or nil.
func lastStored(recent []engine.CheckpointRecord) *engine.CheckpointRecord {
	for i := len(recent) - 1; i >= 0; i-- {
		if recent[i].Err == "" {
			return &recent[i]
		}
	}
	return nil
}

// collectOperators sends the metrics of a view's plan nodes.
func collectOperators(v engine.ViewStats, gauge, counter emit) {
	for _, o := range v.Operators {
		op := o.Label()
		counter(opRowsIn, float64(o.RowsIn), v.Name, op)
		counter(opRowsOut, float64(o.RowsOut), v.Name, op)
		if o.HasState {
			gauge(opStateKeys, float64(o.StateKeys), v.Name, op)
			gauge(opMemBytes, float64(o.MemoryBytes), v.Name, op)
			gauge(opSpillBytes, float64(o.SpilledBytes), v.Name, op)
			counter(opSpillReads, float64(o.SpillReads), v.Name, op)
		}
		counter(opProcessing, o.Processing.Seconds(), v.Name, op)
		if o.Watermark != types.MinTime {
			gauge(opWatermark, seconds(o.Watermark), v.Name, op)
		}
	}
}

// policyLabel names what on_error did with a record.
func policyLabel(onError string) string {
	switch onError {
	case "skip":
		return "skipped"
	case "dead_letter":
		return "dead_lettered"
	}
	return "failed"
}

func seconds(us int64) float64 { return float64(us) / 1e6 }

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// histogram turns an engine histogram into a constant Prometheus one
// (cumulative buckets).
func histogram(d *prometheus.Desc, h engine.Histogram, labels ...string) prometheus.Metric {
	buckets := make(map[float64]uint64, len(h.Bounds))
	var cum uint64
	for i, b := range h.Bounds {
		if i < len(h.Counts) {
			cum += h.Counts[i]
		}
		buckets[b] = cum
	}
	return prometheus.MustNewConstHistogram(d, h.Count, h.Sum, buckets, labels...)
}

// NewRegistry returns a registry holding the engine's collector and the
// Go runtime and process collectors.
func NewRegistry(src Source) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(src), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// Handler serves reg in the Prometheus text format.
func Handler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg})
}
