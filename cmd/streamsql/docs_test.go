package main

import (
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestConnectorOptionsDocIsCurrent fails when a connector's option specs
// changed without regenerating docs/connectors/options.md (run
// `go run ./cmd/streamsql docs`).
func TestConnectorOptionsDocIsCurrent(t *testing.T) {
	want := connectorOptionsDoc(registry(io.Discard))
	got, err := os.ReadFile(filepath.Join("..", "..", optionsDocPath))
	if err != nil {
		t.Fatalf("%v (generate it with `go run ./cmd/streamsql docs`)", err)
	}
	if string(got) != want {
		t.Fatalf("%s is stale: run `go run ./cmd/streamsql docs`", optionsDocPath)
	}
}

// TestFunctionTableIsCurrent fails when the funcs registry changed
// without regenerating docs/sql.md's function table (run
// `go run ./cmd/streamsql docs`).
func TestFunctionTableIsCurrent(t *testing.T) {
	got, err := os.ReadFile(filepath.Join("..", "..", sqlDocPath))
	if err != nil {
		t.Fatal(err)
	}
	want, err := withFunctionTable(string(got))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Fatalf("the function table of %s is stale: run `go run ./cmd/streamsql docs`", sqlDocPath)
	}
}
