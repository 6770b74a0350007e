// Package planner turns parsed statements into plans.
//
//	parser.QueryStmt ──build──▶ logical plan ──rules──▶ optimized plan ──▶ Materialize root
//	                                                  (trace of rules fired)   + contract
//
// Plans are immutable trees of pure data (no runtime state, no exec or
// Badger imports), except that ShareIdenticalSubplans, run last, may let
// several parents hold the same keyed node: exec runs it once and feeds
// each parent (a DAG; the seed of one dataflow graph per catalog). Rules are named functions applied with Transform; each
// documents why it keeps streaming semantics. PlanView attaches the view's
// lateness contract to its stateful nodes and refuses, under strict,
// state that nothing bounds and windows without a LATE DATA policy.
package planner
