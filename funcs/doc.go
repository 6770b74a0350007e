// Package funcs is the registry of built-in scalar functions and
// operators: each one is a single Func entry with its name, its overloads
// (argument and result kinds), its strictness, its volatility, a one-line
// description and, for the functions evaluated value by value, its
// implementation.
//
// Three readers share it:
//
//	planner (binder)   Lookup → Sigs, Strict, MixedNumeric, Volatile
//	exec (compiler)    Lookup → Impl / Prepare, or the operator compilers
//	pgwire/pgcatalog   Names  → pg_proc rows; docs.go → docs/sql.md's table
//
// Operators and the NULL-aware functions (AND, OR, IS, IN, LIKE,
// COALESCE, CASE-like ones, arithmetic) carry no Impl: exec compiles them
// into typed closures for speed. Every other function is evaluated by
// exec through Impl, or the Impl that Prepare returns for the call's
// constant arguments (a regular expression compiled once), so adding a
// function is one entry here and one test.
//
// funcs is a leaf: it imports only types and sqlerr.
package funcs
