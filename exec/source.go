package exec

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/exec/state"
	"github.com/streamsql/streamsql/lateness"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Source error policies (a source's WITH on_error = ...).
const (
	OnErrorFail       = "fail"
	OnErrorSkip       = "skip"
	OnErrorDeadLetter = "dead_letter"
)

// ComputedColumn is one compiled computed column of a source
// (`name VARCHAR AS (payload->>'name')`): column Col is Eval of the row.
type ComputedColumn struct {
	Col  int
	Eval Evaluator
}

// SourceConfig is what a source operator reads and what it needs from
// the engine that runs it.
type SourceConfig struct {
	// Object is the catalog's SOURCE or TABLE; Conn its open connector,
	// which supplies Object.InputColumns().
	Object *catalog.Object
	Conn   connectors.Source
	// OnError is the source's policy for undecodable records
	// (OnErrorFail, OnErrorSkip or OnErrorDeadLetter).
	OnError string
	// Computed fills the computed columns of each row.
	Computed []ComputedColumn
	// IdleTimeout (µs, 0: none) lets a quiet partition stop holding the
	// watermark.
	IdleTimeout int64
	// Now is the engine's clock (µs).
	Now func() int64
	// Wait runs the connector's Read (which may block until data
	// arrives); the engine releases its statement lock around it while
	// stepping. Nil runs it directly.
	Wait func(read func())
	// DeadLetter takes the undecodable records under OnErrorDeadLetter.
	DeadLetter func(errs []connectors.DecodeError, at int64) error
}

// Source is the source operator: it reads one connector and feeds every
// scan of it in one pipeline. It expands connector rows to the full
// source schema (INGESTION_TIME(), PROCTIME() and computed columns),
// runs the source's watermark generator (the watermark in force before
// each row goes with it, and the new one after the batch), shares one
// projection among scans reading the same columns, applies the on_error
// policy to poison records, and keeps the position it has read to per
// partition, which Encode and Restore checkpoint.
//
// State: per partition an offset, a watermark and read/byte counters;
// bounded by the connector's partitions.
type Source struct {
	cfg   SourceConfig
	obj   *catalog.Object
	scans []ScanInput
	gen   *lateness.Generator
	conn  connectors.Source
	offs  []int64 // the offset per partition after the last batch read
	ended bool
	// in lists the columns the connector supplies (obj.InputColumns()).
	in []int
	// read counts the records read per partition; decodeErrs the
	// undecodable ones (checkpointed with the position).
	read       []int64
	decodeErrs int64
	// bytes counts the bytes read per partition (as the connector
	// measures them); backlog is its last Backlog (nil: it has none).
	bytes   []int64
	backlog []int64
	// progDone and progTotal are its last Progress (total ≤ 0: it has none).
	progDone, progTotal int64
}

// NewSource builds the source operator over cfg.Conn; it has no scans
// until AddScan and reads nothing until Open or Restore.
func NewSource(cfg SourceConfig) *Source {
	parts := cfg.Conn.Partitions()
	s := &Source{cfg: cfg, obj: cfg.Object, conn: cfg.Conn, offs: make([]int64, parts), in: cfg.Object.InputColumns()}
	s.gen = lateness.NewGenerator(parts, cfg.Object.Delay, cfg.IdleTimeout, cfg.Now())
	return s
}

// AddScan makes sc one of the scans the source feeds.
func (s *Source) AddScan(sc ScanInput) { s.scans = append(s.scans, sc) }

// Object is the catalog object the source reads.
func (s *Source) Object() *catalog.Object { return s.obj }

// Generator is the source's watermark generator (for figures and stall
// detection; the operator alone advances it).
func (s *Source) Generator() *lateness.Generator { return s.gen }

// Watermark is the source's current watermark.
func (s *Source) Watermark() int64 { return s.gen.Current() }

// Ended reports whether the connector's bounded input has ended.
func (s *Source) Ended() bool { return s.ended }

// Offsets is the position read to, per partition (not to be changed).
func (s *Source) Offsets() []int64 { return s.offs }

// OnError is the source's on_error policy.
func (s *Source) OnError() string { return s.cfg.OnError }

// DecodeErrors counts the undecodable records the source has met.
func (s *Source) DecodeErrors() int64 { return s.decodeErrs }

// Progress is the connector's last Progress (total ≤ 0: it has none).
func (s *Source) Progress() (done, total int64) { return s.progDone, s.progTotal }

// PartitionCounters are partition p's records and bytes read and its
// backlog (hasLag false when the connector does not say).
func (s *Source) PartitionCounters(p int) (read, bytes, lag int64, hasLag bool) {
	read, bytes = at(s.read, p), at(s.bytes, p)
	if p < len(s.backlog) && s.backlog[p] >= 0 {
		lag, hasLag = s.backlog[p], true
	}
	return
}

// Total is the number of records the source has read.
func (s *Source) Total() int64 {
	var n int64
	for _, c := range s.read {
		n += c
	}
	return n
}

// at is xs[i], 0 past its end.
func at(xs []int64, i int) int64 {
	if i < len(xs) {
		return xs[i]
	}
	return 0
}

// Close closes the connector.
func (s *Source) Close() error { return s.conn.Close() }

// Open starts a connector that has no checkpointed position: nil offsets
// let it begin where its options say (the start, or a startup mode).
func (s *Source) Open(ctx context.Context) error {
	if err := s.conn.Open(ctx, nil); err != nil {
		return fmt.Errorf("open source %s: %w", s.obj.Name, err)
	}
	return nil
}

// Encode is the source's checkpointed position: the per-partition offsets
// (a memory source's: log sequence numbers), and the watermark state.
// The first value is 0; checkpoints before memory sources had offsets
// held a memory source's position there.
func (s *Source) Encode() []byte {
	parts, cur := s.gen.State()
	row := types.Row{types.IntValue(0), types.IntValue(cur), types.BoolValue(s.ended)}
	offs := make(types.Row, len(s.offs))
	for i, o := range s.offs {
		offs[i] = types.IntValue(o)
	}
	wms := make(types.Row, len(parts))
	for i, p := range parts {
		wms[i] = types.IntValue(p)
	}
	return state.EncodeValue(row, offs, wms, types.Row{types.IntValue(s.decodeErrs)})
}

// Restore loads a position Encode wrote under key (none for a source
// that was never checkpointed) and opens the connector there.
func (s *Source) Restore(ctx context.Context, st *state.Store, key []byte) error {
	b, ok, err := st.Get(key)
	if err != nil {
		return err
	}
	if !ok {
		return s.Open(ctx)
	}
	rows, err := state.DecodeValue(b)
	if err != nil {
		return fmt.Errorf("restore reader %s: %w", s.obj.Name, err)
	}
	s.ended = rows[0][2].Bool()
	if len(rows[1]) > len(s.offs) {
		return fmt.Errorf("restore reader %s: the checkpoint has %d partitions and the source now %d; partitions only go away when the input is recreated: drop and recreate the source to read it anew", s.obj.Name, len(rows[1]), len(s.offs))
	}
	for i := range s.offs {
		switch {
		case i < len(rows[1]):
			s.offs[i] = rows[1][i].I
		case len(rows[1]) == 0: // an older memory source's one log position (0 for other sources)
			s.offs[i] = rows[0][0].I
		}
	}
	parts := make([]int64, len(rows[2]))
	for i, p := range rows[2] {
		parts[i] = p.I
	}
	s.gen.Restore(parts, rows[0][1].I)
	if len(rows) > 3 && len(rows[3]) > 0 { // checkpoints before the counters have none
		s.decodeErrs = rows[3][0].I
	}
	if err := s.conn.Open(ctx, s.offs); err != nil {
		return fmt.Errorf("open source %s: %w", s.obj.Name, err)
	}
	return nil
}

// grow follows a source that gained partitions while running: the new
// ones get offset 0 (their start) until their first batch, and a
// watermark slot that holds the source watermark like any partition that
// has not yet seen a row.
func (s *Source) grow(now int64) {
	if n := s.conn.Partitions(); n > len(s.offs) {
		s.offs = append(s.offs, make([]int64, n-len(s.offs))...)
		s.gen.Grow(n, now)
	}
}

// Pull reads one batch (at most max rows) from the connector, applies
// the on_error policy to its poison records, hands the good rows
// (expanded to the full source schema) to apply, or, with apply nil,
// feeds them to the scans, and advances the partition's offset. It
// reports whether the connector produced anything; at the end of a
// bounded input it closes event time (the watermark goes to the end).
func (s *Source) Pull(ctx context.Context, max int, apply func(b connectors.Batch, rows []types.Row) error) (bool, error) {
	if s.ended {
		return false, nil
	}
	var b connectors.Batch
	var err error
	if s.cfg.Wait != nil {
		s.cfg.Wait(func() { b, err = s.conn.Read(ctx, max) })
	} else {
		b, err = s.conn.Read(ctx, max)
	}
	if errors.Is(err, connectors.ErrEndOfInput) {
		s.ended = true
		// A bounded input that ended closes every window: event time is
		// complete.
		return false, s.EmitWatermark(types.EndOfTime)
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", s.obj.Name, err)
	}
	s.grow(s.cfg.Now())
	if bl, ok := s.conn.(connectors.Backlogger); ok {
		s.backlog = bl.Backlog()
	}
	if pr, ok := s.conn.(connectors.Progresser); ok {
		s.progDone, s.progTotal = pr.Progress()
	}
	if b.Partition < 0 || b.Partition >= len(s.offs) {
		return false, fmt.Errorf("read %s: batch for partition %d of %d", s.obj.Name, b.Partition, len(s.offs))
	}
	if len(b.Rows) == 0 && b.Next == s.offs[b.Partition] {
		return false, nil
	}
	ingested := b.Ingested
	if ingested == 0 {
		ingested = s.cfg.Now()
	}
	if err := s.poison(b.Errors, ingested); err != nil {
		return false, err
	}
	rows := s.expand(b.Rows, ingested, b.Times)
	if apply != nil {
		err = apply(b, rows)
	} else {
		err = s.Feed(b.Partition, rows, true) // a connector's rows are the operator's
	}
	if err != nil {
		return false, err
	}
	s.count(b.Partition, len(b.Rows))
	s.countBytes(b.Partition, b.Bytes)
	s.offs[b.Partition] = b.Next
	return true, nil
}

// poison applies the source's on_error policy to a batch's undecodable
// records.
func (s *Source) poison(errs []connectors.DecodeError, at int64) error {
	if len(errs) == 0 {
		return nil
	}
	s.decodeErrs += int64(len(errs))
	switch s.cfg.OnError {
	case OnErrorSkip:
		return nil
	case OnErrorDeadLetter:
		return s.cfg.DeadLetter(errs, at)
	}
	de := errs[0]
	return &sqlerr.Error{Code: sqlerr.DataException,
		Msg:  fmt.Sprintf("source %s: undecodable record at partition %d offset %d", s.obj.Name, de.Partition, de.Offset),
		Hint: "set on_error = 'skip' or 'dead_letter' on the source to keep going", Err: de.Err}
}

// count adds n records read from partition part.
func (s *Source) count(part, n int) {
	if part >= len(s.read) {
		s.read = append(s.read, make([]int64, part+1-len(s.read))...)
	}
	s.read[part] += int64(n)
}

// countBytes adds n bytes read from partition part.
func (s *Source) countBytes(part int, n int64) {
	if n == 0 {
		return
	}
	if part >= len(s.bytes) {
		s.bytes = append(s.bytes, make([]int64, part+1-len(s.bytes))...)
	}
	s.bytes[part] += n
}

// Feed pushes full source rows of partition part through every scan,
// with the watermark in force before each row, and advances the
// watermark after. owned says the rows are the operator's to reuse.
func (s *Source) Feed(part int, rows []types.Row, owned bool) error {
	if len(rows) == 0 {
		return nil
	}
	now := s.cfg.Now()
	rows = s.fillComputed(s.fillProcTime(rows, now))
	wms := make([]int64, len(rows))
	tc := s.obj.TimeCol
	for i, row := range rows {
		wms[i] = s.gen.Current()
		if tc >= 0 && !row[tc].IsNull() {
			s.gen.Observe(part, row[tc].I, now)
		}
	}
	// Scans reading the same columns share one projection (rows are
	// immutable once emitted).
	var done [][]int
	var projected [][]types.Row
	for _, sc := range s.scans {
		out := rows
		if !IdentityCols(sc.Cols, len(s.obj.Schema)) {
			i := slices.IndexFunc(done, func(c []int) bool { return slices.Equal(c, sc.Cols) })
			if i < 0 {
				p := projectInPlace(rows, sc.Cols, owned && len(s.scans) == 1)
				done, projected = append(done, sc.Cols), append(projected, p)
				i = len(done) - 1
			}
			out = projected[i]
		}
		if err := sc.Out.Emit(&Batch{Rows: out, WM: wms}); err != nil {
			return err
		}
		if err := sc.Out.EmitWatermark(s.gen.Current()); err != nil {
			return err
		}
	}
	return nil
}

// EmitWatermark sends wm to every scan of the source.
func (s *Source) EmitWatermark(wm int64) error {
	for _, sc := range s.scans {
		if err := sc.Out.EmitWatermark(wm); err != nil {
			return err
		}
	}
	return nil
}

// Tick advances the source's watermark on the wall clock: partitions idle
// for longer than idle_timeout stop holding it back, and a processing-time
// watermark moves to now, so windows fire even when no rows arrive.
func (s *Source) Tick(now int64) error {
	before := s.gen.Current()
	s.gen.Tick(now)
	tc := s.obj.TimeCol
	if tc >= 0 && tc < len(s.obj.Generated) && s.obj.Generated[tc] == catalog.GenProcTime {
		for p := range len(s.offs) {
			s.gen.Observe(p, now, now)
		}
	}
	if s.gen.Current() == before {
		return nil
	}
	return s.EmitWatermark(s.gen.Current())
}

// expand places connector rows (input columns only) into full source
// rows, filling INGESTION_TIME() columns with the row's ingestion time
// (times[i], else the batch's).
func (s *Source) expand(rows []types.Row, ingested int64, times []int64) []types.Row {
	in := s.in
	if len(in) == len(s.obj.Schema) {
		return rows
	}
	n := len(s.obj.Schema)
	slab := make([]types.Value, len(rows)*n)
	out := make([]types.Row, len(rows))
	for i, src := range rows {
		row := slab[i*n : (i+1)*n : (i+1)*n]
		for j, c := range in {
			row[c] = src[j]
		}
		at := ingested
		if i < len(times) {
			at = times[i]
		}
		for c, g := range s.obj.Generated {
			if g == catalog.GenIngestion {
				row[c] = types.TimestampValue(at)
			}
		}
		out[i] = row
	}
	return out
}

// fillProcTime sets PROCTIME() columns to now.
func (s *Source) fillProcTime(rows []types.Row, now int64) []types.Row {
	has := false
	for _, g := range s.obj.Generated {
		has = has || g == catalog.GenProcTime
	}
	if !has {
		return rows
	}
	out := make([]types.Row, len(rows))
	for i, src := range rows {
		row := src.Clone()
		for c, g := range s.obj.Generated {
			if g == catalog.GenProcTime {
				row[c] = types.TimestampValue(now)
			}
		}
		out[i] = row
	}
	return out
}

// fillComputed sets the computed columns of rows from their input
// columns, on copies (rows are immutable once emitted).
func (s *Source) fillComputed(rows []types.Row) []types.Row {
	if len(s.cfg.Computed) == 0 {
		return rows
	}
	out := make([]types.Row, len(rows))
	for i, src := range rows {
		row := src.Clone()
		for _, c := range s.cfg.Computed {
			row[c.Col] = c.Eval(row)
		}
		out[i] = row
	}
	return out
}

// IdentityCols reports whether cols pick all n columns in order.
func IdentityCols(cols []int, n int) bool {
	if len(cols) != n {
		return false
	}
	for i, c := range cols {
		if c != i {
			return false
		}
	}
	return true
}

// ProjectRows returns rows cut to cols, on new arrays.
func ProjectRows(rows []types.Row, cols []int) []types.Row {
	out := make([]types.Row, len(rows))
	slab := make([]types.Value, len(rows)*len(cols))
	for i, r := range rows {
		row := slab[i*len(cols) : (i+1)*len(cols) : (i+1)*len(cols)]
		for j, c := range cols {
			row[j] = r[c]
		}
		out[i] = row
	}
	return out
}

// projectInPlace is ProjectRows, reusing rows and their arrays when
// mayReuse (the rows are the caller's and nothing else reads them) and
// cols are ascending: each row's kept values move to its front (a value
// moves only to a place before it, never over one still to move). It
// saves the projection's allocation per row of a source read from a
// connector.
func projectInPlace(rows []types.Row, cols []int, mayReuse bool) []types.Row {
	if !mayReuse || !ascending(cols) {
		return ProjectRows(rows, cols)
	}
	for i, r := range rows {
		for j, c := range cols {
			r[j] = r[c]
		}
		rows[i] = r[:len(cols):len(cols)]
	}
	return rows
}

// ascending reports whether cols are column numbers in strictly ascending
// order.
func ascending(cols []int) bool {
	for k, c := range cols {
		if c < 0 || (k > 0 && c <= cols[k-1]) {
			return false
		}
	}
	return true
}
