package datagen

import (
	"strings"
	"testing"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

func TestParseOptions(t *testing.T) {
	s, err := parseOptions(map[string]string{
		"connector": "datagen", "TABLE": "Auction", "seed": "-3", "events": "10_000_000",
		"rate": "1000", "throttle": "5000", "base_time": "2025-06-01 12:00:00",
		"out_of_orderness": "2 seconds", "partitions": "4",
	})
	if err != nil {
		t.Fatal(err)
	}
	base, _ := types.ParseTimestamp("2025-06-01 12:00:00")
	want := settings{
		table:      AuctionEvent,
		cfg:        Config{Seed: -3, Rate: 1000, BaseTime: base, OutOfOrderness: 2 * types.Second},
		events:     10_000_000,
		throttle:   5000,
		partitions: 4,
	}
	if s != want {
		t.Errorf("parsed %+v, want %+v", s, want)
	}
	d, err := parseOptions(map[string]string{"table": "bid"})
	if err != nil {
		t.Fatal(err)
	}
	if d.cfg != DefaultConfig() || d.events != 0 || d.throttle != 0 || d.partitions != 1 {
		t.Errorf("defaults %+v, want DefaultConfig, unbounded, unthrottled, 1 partition", d)
	}
}

func TestOptionErrors(t *testing.T) {
	for _, c := range []struct {
		opts map[string]string
		want string // substring of the error text
	}{
		{map[string]string{}, `option "table" is required`},
		{map[string]string{"table": "bids"}, `unknown table "bids"`},
		{map[string]string{"table": "bids"}, "did you mean bid?"},
		{map[string]string{"table": "bid", "evnts": "10"}, `unknown option "evnts" (hint: did you mean events?)`},
		{map[string]string{"table": "bid", "partition": "2"}, "did you mean partitions?"},
		{map[string]string{"table": "bid", "outoforderness": "1 second"}, "did you mean out_of_orderness?"},
		{map[string]string{"table": "bid", "zzz": "1"}, "options: table, seed, events"},
		{map[string]string{"table": "bid", "events": "ten"}, `option "events" = "ten": want an integer`},
		{map[string]string{"table": "bid", "events": "-1"}, `want an integer ≥ 0`},
		{map[string]string{"table": "bid", "rate": "0"}, `option "rate" = "0": want an integer ≥ 1`},
		{map[string]string{"table": "bid", "partitions": "0"}, `option "partitions"`},
		{map[string]string{"table": "bid", "partitions": "100000"}, "at most 65536"},
		{map[string]string{"table": "bid", "seed": "1.5"}, `option "seed"`},
		{map[string]string{"table": "bid", "base_time": "yesterday"}, `option "base_time" = "yesterday"`},
		{map[string]string{"table": "bid", "out_of_orderness": "2 fortnights"}, `option "out_of_orderness"`},
		{map[string]string{"table": "bid", "out_of_orderness": "-2 seconds"}, "non-negative"},
	} {
		_, err := parseOptions(c.opts)
		if err == nil {
			t.Errorf("%v: no error, want %q", c.opts, c.want)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %q, want it to contain %q", c.opts, err, c.want)
		}
		if code := sqlerr.Code(err); code != sqlerr.InvalidParameter {
			t.Errorf("%v: code %s, want %s", c.opts, code, sqlerr.InvalidParameter)
		}
	}
}

func TestSchema(t *testing.T) {
	for table, want := range map[string]string{
		"person":  "id:BIGINT name:VARCHAR email_address:VARCHAR credit_card:VARCHAR city:VARCHAR state:VARCHAR date_time:TIMESTAMP extra:VARCHAR",
		"auction": "id:BIGINT item_name:VARCHAR description:VARCHAR initial_bid:BIGINT reserve:BIGINT date_time:TIMESTAMP expires:TIMESTAMP seller:BIGINT category:BIGINT extra:VARCHAR",
		"bid":     "auction:BIGINT bidder:BIGINT price:BIGINT channel:VARCHAR url:VARCHAR date_time:TIMESTAMP extra:VARCHAR",
	} {
		s, err := Schema(table)
		if err != nil {
			t.Fatal(err)
		}
		var cols []string
		for _, c := range s {
			cols = append(cols, c.Name+":"+c.Type.String())
		}
		if got := strings.Join(cols, " "); got != want {
			t.Errorf("Schema(%s) = %s, want %s", table, got, want)
		}
		s[0].Name = "mutated"
		if again, _ := Schema(table); again[0].Name == "mutated" {
			t.Errorf("Schema(%s) shares its backing array", table)
		}
	}
	if _, err := Schema("bids"); err == nil {
		t.Error(`Schema("bids") succeeded`)
	}
}

func TestSuggest(t *testing.T) {
	names := []string{"table", "seed", "events", "rate", "throttle", "base_time", "out_of_orderness", "partitions"}
	for word, want := range map[string]string{"tabel": "table", "sed": "seed", "basetime": "base_time", "rates": "rate", "colour": ""} {
		if got := suggest(word, names); got != want {
			t.Errorf("suggest(%q) = %q, want %q", word, got, want)
		}
	}
}
