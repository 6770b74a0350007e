package datagen

import (
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// The canonical column lists, in the order the Generator writes them (the
// RisingWave names of the Nexmark columns).
var (
	personSchema = types.Schema{
		{Name: "id", Type: types.Int},
		{Name: "name", Type: types.String},
		{Name: "email_address", Type: types.String},
		{Name: "credit_card", Type: types.String},
		{Name: "city", Type: types.String},
		{Name: "state", Type: types.String},
		{Name: "date_time", Type: types.Timestamp},
		{Name: "extra", Type: types.String},
	}
	auctionSchema = types.Schema{
		{Name: "id", Type: types.Int},
		{Name: "item_name", Type: types.String},
		{Name: "description", Type: types.String},
		{Name: "initial_bid", Type: types.Int},
		{Name: "reserve", Type: types.Int},
		{Name: "date_time", Type: types.Timestamp},
		{Name: "expires", Type: types.Timestamp},
		{Name: "seller", Type: types.Int},
		{Name: "category", Type: types.Int},
		{Name: "extra", Type: types.String},
	}
	bidSchema = types.Schema{
		{Name: "auction", Type: types.Int},
		{Name: "bidder", Type: types.Int},
		{Name: "price", Type: types.Int},
		{Name: "channel", Type: types.String},
		{Name: "url", Type: types.String},
		{Name: "date_time", Type: types.Timestamp},
		{Name: "extra", Type: types.String},
	}
)

// tableNames lists the tables in EventType order, for errors and hints.
var tableNames = []string{"person", "auction", "bid"}

// ParseTable returns the event type of a table name (person, auction or
// bid; case-insensitive).
func ParseTable(name string) (EventType, error) {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "person":
		return PersonEvent, nil
	case "auction":
		return AuctionEvent, nil
	case "bid":
		return BidEvent, nil
	}
	e := sqlerr.New(sqlerr.InvalidParameter, "datagen: unknown table %q: want person, auction or bid", name)
	if s := suggest(strings.ToLower(name), tableNames); s != "" {
		e = e.WithHint("did you mean " + s + "?")
	}
	return 0, e
}

// Schema returns the columns a table generates, in the order the Generator
// writes them:
//
//	person(id, name, email_address, credit_card, city, state, date_time, extra)
//	auction(id, item_name, description, initial_bid, reserve, date_time,
//	        expires, seller, category, extra)
//	bid(auction, bidder, price, channel, url, date_time, extra)
//
// Ids, prices, categories, initial_bid and reserve are Int; date_time and
// expires are Timestamp; the rest are String. The result is a fresh copy.
func Schema(table string) (types.Schema, error) {
	t, err := ParseTable(table)
	if err != nil {
		return nil, err
	}
	return t.Schema(), nil
}

// Schema returns a copy of the columns of the event type's table.
func (t EventType) Schema() types.Schema {
	var s types.Schema
	switch t {
	case PersonEvent:
		s = personSchema
	case AuctionEvent:
		s = auctionSchema
	case BidEvent:
		s = bidSchema
	}
	return append(types.Schema(nil), s...)
}

// projection maps the declared columns of a source onto the generated ones:
// cols[i] is the canonical position of declared column i. An empty
// declared schema means the canonical one.
func projection(t EventType, declared types.Schema) ([]int, error) {
	canon := t.Schema()
	if len(declared) == 0 {
		declared = canon
	}
	cols := make([]int, len(declared))
	seen := make(map[int]bool, len(declared))
	for i, c := range declared {
		j := canon.Index(c.Name)
		if j < 0 {
			e := sqlerr.New(sqlerr.UndefinedColumn, "datagen: table %s generates no column %q", t, c.Name)
			hint := "generated columns: " + strings.Join(canon.Names(), ", ")
			if s := suggest(strings.ToLower(c.Name), canon.Names()); s != "" {
				hint = "did you mean " + s + "? " + hint
			}
			return nil, e.WithHint(hint)
		}
		if c.Type != canon[j].Type {
			return nil, sqlerr.New(sqlerr.DatatypeMismatch, "datagen: column %s.%s is %s, declared as %s",
				t, canon[j].Name, canon[j].Type, c.Type)
		}
		if seen[j] {
			return nil, sqlerr.New(sqlerr.DuplicateObject, "datagen: column %q declared twice", c.Name)
		}
		seen[j] = true
		cols[i] = j
	}
	return cols, nil
}

// isIdentity reports whether cols is 0, 1, …, width-1.
func isIdentity(cols []int, width int) bool {
	if len(cols) != width {
		return false
	}
	for i, c := range cols {
		if c != i {
			return false
		}
	}
	return true
}
