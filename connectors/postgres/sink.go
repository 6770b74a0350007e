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
	cfg       *config
	connCfg   *pgx.ConnConfig
	log       *slog.Logger
	red       redactor
	sql       statements
	tableName string // for messages: as given, or as resolved once checked

	// closing is cancelled by Close so that a call blocked retrying
	// against an unreachable Postgres returns.
	closing context.Context
	close   context.CancelFunc

	mu    sync.Mutex
	conn  *pgx.Conn
	ready bool // the table (and progress table) were checked/created

	buf        []connectors.Change // written since the last flush or PreCommit
	collapsed  bool                // buf holds one change per key
	collapseAt int                 // collapse buf when it grows past this
	staged     connectors.Staged   // exactly-once: pre-committed, not yet committed
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
		sql: buildStatements(cfg), tableName: displayName(cfg.table), collapseAt: 4096,
	}
	s.closing, s.close = context.WithCancel(context.Background())
	ctx, cancel := context.WithTimeout(context.Background(), startupTimeout)
	defer cancel()
	if err := s.connect(ctx); err != nil {
		connLost := s.conn == nil || s.conn.IsClosed()
		s.dropConn()
		if !transient(err, connLost) {
			s.close()
			return nil, s.red.error(s.wrap("open", err))
		}
		logger.Warn("postgres sink: Postgres unreachable at startup; the table is checked on first use",
			"sink", spec.Name, "table", s.tableName, "error", s.red.string(err.Error()))
	}
	if cfg.exactlyOnce {
		return exactlyOnceSink{s}, nil
	}
	return s, nil
}

// wrap names the sink, the table and the operation in an error.
func (s *sink) wrap(what string, err error) error {
	return fmt.Errorf("postgres sink %s (table %s): %s: %w", s.cfg.sink, s.tableName, what, err)
}

// connect opens the connection if there is none and, the first time,
// checks or creates the table.
func (s *sink) connect(ctx context.Context) error {
	if s.conn == nil || s.conn.IsClosed() {
		conn, err := pgx.ConnectConfig(ctx, s.connCfg)
		if err != nil {
			return err
		}
		registerArrays(conn.TypeMap())
		s.conn = conn
	}
	if !s.ready {
		if err := s.setup(ctx); err != nil {
			return err
		}
		s.ready = true
	}
	return nil
}

func (s *sink) dropConn() {
	if s.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = s.conn.Close(ctx)
		cancel()
		s.conn = nil
	}
}

// setup creates the table when asked, checks it fits the view, and
// creates the progress table in exactly-once mode.
func (s *sink) setup(ctx context.Context) error {
	if s.cfg.create {
		if err := s.execDDL(ctx, createTableSQL(s.cfg)); err != nil {
			return fmt.Errorf("create table: %w", err)
		}
	}
	ti, err := loadTable(ctx, s.conn, s.cfg.table)
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
		if err := s.execDDL(ctx, s.sql.createProgress); err != nil {
			return fmt.Errorf("create progress table: %w", err)
		}
	}
	return nil
}

// execDDL runs a CREATE ... IF NOT EXISTS, once more if a concurrent
// creator won the race (unique violation on the catalog).
func (s *sink) execDDL(ctx context.Context, sql string) error {
	_, err := s.conn.Exec(ctx, sql)
	var pg *pgconn.PgError
	if errors.As(err, &pg) && (pg.Code == "23505" || pg.Code == "42P07") {
		_, err = s.conn.Exec(ctx, sql)
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
	s.buf = append(s.buf, changes...)
	s.collapsed = false
	if !s.cfg.exactlyOnce && len(s.buf) >= s.cfg.batchRows {
		return s.flush(ctx)
	}
	if len(s.buf) >= s.collapseAt {
		s.collapse()
		s.collapseAt = max(2*len(s.buf), 4096)
	}
	return nil
}

// collapse keeps the last change per key in buf (a statement may not
// touch a key twice; it also bounds the buffer by the number of keys).
func (s *sink) collapse() {
	if !s.collapsed {
		s.buf = connectors.Collapse(s.buf, s.cfg.key)
		s.collapsed = true
	}
}

// take returns the collapsed buffer and empties it.
func (s *sink) take() []connectors.Change {
	s.collapse()
	changes := s.buf
	s.buf, s.collapsed, s.collapseAt = nil, false, 4096
	return changes
}

// flush writes the buffer in one transaction (at-least-once mode).
func (s *sink) flush(ctx context.Context) error {
	s.collapse()
	changes := s.buf
	err := s.retry(ctx, "flush", func(ctx context.Context, conn *pgx.Conn, _ int) error {
		_, err := s.writeTx(ctx, conn, changes, 0, nil)
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
		if len(s.buf) == 0 {
			return nil, nil
		}
		return nil, s.flush(ctx)
	}
	return s.staged.Stage(id, s.take()), nil
}

// Commit writes the changes staged up to checkpoint id and the progress
// row in one transaction (exactly-once); at-least-once does nothing.
func (s *sink) Commit(ctx context.Context, id uint64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.cfg.exactlyOnce {
		return nil
	}
	changes, n := s.staged.UpTo(id, s.cfg.key)
	err := s.retry(ctx, fmt.Sprintf("commit checkpoint %d", id), func(ctx context.Context, conn *pgx.Conn, attempt int) error {
		// A retry after a lost connection may follow a COMMIT that went
		// through: the progress row then already says id.
		var skip func(int64) bool
		if attempt > 1 {
			skip = func(cur int64) bool { return cur == int64(id) }
		}
		_, err := s.writeTx(ctx, conn, changes, id, skip)
		return err
	})
	if err != nil {
		return err
	}
	s.staged.Drop(n)
	return nil
}

// Recover commits checkpoint id's staged changes unless the progress row
// already shows id or a later checkpoint.
func (s exactlyOnceSink) Recover(ctx context.Context, id uint64, staged []byte) error {
	changes, err := connectors.DecodeChanges(staged)
	if err != nil {
		return s.wrap(fmt.Sprintf("recover checkpoint %d", id), err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retry(ctx, fmt.Sprintf("recover checkpoint %d", id), func(ctx context.Context, conn *pgx.Conn, _ int) error {
		skipped, err := s.writeTx(ctx, conn, changes, id, func(cur int64) bool { return cur >= int64(id) })
		if err == nil && skipped {
			s.log.Info("postgres sink: checkpoint already committed", "sink", s.cfg.sink, "checkpoint", id)
		}
		return err
	})
}

// writeTx applies changes (collapsed) in one transaction, with the
// progress row (sink → id) in exactly-once mode. When skip is set, it
// first reads and locks the progress row and does nothing if skip says
// the checkpoint is already there.
func (s *sink) writeTx(ctx context.Context, conn *pgx.Conn, changes []connectors.Change, id uint64, skip func(int64) bool) (skipped bool, err error) {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	if skip != nil {
		var cur int64
		err := tx.QueryRow(ctx, s.sql.readProgress, s.cfg.sink).Scan(&cur)
		switch {
		case err == nil && skip(cur):
			return true, nil
		case err != nil && !errors.Is(err, pgx.ErrNoRows):
			return false, fmt.Errorf("read progress: %w", err)
		}
	}
	b := &pgx.Batch{}
	if err := queueChanges(b, s.cfg, &s.sql, changes, useMerge(conn)); err != nil {
		return false, err
	}
	if s.cfg.exactlyOnce {
		b.Queue(s.sql.progress, s.cfg.sink, int64(id))
	}
	if b.Len() > 0 {
		if err := tx.SendBatch(ctx, b).Close(); err != nil {
			return false, fmt.Errorf("write %d changes: %w", len(changes), err)
		}
	}
	return false, tx.Commit(ctx)
}

// Close closes the connection, first ending any call blocked retrying.
// Uncommitted changes are dropped: the engine replays them from its last
// checkpoint.
func (s *sink) Close() error {
	s.close()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dropConn()
	return nil
}

// Delivery describes the guarantee for EXPLAIN (never the DSN).
func (s *sink) Delivery() string {
	key := "no key: append-only inserts"
	if len(s.cfg.key) > 0 {
		key = "key " + strings.Join(s.cfg.keyNames(), ", ")
	}
	if s.cfg.exactlyOnce {
		return fmt.Sprintf("exactly-once (one Postgres transaction per checkpoint with progress row; %s)", key)
	}
	if len(s.cfg.key) == 0 {
		return fmt.Sprintf("at-least-once (bulk inserts every %d rows and at each checkpoint; %s, a replay after a crash inserts rows again)", s.cfg.batchRows, key)
	}
	return fmt.Sprintf("at-least-once (idempotent bulk upserts every %d rows and at each checkpoint; %s)", s.cfg.batchRows, key)
}
