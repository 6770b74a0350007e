// Package sqllogic runs sqllogictest files (.slt) against a streamsql
// engine. It is the one runner behind both `go test` (RunTest in the
// sqllogictest subpackage, which alone imports testing, so that the
// binary does not link it) and the `streamsql test` command (RunPaths); the format it accepts is documented
// in testdata/sqllogic/README.md and the contract in the project's
// sqllogic spec.
//
//	.slt text ──parse──▶ []record ──run──▶ DB (via Opener) ──▶ FileResult
//	                                  │
//	                      format by type letter, sort, hash
//	                                  │
//	                      compare with expected ──▶ Failure{Line, Diff}
//
// The runner knows the engine only through the small DB interface and an
// Opener, so the engine package never imports this one: the composition
// root (cmd/streamsql, or a test in the engine package) adapts the engine
// to DB. Each file gets a fresh temporary state directory; the `restart`
// and `crash` directives reopen the engine on the same directory with the
// same settings.
package sqllogic
