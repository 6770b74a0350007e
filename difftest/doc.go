// Package difftest holds the differential test: for seeded random inputs
// and queries drawn from a small grammar, it runs each query as a
// streamsql materialized view over memory sources (in-process engine,
// INSERT and FLUSH, closing rows that advance every watermark) and as a
// batch query in a real Postgres (internal/pgtest), and requires the same
// rows. Everything is in _test.go files: the package has no code of its
// own, and nothing imports it. docs/design/testing.md describes the
// grammar, the translation to Postgres and how to replay a failure.
package difftest
