package funcs

import (
	"strconv"
	"strings"
	"time"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// Formatting functions with Postgres's template patterns. TO_CHAR(ts,
// fmt) prints a timestamp, TO_CHAR(number, fmt) a number (number.go), and
// TO_TIMESTAMP(text, fmt) reads a timestamp. Patterns not listed in
// dateFields are copied as text, as Postgres copies unknown characters.
var formatFuncs = []*Func{
	{Name: "to_char", Doc: "a timestamp or number formatted by a template (`YYYY-MM-DD HH24:MI:SS`, `FM999.99`)", Strict: true,
		Sigs: sigs(sig(types.Timestamp, types.String, types.String), sig(types.Int, types.String, types.String),
			sig(types.Decimal, types.String, types.String), sig(types.Float, types.String, types.String)),
		Prepare: prepareToChar},
}

// prepareToChar parses a constant template once per call site rather
// than once per row; a template from a column is parsed per row.
func prepareToChar(consts []*types.Value) (Impl, *sqlerr.Error) {
	if len(consts) < 2 || consts[1] == nil {
		return Impl{F2: toChar}, nil
	}
	f := consts[1].S
	tmpl := parseTemplate(f)
	return Impl{F2: func(v, _ types.Value) (types.Value, *sqlerr.Error) {
		if v.K == types.Timestamp {
			return okv(types.StringValue(formatTimestamp(v.I, tmpl)))
		}
		return numberToChar(v, f)
	}}, nil
}

// toChar dispatches TO_CHAR on its first argument's kind.
func toChar(v, f types.Value) (types.Value, *sqlerr.Error) {
	if v.K == types.Timestamp {
		return okv(types.StringValue(formatTimestamp(v.I, parseTemplate(f.S))))
	}
	return numberToChar(v, f.S)
}

// dateField is one template pattern of timestamps.
type dateField struct {
	name string
	// fold: the pattern matches in any letter case (its output has none).
	fold bool
}

// dateFields are the timestamp patterns, longest first where one is a
// prefix of another, as Postgres matches them.
var dateFields = []dateField{
	{"HH24", true}, {"HH12", true}, {"HH", true}, {"MI", true}, {"MS", true},
	{"SSSSS", true}, {"SSSS", true}, {"SS", true}, {"US", true},
	{"Y,YYY", true}, {"YYYY", true}, {"YYY", true}, {"YY", true},
	{"IYYY", true}, {"IYY", true}, {"IY", true}, {"IDDD", true}, {"ID", true}, {"IW", true},
	{"MONTH", false}, {"Month", false}, {"month", false}, {"MON", false}, {"Mon", false}, {"mon", false},
	{"MM", true}, {"DAY", false}, {"Day", false}, {"day", false}, {"DY", false}, {"Dy", false}, {"dy", false},
	{"DDD", true}, {"DD", true}, {"D", true}, {"WW", true}, {"W", true}, {"CC", true}, {"J", true}, {"Q", true},
	{"RM", false}, {"rm", false},
	{"A.M.", false}, {"a.m.", false}, {"P.M.", false}, {"p.m.", false}, {"AM", false}, {"am", false}, {"PM", false}, {"pm", false},
	{"A.D.", false}, {"a.d.", false}, {"B.C.", false}, {"b.c.", false}, {"AD", false}, {"ad", false}, {"BC", false}, {"bc", false},
	{"TZH", true}, {"TZM", true}, {"TZ", false}, {"tz", false}, {"OF", true},
	{"Y", true}, {"I", true},
}

// tmplNode is a piece of a parsed template: a field (with its FM and TH
// modifiers) or literal text.
type tmplNode struct {
	field string
	fm    bool
	th    string // "", "TH" or "th"
	text  string
}

// parseTemplate splits a template into fields and text: "…" is text, a
// backslash escapes the next character, FM before a field and TH/th
// after it modify it.
func parseTemplate(f string) []tmplNode {
	var out []tmplNode
	for i := 0; i < len(f); {
		fm := false
		if strings.HasPrefix(strings.ToUpper(f[i:]), "FM") {
			fm, i = true, i+2
		}
		if name, n := matchField(f[i:]); n > 0 {
			node := tmplNode{field: name, fm: fm}
			i += n
			if strings.HasPrefix(f[i:], "TH") || strings.HasPrefix(f[i:], "th") {
				node.th, i = f[i:i+2], i+2
			}
			out = append(out, node)
			continue
		}
		if fm {
			continue // FM before text or a numeric-only pattern: ignored
		}
		i = appendText(&out, f, i)
	}
	return out
}

// appendText appends the literal text at f[i] and returns where it ends.
func appendText(out *[]tmplNode, f string, i int) int {
	switch {
	case f[i] == '"':
		j := i + 1
		var b strings.Builder
		for ; j < len(f) && f[j] != '"'; j++ {
			if f[j] == '\\' && j+1 < len(f) {
				j++
			}
			b.WriteByte(f[j])
		}
		*out = append(*out, tmplNode{text: b.String()})
		return min(j+1, len(f))
	case f[i] == '\\' && i+1 < len(f):
		*out = append(*out, tmplNode{text: f[i+1 : i+2]})
		return i + 2
	}
	*out = append(*out, tmplNode{text: f[i : i+1]})
	return i + 1
}

// matchField returns the pattern at the start of s and its length.
func matchField(s string) (string, int) {
	for _, d := range dateFields {
		n := len(d.name)
		if len(s) < n {
			continue
		}
		if s[:n] == d.name || (d.fold && strings.EqualFold(s[:n], d.name)) {
			return d.name, n
		}
	}
	return "", 0
}

// formatTimestamp prints us (UTC microseconds) by a parsed template.
func formatTimestamp(us int64, tmpl []tmplNode) string {
	t := utc(us)
	var b strings.Builder
	for _, n := range tmpl {
		if n.field == "" {
			b.WriteString(n.text)
			continue
		}
		s, num := dateFieldText(t, us, n.field)
		if n.fm {
			s = trimPad(s, num)
		}
		b.WriteString(s)
		if n.th != "" && num {
			b.WriteString(ordinal(s, n.th == "th"))
		}
	}
	return b.String()
}

// trimPad removes FM's padding: leading zeros of numbers, trailing blanks
// of names.
func trimPad(s string, num bool) string {
	if !num {
		return strings.TrimRight(s, " ")
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimLeft(strings.TrimPrefix(s, "-"), "0")
	if s == "" {
		s = "0"
	}
	if neg {
		s = "-" + s
	}
	return s
}

// ordinal is the English ordinal suffix of the number s ends with.
func ordinal(s string, lower bool) string {
	suf := "TH"
	if n := len(s); n > 0 && (n < 2 || s[n-2] != '1') {
		switch s[n-1] {
		case '1':
			suf = "ST"
		case '2':
			suf = "ND"
		case '3':
			suf = "RD"
		}
	}
	if lower {
		return strings.ToLower(suf)
	}
	return suf
}

var romanMonths = []string{"I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"}

// pad zero-pads n to width digits.
func pad(n int64, width int) string {
	s := strconv.FormatInt(abs64(n), 10)
	for len(s) < width {
		s = "0" + s
	}
	if n < 0 {
		return "-" + s
	}
	return s
}

func abs64(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

// dateFieldText is one field of t; num reports whether it is a number.
func dateFieldText(t time.Time, us int64, field string) (string, bool) {
	if s, ok := clockField(t, us, field); ok {
		return s, true
	}
	if s, ok := calendarField(t, field); ok {
		return s, true
	}
	return nameField(t, field), false
}

// clockField is a time-of-day field.
func clockField(t time.Time, us int64, field string) (string, bool) {
	switch field {
	case "HH24":
		return pad(int64(t.Hour()), 2), true
	case "HH12", "HH":
		h := t.Hour() % 12
		if h == 0 {
			h = 12
		}
		return pad(int64(h), 2), true
	case "MI":
		return pad(int64(t.Minute()), 2), true
	case "SS":
		return pad(int64(t.Second()), 2), true
	case "MS":
		return pad(FloorMod(us, types.Second)/types.Millisecond, 3), true
	case "US":
		return pad(FloorMod(us, types.Second), 6), true
	case "SSSS", "SSSSS":
		return strconv.FormatInt(FloorMod(us, types.Day)/types.Second, 10), true
	}
	return "", false
}

// calendarField is a numeric date field.
func calendarField(t time.Time, field string) (string, bool) {
	y := int64(t.Year())
	iy, iw := t.ISOWeek()
	switch field {
	case "YYYY":
		return pad(y, 4), true
	case "Y,YYY":
		return strconv.FormatInt(y/1000, 10) + "," + pad(y%1000, 3), true
	case "YYY", "IYY":
		return pad(pick(field == "IYY", int64(iy), y)%1000, 3), true
	case "YY", "IY":
		return pad(pick(field == "IY", int64(iy), y)%100, 2), true
	case "Y", "I":
		return strconv.FormatInt(pick(field == "I", int64(iy), y)%10, 10), true
	case "IYYY":
		return pad(int64(iy), 4), true
	case "IW":
		return pad(int64(iw), 2), true
	case "IDDD":
		return pad(int64((iw-1)*7+isoDow(t)), 3), true
	case "ID":
		return strconv.Itoa(isoDow(t)), true
	case "MM":
		return pad(int64(t.Month()), 2), true
	case "DDD":
		return pad(int64(t.YearDay()), 3), true
	case "DD":
		return pad(int64(t.Day()), 2), true
	case "D":
		return strconv.Itoa(int(t.Weekday()) + 1), true
	case "WW":
		return pad(int64((t.YearDay()-1)/7+1), 2), true
	case "W":
		return strconv.Itoa((t.Day()-1)/7 + 1), true
	case "CC":
		return pad((y+99)/100, 2), true
	case "J":
		return strconv.FormatInt(FloorDiv(t.Unix(), 86400)+2440588, 10), true
	case "Q":
		return strconv.Itoa((int(t.Month()) + 2) / 3), true
	}
	return "", false
}

func pick(cond bool, a, b int64) int64 {
	if cond {
		return a
	}
	return b
}

func isoDow(t time.Time) int {
	if d := int(t.Weekday()); d != 0 {
		return d
	}
	return 7
}

// nameField is a field printed as a word (names padded to 9 characters
// as Postgres pads them; FM trims).
func nameField(t time.Time, field string) string {
	month, day := t.Month().String(), t.Weekday().String()
	switch field {
	case "MONTH", "Month", "month":
		return caseLike(field, padRight(month, 9))
	case "MON", "Mon", "mon":
		return caseLike(field, month[:3])
	case "DAY", "Day", "day":
		return caseLike(field, padRight(day, 9))
	case "DY", "Dy", "dy":
		return caseLike(field, day[:3])
	case "RM", "rm":
		return caseLike(field, padRight(romanMonths[t.Month()-1], 4))
	case "AM", "PM", "am", "pm", "A.M.", "P.M.", "a.m.", "p.m.":
		return meridiem(t.Hour() >= 12, field)
	case "AD", "BC", "ad", "bc", "A.D.", "B.C.", "a.d.", "b.c.":
		return eraText(t.Year() <= 0, field)
	}
	return "" // TZ, tz, TZH, TZM, OF: a timestamp without time zone has none
}

func padRight(s string, n int) string {
	for len(s) < n {
		s += " "
	}
	return s
}

// caseLike gives s the letter case of the pattern: all upper, all lower
// or capitalised.
func caseLike(pattern, s string) string {
	switch {
	case pattern == strings.ToUpper(pattern):
		return strings.ToUpper(s)
	case pattern == strings.ToLower(pattern):
		return strings.ToLower(s)
	}
	return s
}

func meridiem(pm bool, field string) string {
	if pm {
		return markerText("PM", field)
	}
	return markerText("AM", field)
}

func eraText(bc bool, field string) string {
	if bc {
		return markerText("BC", field)
	}
	return markerText("AD", field)
}

// markerText writes a two-letter marker (AM, BC) as template field asks:
// dotted (A.M.) when the field is, in the field's letter case.
func markerText(s, field string) string {
	if strings.Contains(field, ".") {
		s = s[:1] + "." + s[1:] + "."
	}
	return caseLike(field, s)
}
