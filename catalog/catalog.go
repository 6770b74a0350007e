// Package catalog holds the definitions of sources, tables, views,
// sinks and SQL functions: their names, schemas, options and the DDL that created them. It is
// a leaf: pure data with an encoding the engine persists, so a restart
// finds every object again (by re-planning the stored DDL in order).
package catalog

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/streamsql/streamsql/types"
)

// Kind is the kind of a catalog object.
type Kind uint8

// Object kinds.
const (
	Source Kind = iota + 1
	Table
	View
	Sink
	// PlainView is a view that is not materialized (CREATE VIEW): only
	// its DDL, which the planner inlines wherever it is read.
	PlainView
)

// String names the kind as SQL does.
func (k Kind) String() string {
	switch k {
	case Source:
		return "source"
	case Table:
		return "table"
	case View:
		return "materialized view"
	case Sink:
		return "sink"
	case PlainView:
		return "view"
	}
	return "object"
}

// Object is one catalog entry.
type Object struct {
	Kind    Kind
	Name    string
	SQL     string       // the DDL that created it
	Schema  types.Schema // output columns
	TimeCol int          // watermark column, or -1 (a view's: its output's)
	// Retracting marks a materialized view whose changelog deletes rows
	// (a view reading it must accept retractions); false for sources and
	// for append-only views.
	Retracting bool `json:",omitempty"`
	// BoundBy names, for a materialized view over TABLEs alone, the
	// TABLEs whose primary keys bound its rows, so that a view over it
	// needs no STATE TTL under strict either.
	BoundBy []string `json:",omitempty"`
	Delay   int64    // watermark delay, microseconds
	// Generated marks columns the engine fills instead of the input:
	// GenIngestion (INGESTION_TIME()), GenProcTime (PROCTIME()) or
	// GenComputed (AS (expression), the expression's text in Exprs).
	Generated []uint8
	Exprs     []string `json:",omitempty"`
	Key       []int    // primary key / view key column positions
	Options   map[string]string
	From      string // a sink's view
	// SideOf names the view that owns this side table ("" otherwise).
	SideOf string
	// DeadLetter marks a dead-letter table (poison records of sources
	// with on_error = 'dead_letter').
	DeadLetter bool `json:",omitempty"`
	// Seq orders objects by creation.
	Seq uint64
	// TimeZone is the TimeZone a view's (or a query sink's) expressions
	// were bound in when it was created ("" for UTC, and for catalogs
	// written before it existed): recovery binds them in it again.
	TimeZone string `json:",omitempty"`
	// Functions names the SQL functions a view's (or a query sink's)
	// query calls: they were inlined into it, and DROP FUNCTION refuses
	// while it exists.
	Functions []string `json:",omitempty"`
	// Reads names the views that are not materialized (PlainView) which
	// a view's or query sink's query reads, at any depth; for a
	// PlainView, every relation its query reads, at any depth. DROP
	// refuses while an object names what it drops here.
	Reads []string `json:",omitempty"`
}

// Function is a SQL function (CREATE FUNCTION): a scalar expression over
// its parameters that the binder inlines where it is called. Functions
// have their own namespace, as in Postgres.
type Function struct {
	Name string
	SQL  string // the DDL that created it
	// Params are the parameters in order; a Name is "" for an unnamed
	// one (the body reads the n-th as $n).
	Params  types.Schema
	Returns types.Column
	// Body is the expression, as SQL text the parser reads with
	// parser.ParseExpr.
	Body string
	// Uses names the SQL functions the body calls: DROP FUNCTION of one
	// of them is refused while this one exists.
	Uses []string `json:",omitempty"`
	Seq  uint64
}

// Generated column kinds.
const (
	GenNone      uint8 = iota
	GenIngestion       // the moment the row was accepted (INSERT, or the connector's record time)
	GenProcTime        // the wall clock when the row is processed
	GenComputed        // an expression over the row's input columns
)

// OnError is a source's on_error option in lower case ("fail" when it is
// not set); the engine validates it when the source is created.
func (o *Object) OnError() string {
	if p := strings.ToLower(o.Options["on_error"]); p != "" {
		return p
	}
	return "fail"
}

// DeadLetterTable names the table that receives a source's poison records
// under on_error = 'dead_letter': its dead_letter option, or
// <source>_dead_letter.
func (o *Object) DeadLetterTable() string {
	if n := o.Options["dead_letter"]; n != "" {
		return n
	}
	return o.Name + "_dead_letter"
}

// InputColumns returns the positions of the columns read from the input
// (the ones not generated), in schema order.
func (o *Object) InputColumns() []int {
	var out []int
	for i := range o.Schema {
		if i >= len(o.Generated) || o.Generated[i] == GenNone {
			out = append(out, i)
		}
	}
	return out
}

// Clock names the clock of column col: "event time", "ingestion time" or
// "processing time".
func (o *Object) Clock(col int) string {
	if col >= 0 && col < len(o.Generated) {
		switch o.Generated[col] {
		case GenIngestion:
			return "ingestion time"
		case GenProcTime:
			return "processing time"
		}
	}
	return "event time"
}

// Catalog is the set of objects by lower-cased name.
type Catalog struct {
	objs  map[string]*Object
	funcs map[string]*Function
	seq   uint64
}

// New returns an empty catalog.
func New() *Catalog { return &Catalog{objs: map[string]*Object{}, funcs: map[string]*Function{}} }

// Function returns the SQL function named name (case-insensitive).
func (c *Catalog) Function(name string) (*Function, bool) {
	f, ok := c.funcs[strings.ToLower(name)]
	return f, ok
}

// PutFunction adds f, or replaces the function of its name. It moves the
// sequence number, so cached plans that may have inlined the old body
// are seen to be out of date.
func (c *Catalog) PutFunction(f *Function) {
	c.seq++
	f.Seq = c.seq
	c.funcs[strings.ToLower(f.Name)] = f
}

// RemoveFunction deletes the function named name.
func (c *Catalog) RemoveFunction(name string) {
	c.seq++
	delete(c.funcs, strings.ToLower(name))
}

// Functions returns the SQL functions in creation order.
func (c *Catalog) Functions() []*Function {
	out := make([]*Function, 0, len(c.funcs))
	for _, f := range c.funcs {
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// Get returns the object named name (case-insensitive).
func (c *Catalog) Get(name string) (*Object, bool) {
	o, ok := c.objs[strings.ToLower(name)]
	return o, ok
}

// Add inserts o; it fails when the name is taken.
func (c *Catalog) Add(o *Object) error {
	k := strings.ToLower(o.Name)
	if old, ok := c.objs[k]; ok {
		return fmt.Errorf("%s %q already exists", old.Kind, o.Name)
	}
	c.seq++
	o.Seq = c.seq
	c.objs[k] = o
	return nil
}

// Seq returns the sequence number of the last object added: it changes
// whenever an object is added, so a cached answer that depends on which
// objects exist can tell it is out of date.
func (c *Catalog) Seq() uint64 { return c.seq }

// Remove deletes the object named name.
func (c *Catalog) Remove(name string) { delete(c.objs, strings.ToLower(name)) }

// List returns the objects of kind k (all kinds when k is 0) in creation
// order.
func (c *Catalog) List(k Kind) []*Object {
	var out []*Object
	for _, o := range c.objs {
		if k == 0 || o.Kind == k {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Seq < out[j].Seq })
	return out
}

// Dependents returns the objects that read the object named name.
func (c *Catalog) Dependents(name string, reads func(o *Object) []string) []*Object {
	var out []*Object
	for _, o := range c.List(0) {
		for _, r := range reads(o) {
			if strings.EqualFold(r, name) {
				out = append(out, o)
				break
			}
		}
	}
	return out
}

type encoded struct {
	Seq   uint64
	Objs  []*Object
	Funcs []*Function `json:",omitempty"`
}

// Encode serialises the catalog.
func (c *Catalog) Encode() ([]byte, error) {
	return json.Marshal(encoded{Seq: c.seq, Objs: c.List(0), Funcs: c.Functions()})
}

// Decode replaces the catalog's contents with an encoding from Encode.
func (c *Catalog) Decode(b []byte) error {
	var e encoded
	if err := json.Unmarshal(b, &e); err != nil {
		return fmt.Errorf("decode catalog: %w", err)
	}
	c.objs = map[string]*Object{}
	for _, o := range e.Objs {
		c.objs[strings.ToLower(o.Name)] = o
	}
	c.funcs = map[string]*Function{}
	for _, f := range e.Funcs {
		c.funcs[strings.ToLower(f.Name)] = f
	}
	c.seq = e.Seq
	return nil
}
