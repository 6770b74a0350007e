package types

import "strings"

// ParseBool reads a boolean as Postgres's boolin and its settings do:
// surrounding white space ignored, any case, and any non-empty prefix of
// true, false, yes or no, "on", "off" (or "of"), "1" or "0". It is the
// one boolean grammar: casts, parameters, COPY options, SET and WITH
// options all read booleans with it.
func ParseBool(s string) (value, ok bool) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "" {
		return false, false
	}
	switch s {
	case "on", "1":
		return true, true
	case "of", "off", "0":
		return false, true
	}
	for _, w := range [...]string{"true", "false", "yes", "no"} {
		if strings.HasPrefix(w, s) {
			return w == "true" || w == "yes", true
		}
	}
	return false, false
}
