package exec

// Tee delivers the output of one operator to several consumers: a plan
// node the planner shared (planner.ShareIdenticalSubplans) runs once and
// feeds every parent that uses it. Each batch and each watermark goes to
// every subscriber in the order they subscribed, before Process or
// Watermark returns, so each consumer sees the stream its own copy of the
// node would have produced. Batches are shared, not copied: operators
// never modify a batch or a row they received (rows are immutable once
// emitted). Tee keeps no state; the shared operator keeps one copy of its
// own and checkpoints it once.
type Tee struct {
	outs []Output
}

// Subscribe adds a consumer.
func (t *Tee) Subscribe(out Output) { t.outs = append(t.outs, out) }

// Process implements Operator.
func (t *Tee) Process(_ int, b *Batch) error {
	for _, o := range t.outs {
		if err := o.Emit(b); err != nil {
			return err
		}
	}
	return nil
}

// Watermark implements Operator.
func (t *Tee) Watermark(_ int, wm int64) error {
	for _, o := range t.outs {
		if err := o.EmitWatermark(wm); err != nil {
			return err
		}
	}
	return nil
}

// Tick implements Operator: the shared operator gets its own tick from
// the pipeline's Stateful list, and consumers get theirs the same way.
func (t *Tee) Tick(int64) error { return nil }
