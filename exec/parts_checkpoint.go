package exec

import (
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/types"
)

// writeParts writes into checkpoint w the changes of an operator that
// keeps its state as a map of in-memory partitions, one stored value per
// partition key under the operator's id (keyed and window Top-N, both
// running-aggregate operators): a delete for each key of gone (partitions
// a checkpoint held that the operator dropped since) unless a partition
// has taken that key again, then every partition dirty reports, as the
// rows encode gives, after which written marks it clean and stored. The
// caller empties gone.
func writeParts[P any](w *state.Writer, id string, gone []string, parts map[string]P,
	dirty func(P) bool, encode func(P) []types.Row, written func(P)) error {
	for _, k := range gone {
		if _, ok := parts[k]; ok {
			continue // dropped, then taken again: its Set below replaces it
		}
		if err := w.Delete([]byte(id + k)); err != nil {
			return err
		}
	}
	for k, p := range parts {
		if !dirty(p) {
			continue
		}
		if err := w.Set([]byte(id+k), state.EncodeValue(encode(p)...)); err != nil {
			return err
		}
		written(p)
	}
	return nil
}
