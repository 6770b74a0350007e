package engine

import (
	"fmt"

	"github.com/streamsql/streamsql/catalog"
	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/sqlerr"
)

// validateSourceOptions checks a source's WITH options against its
// connector's option specs and the options every source takes.
func (e *Engine) validateSourceOptions(o *catalog.Object) error {
	if _, err := onErrorPolicy(o); err != nil {
		return err
	}
	conn := o.Options["connector"]
	f, ok := e.opts.Registry.Sources[conn]
	if !ok || len(f.Options) == 0 {
		return nil // unknown connectors are reported by the caller; a connector without specs checks its own
	}
	if err := connectors.ValidateOptions(conn, f.Options, connectors.CommonSourceOptions, o.Options); err != nil {
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
	o.Typed = e.opts.Registry.Sources[o.Options["connector"]].Typed
}
