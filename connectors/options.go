package connectors

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// CommonSourceOptions are accepted by every source; the engine applies
// them (the connector may ignore them).
var CommonSourceOptions = []OptionSpec{
	{Name: "connector", Type: "string", Doc: "The connector's name.", Example: "'kafka'"},
	{Name: "on_error", Type: "string", Default: "fail", Doc: "What a record that does not decode does: `fail` stops the pipeline, `skip` counts and drops it, `dead_letter` writes it to the `dead_letter` table and goes on.", Example: "'dead_letter'"},
	{Name: "dead_letter", Type: "string", Doc: "The table that receives poison records under `on_error = 'dead_letter'` (default `<source>_dead_letter`): columns source, partition, offset, raw, error, time.", Example: "'bids_dlq'"},
	{Name: "idle_timeout", Type: "duration", Doc: "A partition that has produced nothing for this long stops holding the source's watermark back.", Example: "'30s'"},
}

// CommonSinkOptions are accepted by every sink.
var CommonSinkOptions = []OptionSpec{
	{Name: "connector", Type: "string", Doc: "The connector's name.", Example: "'postgres'"},
	{Name: "snapshot", Type: "bool", Default: "true", Doc: "A sink created FROM a view or TABLE that already holds rows first gets them, as upserts, then the changes that follow (as in RisingWave); `false` sends only the changes from its creation on.", Example: "false"},
}

// ValidateOptions checks opts against the connector's specs plus the
// common ones: every option must be known ("unknown option 'topc'; did you
// mean 'topic'?"), typed values must parse, and options without a default
// whose spec says Required must be present.
func ValidateOptions(connector string, specs, common []OptionSpec, opts map[string]string) error {
	known := map[string]OptionSpec{}
	for _, s := range common {
		known[s.Name] = s
	}
	for _, s := range specs {
		known[s.Name] = s
	}
	names := make([]string, 0, len(opts))
	for k := range opts {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		s, ok := known[k]
		if !ok {
			msg := fmt.Sprintf("unknown option '%s' for connector %s", k, connector)
			if m := closest(k, known); m != "" {
				msg += fmt.Sprintf("; did you mean '%s'?", m)
			}
			return fmt.Errorf("%s", msg)
		}
		if err := checkType(s, opts[k]); err != nil {
			return err
		}
	}
	for _, s := range specs {
		if _, ok := opts[s.Name]; s.Required && !ok {
			return fmt.Errorf("connector %s needs option '%s' (%s)", connector, s.Name, s.Doc)
		}
	}
	return nil
}

// errNotBool is checkType's error for a bool option that is not one.
var errNotBool = errors.New("not a boolean")

func checkType(s OptionSpec, v string) error {
	var err error
	switch s.Type {
	case "int":
		_, err = strconv.ParseInt(v, 10, 64)
	case "bool":
		if _, ok := types.ParseBool(v); !ok {
			err = errNotBool
		}
	case "duration":
		_, err = ParseDuration(v)
	}
	if err != nil {
		return fmt.Errorf("option '%s' must be a%s %s, got '%s'", s.Name, article(s.Type), s.Type, v)
	}
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if strings.EqualFold(e, v) {
				return nil
			}
		}
		return fmt.Errorf("option '%s' must be one of %s, got '%s'", s.Name, strings.Join(s.Enum, ", "), v)
	}
	return nil
}

func article(t string) string {
	if t == "int" {
		return "n"
	}
	return ""
}

// ParseDuration reads a Go duration ("500ms", "10s"), a bare number of
// milliseconds, or SQL interval text ("5 seconds", "1 minute").
func ParseDuration(v string) (time.Duration, error) {
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		return time.Duration(n) * time.Millisecond, nil
	}
	if d, err := time.ParseDuration(v); err == nil {
		return d, nil
	}
	us, err := types.ParseInterval(v)
	if err != nil {
		return 0, err
	}
	return time.Duration(us) * time.Microsecond, nil
}

// closest returns the known option nearest to k by edit distance, if it
// is near enough to be a typo.
func closest(k string, known map[string]OptionSpec) string {
	best, bestD := "", len(k)/2+2
	for name := range known {
		if d := sqlerr.EditDistance(k, name); d < bestD || (d == bestD && name < best) {
			best, bestD = name, d
		}
	}
	return best
}

// Opts reads validated options, falling back to the spec's defaults.
type Opts struct {
	Values map[string]string
	Specs  []OptionSpec
}

// String returns the option's value or its default.
func (o Opts) String(name string) string {
	if v, ok := o.Values[name]; ok {
		return v
	}
	for _, s := range o.Specs {
		if s.Name == name {
			return s.Default
		}
	}
	return ""
}

// Int returns an int option (0 when empty).
func (o Opts) Int(name string) int64 {
	n, _ := strconv.ParseInt(o.String(name), 10, 64)
	return n
}

// Bool returns a bool option (false when empty).
func (o Opts) Bool(name string) bool {
	b, _ := types.ParseBool(o.String(name))
	return b
}

// Duration returns a duration option (0 when empty).
func (o Opts) Duration(name string) time.Duration {
	d, _ := ParseDuration(o.String(name))
	return d
}
