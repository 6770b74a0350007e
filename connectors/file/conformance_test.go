package file

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/streamsql/streamsql/connectors/conformance"
	"github.com/streamsql/streamsql/types"
)

// appendRecords appends records as lines to file p of a directory input.
func appendRecords(t *testing.T, name string, records [][]byte) {
	t.Helper()
	var b []byte
	for _, r := range records {
		b = append(append(b, r...), '\n')
	}
	appendFile(t, name, string(b))
}

// TestConformanceSourceDirectory: a bounded directory source, one file
// (and partition) per conformance partition.
func TestConformanceSourceDirectory(t *testing.T) {
	conformance.RunSource(t, conformance.SourceTarget{
		Factory: SourceFactory(),
		Setup: func(t *testing.T, parts int) map[string]string {
			dir := t.TempDir()
			for p := range parts {
				writeFile(t, filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", p)), "")
			}
			return map[string]string{"connector": "file", "format": "json", "path": dir}
		},
		Append: func(t *testing.T, opts map[string]string, p int, records ...[]byte) {
			appendRecords(t, filepath.Join(opts["path"], fmt.Sprintf("part-%d.jsonl", p)), records)
		},
		Bounded: true,
	})
}

// TestConformanceSourceFollow: a following source over a glob (one
// partition, files in sequence); records go to the newest file.
func TestConformanceSourceFollow(t *testing.T) {
	conformance.RunSource(t, conformance.SourceTarget{
		Factory: SourceFactory(),
		Setup: func(t *testing.T, parts int) map[string]string {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "0.jsonl"), "")
			return map[string]string{"connector": "file", "format": "json", "path": filepath.Join(dir, "*.jsonl"),
				"follow": "true", "poll_interval": "2ms"}
		},
		Append: func(t *testing.T, opts map[string]string, p int, records ...[]byte) {
			appendRecords(t, filepath.Join(filepath.Dir(opts["path"]), "0.jsonl"), records)
		},
		Partitions: 1,
	})
}

func TestConformanceSink(t *testing.T) {
	for _, delivery := range []string{atLeastOnce, exactlyOnce} {
		t.Run(delivery, func(t *testing.T) {
			conformance.RunSink(t, conformance.SinkTarget{
				Factory: SinkFactory(),
				Setup: func(t *testing.T) map[string]string {
					return map[string]string{"connector": "file", "path": filepath.Join(t.TempDir(), "out.jsonl"), "delivery": delivery}
				},
				Read: func(t *testing.T, opts map[string]string) []types.Row {
					return applyChangelog(t, opts["path"], conformance.Schema)
				},
				ExactlyOnce: delivery == exactlyOnce,
			})
		})
	}
}
