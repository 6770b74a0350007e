package datagen

import (
	"sort"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/connectors"
	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// maxPartitions bounds the partitions option.
const maxPartitions = 1 << 16

// optionSpecs are the WITH options of the datagen source, in the order the
// docs list them.
var optionSpecs = []connectors.OptionSpec{
	{Name: "table", Type: "string", Default: "", Example: "bid",
		Doc: "Which Nexmark table this source produces: person, auction or bid. Required."},
	{Name: "seed", Type: "int", Default: "42", Example: "7",
		Doc: "Seed of the event sequence; the same seed always gives the same rows."},
	{Name: "events", Type: "int", Default: "0", Example: "10000000",
		Doc: "Length of the whole event sequence, counting all three types (a bid source of 10000000 events yields 9200000 bids); 0 is unbounded."},
	{Name: "rate", Type: "int", Default: "10000", Example: "1000000",
		Doc: "Events per second of event time: date_time advances by 1 s / rate per event. It does not limit how fast rows are produced (see throttle)."},
	{Name: "throttle", Type: "int", Default: "0", Example: "50000",
		Doc: "Events of the whole sequence per second of wall time the source may advance; 0 produces as fast as possible."},
	{Name: "base_time", Type: "string", Default: "2024-01-01 00:00:00", Example: "2025-06-01 12:00:00",
		Doc: "Event time of event 0, as timestamp text (UTC)."},
	{Name: "out_of_orderness", Type: "duration", Default: "0", Example: "2 seconds",
		Doc: "Shifts each event's date_time back by a pseudo-random amount up to this interval; 0 keeps events in order."},
	{Name: "partitions", Type: "int", Default: "1", Example: "4",
		Doc: "Number of partitions; partition p produces the events n with n % partitions = p."},
}

// ignoredOptions are keys the engine may pass along with the connector's
// own options: the options every source takes, which the engine applies.
var ignoredOptions = func() map[string]bool {
	m := map[string]bool{}
	for _, o := range connectors.CommonSourceOptions {
		m[o.Name] = true
	}
	return m
}()

// settings are the parsed WITH options.
type settings struct {
	table      EventType
	cfg        Config
	events     int64 // 0: unbounded
	throttle   int64 // 0: unthrottled
	partitions int
}

// parseOptions validates opts against optionSpecs, filling in defaults.
func parseOptions(opts map[string]string) (settings, error) {
	vals := make(map[string]string, len(optionSpecs))
	for _, o := range optionSpecs {
		vals[o.Name] = o.Default
	}
	names := make([]string, 0, len(optionSpecs))
	for _, o := range optionSpecs {
		names = append(names, o.Name)
	}
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys) // report the first bad option deterministically
	for _, k := range keys {
		lk := strings.ToLower(strings.TrimSpace(k))
		if ignoredOptions[lk] {
			continue
		}
		if _, ok := vals[lk]; !ok {
			return settings{}, unknownOption(k, names)
		}
		vals[lk] = opts[k]
	}
	return settingsFrom(vals)
}

// settingsFrom converts validated option text into settings.
func settingsFrom(vals map[string]string) (settings, error) {
	var s settings
	var err error
	if strings.TrimSpace(vals["table"]) == "" {
		return s, sqlerr.New(sqlerr.InvalidParameter, `datagen: option "table" is required`).
			WithHint("table = 'person', 'auction' or 'bid'")
	}
	if s.table, err = ParseTable(vals["table"]); err != nil {
		return s, err
	}
	if s.cfg.Seed, err = intOption(vals, "seed", -1<<63); err != nil {
		return s, err
	}
	if s.events, err = intOption(vals, "events", 0); err != nil {
		return s, err
	}
	if s.cfg.Rate, err = intOption(vals, "rate", 1); err != nil {
		return s, err
	}
	if s.throttle, err = intOption(vals, "throttle", 0); err != nil {
		return s, err
	}
	p, err := intOption(vals, "partitions", 1)
	if err != nil {
		return s, err
	}
	if p > maxPartitions {
		return s, badOption("partitions", vals["partitions"], "at most 65536", nil)
	}
	s.partitions = int(p)
	if s.cfg.BaseTime, err = types.ParseTimestamp(vals["base_time"]); err != nil {
		return s, badOption("base_time", vals["base_time"], "a timestamp like '2024-01-01 00:00:00'", err)
	}
	s.cfg.OutOfOrderness, err = durationOption(vals["out_of_orderness"])
	return s, err
}

// intOption parses option name as a base-10 int64 (underscores allowed
// between digits) no smaller than lo.
func intOption(vals map[string]string, name string, lo int64) (int64, error) {
	text := vals[name]
	v, err := strconv.ParseInt(strings.ReplaceAll(strings.TrimSpace(text), "_", ""), 10, 64)
	if err != nil {
		return 0, badOption(name, text, "an integer", err)
	}
	if v < lo {
		return 0, badOption(name, text, "an integer ≥ "+strconv.FormatInt(lo, 10), nil)
	}
	return v, nil
}

// durationOption parses out_of_orderness: interval text, or a bare 0.
func durationOption(text string) (int64, error) {
	t := strings.TrimSpace(text)
	if t == "0" || t == "" {
		return 0, nil
	}
	v, err := types.ParseInterval(t)
	if err != nil {
		return 0, badOption("out_of_orderness", text, "an interval like '2 seconds'", err)
	}
	if v < 0 {
		return 0, badOption("out_of_orderness", text, "a non-negative interval", nil)
	}
	return v, nil
}

// badOption is the error for an option whose value does not parse.
func badOption(name, text, want string, cause error) error {
	return &sqlerr.Error{
		Code: sqlerr.InvalidParameter,
		Msg:  "datagen: option " + strconv.Quote(name) + " = " + strconv.Quote(text) + ": want " + want,
		Err:  cause,
	}
}

// unknownOption is the error for a key no option spec has.
func unknownOption(key string, names []string) error {
	e := sqlerr.New(sqlerr.InvalidParameter, "datagen: unknown option %q", key)
	if s := suggest(strings.ToLower(key), names); s != "" {
		return e.WithHint("did you mean " + s + "?")
	}
	return e.WithHint("options: " + strings.Join(names, ", "))
}

// suggest returns the candidate closest to word by edit distance when it
// is close enough to be a plausible typo, else "".
func suggest(word string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		if d := sqlerr.EditDistance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= max(1, len(best)/3) {
		return best
	}
	return ""
}
