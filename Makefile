# The one entry point for building and checking streamsql.
.PHONY: test lint bench nexmark fuzz build

build:
	go build ./...

# test is the README's test command and what .ci/run calls.
test:
	go vet ./...
	go test -count=1 ./...

lint:
	gofmt -l . | tee /dev/stderr | (! read)
	go vet ./...

# bench runs every Go benchmark, the Nexmark ones (engine/engine_bench_test.go)
# included; nexmark runs the benchmark protocol of docs/benchmarks.md.
bench:
	go test -run '^$$' -bench . -benchmem ./...

nexmark:
	go run ./cmd/streamsql bench --events 1000000 --repeats 3

fuzz:
	go test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./parser/
