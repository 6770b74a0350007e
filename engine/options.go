package engine

import (
	"fmt"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/sqlerr"
)

// MemoryOptions are the WITH options of the engine's memory source.
var MemoryOptions = []connectors.OptionSpec{
	{Name: "partitions", Type: "int", Default: "1", Doc: "Number of partitions; `INSERT INTO s PARTITION (pN)` writes to one.", Example: "4"},
}

// validateSourceOptions checks a source's WITH options against its
// connector's option specs and the options every source takes.
func (e *Engine) validateSourceOptions(o *catalog.Object) error {
	if _, err := onErrorPolicy(o); err != nil {
		return err
	}
	conn := o.Options["connector"]
	specs := MemoryOptions
	if conn != "memory" {
		f, ok := e.opts.Registry.Sources[conn]
		if !ok || len(f.Options) == 0 {
			return nil // unknown connectors are reported by the caller; a connector without specs checks its own
		}
		specs = f.Options
	}
	if err := connectors.ValidateOptions(conn, specs, connectors.CommonSourceOptions, o.Options); err != nil {
		return &sqlerr.Error{Code: sqlerr.InvalidParameter, Msg: fmt.Sprintf("source %s: %v", o.Name, err)}
	}
	return nil
}

// markTyped sets o.Typed from its connector: a source or TABLE whose
// connector delivers typed rows cannot have decode errors.
func (e *Engine) markTyped(o *catalog.Object) {
	if o.Kind != catalog.Source && o.Kind != catalog.Table {
		return
	}
	conn := o.Options["connector"]
	o.Typed = conn == "memory" || e.opts.Registry.Sources[conn].Typed
}
