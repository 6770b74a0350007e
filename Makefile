# The one entry point for building and checking streamsql.
.PHONY: test lint bench fuzz build

build:
	go build ./...

# test is the README's test command and what .ci/run calls.
test:
	go vet ./...
	go test -count=1 ./...

lint:
	gofmt -l . | tee /dev/stderr | (! read)
	go vet ./...

bench:
	go test -run '^$$' -bench . -benchmem ./...

fuzz:
	go test -run '^$$' -fuzz FuzzParse -fuzztime 60s ./parser/
