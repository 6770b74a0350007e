package types

import "strings"

// The JSONB operators' fast path: a JSONB value's canonical text is valid
// JSON in one known layout (`{"k": v, "k2": v2}`, `[a, b]`), so a field
// or element is found by skipping values over the text, without parsing
// the document; the part found is itself canonical text.

// skipJSONValue returns the end of the value that starts at s[i].
func skipJSONValue(s string, i int) int {
	switch s[i] {
	case '"':
		return skipJSONString(s, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '"':
				j = skipJSONString(s, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(s)
	}
	j := i
	for j < len(s) && s[j] != ',' && s[j] != '}' && s[j] != ']' {
		j++
	}
	return j
}

// skipJSONString returns the end of the string whose quote is at s[i].
func skipJSONString(s string, i int) int {
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(s)
}

// JSONBField returns the canonical text of the value of key in the JSONB
// object v (ok false when v is not an object or lacks the key).
func JSONBField(v Value, key string) (string, bool) {
	s := v.S
	if len(s) < 2 || s[0] != '{' {
		return "", false
	}
	for i := 1; i < len(s) && s[i] == '"'; {
		kEnd := skipJSONString(s, i)
		vStart := kEnd + 2 // ": "
		if vStart >= len(s) {
			return "", false
		}
		vEnd := skipJSONValue(s, vStart)
		if jsonKeyIs(s[i:kEnd], key) {
			return s[vStart:vEnd], true
		}
		if vEnd >= len(s) || s[vEnd] != ',' {
			return "", false
		}
		i = vEnd + 2 // ", "
	}
	return "", false
}

// jsonKeyIs reports whether the quoted key q decodes to key.
func jsonKeyIs(q, key string) bool {
	raw := q[1 : len(q)-1]
	if strings.IndexByte(raw, '\\') < 0 {
		return raw == key
	}
	k, err := (&jsonParser{s: q}).str()
	return err == nil && k == key
}

// JSONBIndex returns the canonical text of element i of the JSONB array
// v (negative counts from the end); ok is false when v is not an array
// or i is out of range.
func JSONBIndex(v Value, i int64) (string, bool) {
	s := v.S
	if len(s) < 2 || s[0] != '[' || s == "[]" {
		return "", false
	}
	var spans [][2]int
	for p := 1; p < len(s); {
		end := skipJSONValue(s, p)
		if i >= 0 && int64(len(spans)) == i {
			return s[p:end], true
		}
		spans = append(spans, [2]int{p, end})
		if end >= len(s) || s[end] != ',' {
			break
		}
		p = end + 2
	}
	if i < 0 && -i <= int64(len(spans)) {
		sp := spans[int64(len(spans))+i]
		return s[sp[0]:sp[1]], true
	}
	return "", false
}

// JSONBText is the text ->> gives for the canonical text of a value: a
// string unquoted, JSON null none (ok false), anything else as it is.
func JSONBText(text string) (string, bool) {
	switch {
	case text == "null":
		return "", false
	case len(text) >= 2 && text[0] == '"':
		raw := text[1 : len(text)-1]
		if strings.IndexByte(raw, '\\') < 0 {
			return raw, true
		}
		s, err := (&jsonParser{s: text}).str()
		return s, err == nil
	}
	return text, true
}
