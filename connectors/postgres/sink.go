package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/streamsql/streamsql/connectors"
)

// startupTimeout bounds New's one attempt to reach Postgres and check the
// table; if Postgres is unreachable then, the sink checks on first use.
const startupTimeout = 5 * time.Second

// sink is the at-least-once sink and the core of the exactly-once one.
type sink struct {
	cfg     *config
	connCfg *pgx.ConnConfig
	log     *slog.Logger
	red     redactor
	// outage logs when Postgres becomes unreachable and when it is back.
	outage    *connectors.Outage
	sql       statements
	tableName string // for messages: as given, or as resolved once checked

	// closing is cancelled by Close so that a call blocked retrying
	// against an unreachable Postgres returns.
	closing context.Context
	close   context.CancelFunc

	mu    sync.Mutex
	lanes []*lane // one per write connection; lanes[0] also checks the table
	ready bool    // the table (and progress table) were checked/created

	// buf holds the changes written since the last flush or PreCommit,
	// collapsed per key as they arrive (a statement may not touch a key
	// twice; it also bounds the buffer by the number of keys).
	buf    connectors.Collapser
	staged connectors.Staged // exactly-once: pre-committed, not yet committed
}

// lane is one of the sink's connections to Postgres. With
// write_connections = N a keyed sink deals each flush's changes over N
// lanes by key (connectors.Split) and writes them in parallel, one
// transaction per lane, each with its own progress row.
type lane struct {
	i    int
	conn *pgx.Conn
	// epoch is the sink's outage epoch when conn was opened; a connection
	// from before the last outage is reopened before use.
	epoch int
}

// laneName is lane i's row in the progress table: the sink's name for
// lane 0 (so a one-connection sink's row is just its name), name#i after.
func laneName(sink string, i int) string {
	if i == 0 {
		return sink
	}
	return fmt.Sprintf("%s#%d", sink, i)
}

// exactlyOnceSink adds Recover; only the exactly-once mode implements
// connectors.Recoverer.
type exactlyOnceSink struct{ *sink }

// New builds a postgres sink for spec (see the package doc). It tries
// once to reach Postgres and check (or create) the table so a misfit table
// fails CREATE SINK; if Postgres is unreachable it logs that and checks on
// first use instead.
func New(spec connectors.SinkSpec, logger *slog.Logger) (connectors.Sink, error) {
	cfg, err := parseConfig(spec)
	if err != nil {
		return nil, err
	}
	connCfg, err := parseDSN(cfg.dsn)
	if err != nil {
		return nil, err
	}
	connCfg.RuntimeParams["timezone"] = "UTC"
	connCfg.RuntimeParams["application_name"] = "streamsql sink " + spec.Name
	if connCfg.ConnectTimeout == 0 {
		connCfg.ConnectTimeout = 10 * time.Second
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &sink{
		cfg: cfg, connCfg: connCfg, log: logger, red: redactor{password: connCfg.Password},
		sql: buildStatements(cfg), tableName: displayName(cfg.table), buf: connectors.Collapser{Key: cfg.key},
		outage: connectors.NewOutage(logger, "postgres sink: Postgres unavailable, retrying", "postgres sink: Postgres is back",
			"sink", spec.Name, "table", displayName(cfg.table)),
	}
	for i := 0; i < cfg.lanes; i++ {
		s.lanes = append(s.lanes, &lane{i: i})
	}
	s.closing, s.close = context.WithCancel(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
	defer cancel()
	if err := s.connect(ctx, s.lanes[0]); err != nil {
		connLost := s.lanes[0].lost()
		s.lanes[0].drop()
		if !transient(err, connLost) {
			s.close()
			return nil, s.red.error(s.wrap("open", err))
		}
		s.outage.Failed(s.red.error(err), "op", "open", "note", "the table is checked on first use")
	}
	if cfg.exactlyOnce {
		return exactlyOnceSink{s}, nil
	}
	return s, nil
}

// Retries implements connectors.Retrier: the failed attempts to reach
// Postgres that were retried (opening, checking, writing, committing).
func (s *sink) Retries() int64 { return s.outage.Failures() }

// wrap names the sink, the table and the operation in an error.
func (s *sink) wrap(what string, err error) error {
	return fmt.Errorf("postgres sink %s (table %s): %s: %w", s.cfg.sink, s.tableName, what, err)
}

// connect opens lane l's connection if it has none (or one opened before
// the last outage ended) and, the first time
// (only ever on lane 0, before other lanes run: see onLanes), checks or
// creates the table.
func (s *sink) connect(ctx context.Context, l *lane) error {
	if !l.lost() && l.epoch != s.outage.Epoch() {
		l.drop()
	}
	if l.lost() {
		conn, err := pgx.ConnectConfig(ctx, s.connCfg)
		if err != nil {
			return err
		}
		registerArrays(conn.TypeMap())
		l.conn, l.epoch = conn, s.outage.Epoch()
	}
	if !s.ready {
		if err := s.setup(ctx, l.conn); err != nil {
			return err
		}
		s.ready = true
	}
	return nil
}

// lost reports whether the lane has no open connection.
func (l *lane) lost() bool { return l.conn == nil || l.conn.IsClosed() }

func (l *lane) drop() {
	if l.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = l.conn.Close(ctx)
		cancel()
		l.conn = nil
	}
}

// setup creates the table when asked, checks it fits the view, and
// creates the progress table in exactly-once mode.
func (s *sink) setup(ctx context.Context, conn *pgx.Conn) error {
	if s.cfg.create {
		if err := execDDL(ctx, conn, createTableSQL(s.cfg)); err != nil {
			return fmt.Errorf("create table: %w", err)
		}
	}
	ti, err := loadTable(ctx, conn, s.cfg.table)
	if errors.Is(err, errNoTable) {
		return permanent(fmt.Errorf("table %s does not exist (create it, or set create_table = true)", s.tableName))
	}
	if err != nil {
		return err
	}
	s.tableName = ti.name
	if err := checkFit(ti, s.cfg.schema, s.cfg.keyNames()); err != nil {
		return permanent(err)
	}
	if s.cfg.exactlyOnce {
		if err := execDDL(ctx, conn, s.sql.createProgress); err != nil {
			return fmt.Errorf("create progress table: %w", err)
		}
	}
	return nil
}

// execDDL runs a CREATE ... IF NOT EXISTS, once more if a concurrent
// creator won the race (unique violation on the catalog).
func execDDL(ctx context.Context, conn *pgx.Conn, sql string) error {
	_, err := conn.Exec(ctx, sql)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && (pg.Code == "23505" || pg.Code == "42P07") {
		_, err = conn.Exec(ctx, sql)
	}
	return err
}

// Write buffers changes; in at-least-once mode it flushes once
// batch_rows are buffered (blocking while Postgres is unreachable).
func (s *sink) Write(ctx context.Context, changes []connectors.Change) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(changes) == 0 {
		return nil
	}
	s.buf.Add(changes)
	if !s.cfg.exactlyOnce && s.buf.Len() >= s.cfg.batchRows {
		return s.flush(ctx)
	}
	return nil
}

// take returns the collapsed buffer and empties it.
func (s *sink) take() []connectors.Change {
	changes := s.buf.Changes()
	s.buf.Reset()
	return changes
}

// flush writes the buffer in one transaction per lane (at-least-once
// mode).
func (s *sink) flush(ctx context.Context) error {
	parts := connectors.Split(s.buf.Changes(), s.cfg.key, len(s.lanes))
	err := s.onLanes(ctx, "flush", func(ctx context.Context, l *lane, _ int) error {
		_, err := s.writeTx(ctx, l, parts[l.i], 0, nil)
		return err
	})
	if err != nil {
		return err
	}
	s.take()
	return nil
}

// PreCommit flushes (at-least-once, returning nil) or stages the
// checkpoint's collapsed changes and returns them encoded (exactly-once).
func (s *sink) PreCommit(ctx context.Context, id uint64) ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cfg.exactlyOnce {
		if s.buf.Len() == 0 {
			return nil, nil
		}
		return nil, s.flush(ctx)
	}
	return s.staged.Stage(id, s.take()), nil
}

// Commit writes the changes staged up to checkpoint id and the progress
// row in one transaction per lane (exactly-once); at-least-once does
// nothing.
func (s *sink) Commit(ctx context.Context, id uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cfg.exactlyOnce {
		return nil
	}
	changes, n := s.staged.UpTo(id, s.cfg.key)
	parts := connectors.Split(changes, s.cfg.key, len(s.lanes))
	err := s.onLanes(ctx, fmt.Sprintf("commit checkpoint %d", id), func(ctx context.Context, l *lane, attempt int) error {
		// A retry after a lost connection may follow a COMMIT that went
		// through: the lane's progress row then already says id.
		var skip func(int64) bool
		if attempt > 1 {
			skip = func(cur int64) bool { return cur == int64(id) }
		}
		_, err := s.writeTx(ctx, l, parts[l.i], id, skip)
		return err
	})
	if err != nil {
		return err
	}
	s.staged.Drop(n)
	return nil
}

// Recover commits checkpoint id's staged changes unless Postgres already
// has them. A keyless sink (one lane; its inserts are not idempotent)
// decides by its progress row, read and locked in the transaction that
// would write them. A keyed sink re-applies the whole checkpoint through
// its current lanes unless every lane's row, including rows left by an
// earlier run with more lanes, shows id or later: re-applying is harmless
// (upserts and deletes by key to the values of checkpoint id, and
// Postgres holds nothing later than id), and deciding per lane would be
// wrong after write_connections changed, since keys then move between
// lanes.
func (s exactlyOnceSink) Recover(ctx context.Context, id uint64, staged []byte) error {
	what := fmt.Sprintf("recover checkpoint %d", id)
	changes, err := connectors.DecodeChanges(staged)
	if err != nil {
		return s.wrap(what, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.cfg.key) == 0 {
		return s.retry(ctx, what, s.lanes[0], func(ctx context.Context, l *lane, _ int) error {
			skipped, err := s.writeTx(ctx, l, changes, id, func(cur int64) bool { return cur >= int64(id) })
			if err == nil && skipped {
				s.log.Info("postgres sink: checkpoint already committed", "sink", s.cfg.sink, "checkpoint", id)
			}
			return err
		})
	}
	var done bool
	var stale []string
	err = s.retry(ctx, what, s.lanes[0], func(ctx context.Context, l *lane, _ int) error {
		var err error
		done, stale, err = s.committed(ctx, l.conn, id)
		return err
	})
	if err != nil {
		return err
	}
	if done {
		s.log.Info("postgres sink: checkpoint already committed", "sink", s.cfg.sink, "checkpoint", id)
		return nil
	}
	parts := connectors.Split(changes, s.cfg.key, len(s.lanes))
	return s.onLanes(ctx, what, func(ctx context.Context, l *lane, _ int) error {
		var drop []string
		if l.i == 0 {
			drop = stale
		}
		_, err := s.writeTxDropping(ctx, l, parts[l.i], id, nil, drop)
		return err
	})
}

// committed reads the sink's progress rows: done when every current
// lane's row exists and shows id or later and so does every other lane
// row of this sink (stale: left by a run with more lanes, listed so the
// replay can delete them).
func (s *sink) committed(ctx context.Context, conn *pgx.Conn, id uint64) (done bool, stale []string, err error) {
	rows, err := conn.Query(ctx, s.sql.laneProgress, s.cfg.sink)
	if err != nil {
		return false, nil, fmt.Errorf("read progress: %w", err)
	}
	cur := map[string]int64{}
	for rows.Next() {
		var name string
		var cp int64
		if err := rows.Scan(&name, &cp); err != nil {
			rows.Close()
			return false, nil, fmt.Errorf("read progress: %w", err)
		}
		cur[name] = cp
	}
	if err := rows.Err(); err != nil {
		return false, nil, fmt.Errorf("read progress: %w", err)
	}
	done = true
	for _, l := range s.lanes {
		cp, ok := cur[laneName(s.cfg.sink, l.i)]
		done = done && ok && cp >= int64(id)
		delete(cur, laneName(s.cfg.sink, l.i))
	}
	for name, cp := range cur {
		stale = append(stale, name)
		done = done && cp >= int64(id)
	}
	return done, stale, nil
}

// writeTx applies changes (collapsed) in one transaction on lane l, with
// the lane's progress row (→ id) in exactly-once mode. When skip is set,
// it first reads and locks the lane's progress row and does nothing if
// skip says the checkpoint is already there.
func (s *sink) writeTx(ctx context.Context, l *lane, changes []connectors.Change, id uint64, skip func(int64) bool) (skipped bool, err error) {
	return s.writeTxDropping(ctx, l, changes, id, skip, nil)
}

// writeTxDropping is writeTx that also deletes the named progress rows
// (stale lanes) in the same transaction.
func (s *sink) writeTxDropping(ctx context.Context, l *lane, changes []connectors.Change, id uint64, skip func(int64) bool, drop []string) (skipped bool, err error) {
	tx, err := l.conn.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	name := laneName(s.cfg.sink, l.i)
	if skip != nil {
		var cur int64
		err := tx.QueryRow(ctx, s.sql.readProgress, name).Scan(&cur)
		switch {
		case err == nil && skip(cur):
			return true, nil
		case err != nil && !errors.Is(err, pgx.ErrNoRows):
			return false, fmt.Errorf("read progress: %w", err)
		}
	}
	if err := s.apply(ctx, tx, l.conn, changes); err != nil {
		return false, fmt.Errorf("write %d changes: %w", len(changes), err)
	}
	if s.cfg.exactlyOnce {
		b := &pgx.Batch{}
		b.Queue(s.sql.progress, name, int64(id))
		if len(drop) > 0 {
			b.Queue(s.sql.dropProgress, drop)
		}
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return false, fmt.Errorf("write progress: %w", err)
		}
	}
	return false, tx.Commit(ctx)
}

// apply writes changes (collapsed) in tx: the deletes as bulk DELETEs by
// key, batch_rows keys per statement, then the upserts streamed by a
// binary COPY into a staging table and merged into the table by one
// statement (measured by BenchmarkMillion: the fastest way Postgres takes
// many rows, and the rows are encoded a few hundred at a time).
func (s *sink) apply(ctx context.Context, tx pgx.Tx, conn *pgx.Conn, changes []connectors.Change) error {
	ups, dels, err := splitChanges(s.cfg, changes)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	if err := queueChunks(b, s.cfg, s.sql.delete, s.cfg.key, dels); err != nil {
		return err
	}
	if len(ups) > 0 {
		b.Queue(s.sql.stage)
	}
	if b.Len() > 0 {
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return err
		}
	}
	if len(ups) == 0 {
		return nil
	}
	r := newCopyReader(s.cfg.schema, ups)
	if _, err := conn.PgConn().CopyFrom(ctx, r, s.sql.copy); err != nil {
		if r.err != nil {
			return r.err // a value of the wrong kind, not the COPY's cancellation
		}
		return err
	}
	upsert := s.sql.upsert
	if useMerge(conn) && s.sql.merge != "" {
		upsert = s.sql.merge
	}
	_, err = tx.Exec(ctx, upsert)
	return err
}

// Close closes the connections, first ending any call blocked retrying.
// Uncommitted changes are dropped: the engine replays them from its last
// checkpoint.
func (s *sink) Close() error {
	s.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.lanes {
		l.drop()
	}
	return nil
}

// Delivery describes the guarantee for EXPLAIN (never the DSN).
func (s *sink) Delivery() string {
	key := "no key: append-only inserts"
	if len(s.cfg.key) > 0 {
		key = "key " + strings.Join(s.cfg.keyNames(), ", ")
	}
	if s.cfg.exactlyOnce && len(s.lanes) > 1 {
		return fmt.Sprintf("exactly-once (per checkpoint one Postgres transaction with a progress row on each of %d connections, keys dealt by hash; %s)", len(s.lanes), key)
	}
	if s.cfg.exactlyOnce {
		return fmt.Sprintf("exactly-once (one Postgres transaction per checkpoint with progress row; %s)", key)
	}
	if len(s.cfg.key) == 0 {
		return fmt.Sprintf("at-least-once (bulk inserts every %d rows and at each checkpoint; %s, a replay after a crash inserts rows again)", s.cfg.batchRows, key)
	}
	return fmt.Sprintf("at-least-once (idempotent bulk upserts every %d rows and at each checkpoint; %s)", s.cfg.batchRows, key)
}
