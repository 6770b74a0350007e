package difftest

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/streamsql/streamsql/internal/pgtest"
)

var (
	flagLong  = flag.Bool("long", false, "run thousands of cases (make difftest) instead of the make test budget")
	flagSeed  = flag.Uint64("seed", 0, "run only this seed (replay a reported failure)")
	flagCase  = flag.Int("case", -1, "with -seed: run only this case of the seed")
	flagSeeds = flag.Int("seeds", 0, "how many seeds to run (default: 10, or 300 with -long)")
	flagFirst = flag.Uint64("first-seed", 1, "the first of the seeds to run")
)

// srv is the package's Postgres server; db is the database the cases use
// (one schema per seed).
var (
	srv *pgtest.Server
	db  string
)

func TestMain(m *testing.M) {
	flag.Parse()
	s, stop, err := pgtest.StartMain()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv = s
	// The engine's text is Postgres's under LC_CTYPE C.UTF-8 (upper, lower
	// and initcap know non-ASCII letters) and LC_COLLATE C (byte order),
	// which is what its pg_catalog reports; the oracle's database is the same.
	db, err = s.CreateDBWith("difftest", "TEMPLATE template0 LC_COLLATE 'C' LC_CTYPE 'C.utf8'")
	if err != nil {
		stop()
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	stop()
	os.Exit(code)
}
