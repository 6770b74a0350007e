package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/streamsql/streamsql/engine"
	"github.com/streamsql/streamsql/pgwire"
)

// serveFlags are the options of `streamsql serve`.
type serveFlags struct {
	listen, user, password, usersFile, tlsCert, tlsKey string
	insecure                                           bool
	interval                                           time.Duration
	stepRows                                           int
	memLimit                                           string
	web                                                httpFlags
}

func serveCmd(stateDir *string) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the Postgres wire protocol (psql, pgx, JDBC, node-postgres) and keep pipelines running",
		Long: `serve opens the state directory, keeps every pipeline running in the
background (checkpointing every --checkpoint-interval) and accepts Postgres
clients on --listen. Without --password or --users every user connects
without a password, which is allowed on a loopback address only (or with
--insecure). With them, clients authenticate with SCRAM-SHA-256. SIGINT or
SIGTERM checkpoints and stops.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := serve(cmd.Context(), *stateDir, f); err != nil {
				printErr(err)
				return exitError{1}
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.listen, "listen", "127.0.0.1:4566", "address to accept clients on")
	fl.StringVar(&f.user, "user", "streamsql", "the user name --password is for")
	fl.StringVar(&f.password, "password", "", "require this password (SCRAM-SHA-256) for --user")
	fl.StringVar(&f.usersFile, "users", "", "file of user:password lines (SCRAM-SHA-256)")
	fl.StringVar(&f.tlsCert, "tls-cert", "", "TLS certificate (PEM); with --tls-key, clients may use TLS")
	fl.StringVar(&f.tlsKey, "tls-key", "", "TLS private key (PEM)")
	fl.BoolVar(&f.insecure, "insecure", false, "allow a non-loopback --listen without passwords")
	fl.DurationVar(&f.interval, "checkpoint-interval", 10*time.Second, "time between checkpoints")
	fl.StringVar(&f.memLimit, "memory-limit", "", memoryLimitUsage)
	fl.IntVar(&f.stepRows, "step-rows", 1024, "rows read per source per pipeline step (smaller: shorter query waits)")
	fl.StringVar(&f.web.addr, "http", "127.0.0.1:9187", "serve Prometheus metrics at http://ADDR/metrics and the dashboard at http://ADDR/ (\"\": off); a non-loopback address needs --password/--users (HTTP basic authentication) or --insecure, as --listen does")
	fl.BoolVar(&f.web.pprof, "pprof", false, "also serve Go's profiles at http://ADDR/debug/pprof/ on --http (go tool pprof http://ADDR/debug/pprof/heap)")
	return cmd
}

func serve(ctx context.Context, stateDir string, f serveFlags) error {
	cfg := pgwire.Config{Logger: logger}
	users, err := loadUsers(f)
	if err != nil {
		return err
	}
	cfg.Users = users
	if f.tlsCert != "" || f.tlsKey != "" {
		cert, err := tls.LoadX509KeyPair(f.tlsCert, f.tlsKey)
		if err != nil {
			return fmt.Errorf("load TLS key pair: %w", err)
		}
		cfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	if len(users) == 0 && !f.insecure && !loopback(f.listen) {
		return fmt.Errorf("--listen %s is not a loopback address: set --password or --users (or --insecure to accept anyone)", f.listen)
	}
	f.web.insecure = f.insecure
	if err := f.web.check(users); err != nil {
		return err
	}
	e, err := engine.OpenContext(ctx, engine.Options{StateDir: stateDir, Registry: registry(os.Stdout), SkipSameDDL: true,
		Settings: memorySettings(f.memLimit), SetMemoryLimit: setMemoryLimit, Logger: logger})
	if err != nil {
		return err
	}
	printRecovered(e)
	stopHTTP, err := f.web.start(e, users)
	if err != nil {
		_ = e.Close()
		return err
	}
	defer stopHTTP()
	cfg.Engine = e
	ln, err := net.Listen("tcp", f.listen)
	if err != nil {
		_ = e.Close()
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := pgwire.New(cfg)
	logger.Info("streamsql serving", "listen", ln.Addr().String(), "state_dir", stateDir, "connect", "psql -h "+hostOf(ln.Addr().String())+" -p "+portOf(ln.Addr().String()))
	runErr := make(chan error, 1)
	go func() { runErr <- drivePipelines(ctx, e, f) }()
	serveErr := make(chan error, 1)
	go func() { serveErr <- srv.Serve(ln) }()
	var first error
	select {
	case <-ctx.Done():
	case err := <-serveErr:
		first = err
	}
	stop()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = srv.Close(sctx)
	if err := <-runErr; err != nil && first == nil {
		first = err
	}
	if err := e.Close(); err != nil && first == nil {
		first = err
	}
	if errors.Is(first, pgwire.ErrServerClosed) {
		first = nil
	}
	return first
}

// drivePipelines keeps the pipelines running until ctx ends. A pipeline
// error (a sink that keeps failing, say) stops the pipelines but not the
// server: it is logged, and clients can still query and inspect until
// the server is stopped; a restart resumes from the last checkpoint.
func drivePipelines(ctx context.Context, e *engine.Engine, f serveFlags) error {
	err := e.Run(ctx, engine.RunOptions{CheckpointInterval: f.interval, StepRows: f.stepRows})
	if err != nil && ctx.Err() == nil {
		logger.Error("pipelines stopped; the server keeps answering queries, restart it to resume from the last checkpoint", "error", err)
	}
	return nil
}

// loadUsers reads --users (user:password lines, # comments) and adds
// --password for --user.
func loadUsers(f serveFlags) (map[string]string, error) {
	users := map[string]string{}
	if f.usersFile != "" {
		fh, err := os.Open(f.usersFile)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		sc := bufio.NewScanner(fh)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			u, p, ok := strings.Cut(line, ":")
			if !ok || u == "" || p == "" {
				return nil, fmt.Errorf("%s:%d: want user:password", f.usersFile, n)
			}
			users[u] = p
		}
		if err := sc.Err(); err != nil {
			return nil, err
		}
	}
	if f.password != "" {
		users[f.user] = f.password
	}
	return users, nil
}

func loopback(addr string) bool {
	h := hostOf(addr)
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func hostOf(addr string) string {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	return h
}

func portOf(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}
