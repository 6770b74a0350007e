# The one entry point for building and checking streamsql.
.PHONY: test lint bench nexmark viewcost peers fuzz build difftest chromium

STATICCHECK = honnef.co/go/tools/cmd/staticcheck@v0.8.2

build:
	go build ./...

# test is the README's test command and what .ci/run calls: formatting,
# vet, staticcheck, then every test under the race detector (slt suite at
# parallelism 1 and 4, the spilling run, the kill -9 recovery test, the
# operator harness, goldens, the differential test against Postgres over
# 10 seeds). Parallel operator instances run on
# goroutines, so -race is part of the suite; -timeout 30m leaves the
# slowest package (pgwire) room on a busy 2-core machine. The dashboard's
# browser test drives headless Chromium: chromium installs it when missing.
test: lint chromium
	go test -race -count=1 -timeout 30m ./...

# chromium installs Debian's chromium package when it is not there (the
# dashboard's browser test in cmd/streamsql fails without it).
chromium:
	@command -v chromium >/dev/null || { \
		SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
		$$SUDO apt-get update && $$SUDO apt-get install -y chromium; }

lint:
	@test -z "$$(gofmt -l .)" || (echo "gofmt would change:"; gofmt -l .; exit 1)
	@go mod tidy -diff || (echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1)
	go vet ./...
	go run $(STATICCHECK) ./...

# difftest runs the differential test against Postgres at length:
# 300 seeds, about 10,000 generated cases (docs/design/testing.md); make
# test runs 10 of them. DIFFTEST_FLAGS passes more, e.g. -first-seed 1000.
difftest:
	go test -race -count=1 -timeout 60m -run TestDifferential ./difftest/ -long $(DIFFTEST_FLAGS)

bench:
	go test -run '^$$' -bench . -benchmem ./...

# nexmark runs the benchmark protocol's queries (docs/benchmarks.md).
nexmark:
	go run ./cmd/streamsql bench --events 10000000 --repeats 3

# viewcost compares a stored view + sink with the same query as a sink
# only, over 1 M JSON bids (issue 13; docs/benchmarks.md).
viewcost:
	bench/viewcost/run.sh 1000000 3

# peers runs issue 13's file workload in streamsql (view + sink, sink
# only) and DuckDB side by side, 1 M bids, 3 rounds, and checks the
# outputs are identical (docs/benchmarks.md). bench/peers/duckdb is its
# own cgo module; the streamsql module and binary stay free of cgo.
peers:
	bench/peers/run.sh 1000000 3

fuzz:
	go test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./parser/
	go test -run '^$$' -fuzz FuzzBackend -fuzztime 60s ./pgwire/
	go test -run '^$$' -fuzz FuzzAnswer -fuzztime 60s ./pgwire/pgcatalog/
	go test -run '^$$' -fuzz FuzzDecodeChanges -fuzztime 30s ./connectors/
	go test -run '^$$' -fuzz FuzzJSONScan -fuzztime 30s ./connectors/format/
	go test -run '^$$' -fuzz FuzzDecodeValue -fuzztime 30s ./exec/state/
	go test -run '^$$' -fuzz FuzzCopyParser -fuzztime 30s ./pgwire/
