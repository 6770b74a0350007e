package funcs

import (
	"math"
	"strconv"
	"strings"

	"github.com/streamsql/streamsql/sqlerr"
	"github.com/streamsql/streamsql/types"
)

// numFormat is a parsed number template of TO_CHAR: digit positions 9
// and 0, the decimal point (. or D), group separators (, or G), the sign
// patterns S, MI, PL, SG and PR, and FM. Other characters are text.
type numFormat struct {
	items     []numItem
	pre, post int  // digit positions before and after the point
	zeroStart int  // the first integer position a 0 pads from (pre: none)
	lastZero  int  // the last fraction position written 0 (-1: none)
	fm        bool // fill mode: no padding, trailing 9s' zeros trimmed
	sign      bool // the template places the sign itself (S, MI, SG, PR)
	anchorS   bool // S before every digit: the sign goes before the number
	pr        bool // PR: a negative number is in angle brackets
}

// numItem is one template element: kind is '9', '0', '.', ',', 'S' (S),
// 'M' (MI), 'P' (PL), 'G' (SG), 'R' (PR) or 0 for text.
type numItem struct {
	kind byte
	text string
}

// numPatterns are the multi-letter number patterns and their kinds.
var numPatterns = []struct {
	name string
	kind byte
}{{"MI", 'M'}, {"PL", 'P'}, {"SG", 'G'}, {"PR", 'R'}, {"FM", 'F'}}

func parseNumFormat(f string) numFormat {
	nf := numFormat{lastZero: -1, zeroStart: -1}
	point := false
	for i := 0; i < len(f); i++ {
		if k, n := numPattern(f[i:]); n > 0 {
			i += n - 1
			if k == 'F' {
				nf.fm = true
				continue
			}
			nf.sign = nf.sign || k != 'P'
			nf.pr = nf.pr || k == 'R'
			nf.items = append(nf.items, numItem{kind: k})
			continue
		}
		c := f[i]
		switch {
		case c == '"' || c == '\\':
			var text []tmplNode
			i = appendText(&text, f, i) - 1
			nf.items = append(nf.items, numItem{text: text[0].text})
		case c == '9' || c == '0':
			nf.addDigit(c, point)
		case c == '.' || c == 'D' || c == 'd':
			point = true
			nf.items = append(nf.items, numItem{kind: '.'})
		case c == ',' || c == 'G' || c == 'g':
			nf.items = append(nf.items, numItem{kind: ','})
		case c == 'S' || c == 's':
			nf.sign = true
			if nf.pre == 0 && !point {
				nf.anchorS = true
				continue
			}
			nf.items = append(nf.items, numItem{kind: 'S'})
		default:
			nf.items = append(nf.items, numItem{text: f[i : i+1]})
		}
	}
	if nf.zeroStart < 0 {
		nf.zeroStart = nf.pre
	}
	return nf
}

func numPattern(s string) (byte, int) {
	for _, p := range numPatterns {
		if len(s) >= 2 && strings.EqualFold(s[:2], p.name) {
			return p.kind, 2
		}
	}
	return 0, 0
}

func (nf *numFormat) addDigit(c byte, point bool) {
	nf.items = append(nf.items, numItem{kind: c})
	switch {
	case point && c == '0':
		nf.lastZero = nf.post
		nf.post++
	case point:
		nf.post++
	default:
		if c == '0' && nf.zeroStart < 0 {
			nf.zeroStart = nf.pre
		}
		nf.pre++
	}
}

// numberToChar is TO_CHAR(number, template).
func numberToChar(v types.Value, f string) (types.Value, *sqlerr.Error) {
	nf := parseNumFormat(f)
	digits, neg, ok := numberDigits(v, nf.post)
	if !ok {
		return types.NullValue, sqlerr.New(sqlerr.InvalidParameter, "cannot format %s with to_char", v.String())
	}
	intPart, frac, _ := strings.Cut(digits, ".")
	post := nf.post
	if nf.fm {
		post = max(len(strings.TrimRight(frac, "0")), nf.lastZero+1)
	}
	frac = frac[:post]
	if intPart == "0" && post > 0 {
		intPart = ""
	}
	w := numWriter{nf: nf, neg: neg, intPart: intPart, frac: frac, post: post,
		overflow: len(intPart) > nf.pre || nf.pre == 0}
	return okv(types.StringValue(w.write()))
}

// numberDigits renders |v| rounded to post decimals ("12.50"), as
// Postgres rounds each type (numeric half away from zero, float8 as
// printf does).
func numberDigits(v types.Value, post int) (string, bool, bool) {
	switch v.K {
	case types.Int:
		s := strconv.FormatInt(v.I, 10)
		neg := v.I < 0
		s = strings.TrimPrefix(s, "-")
		if post > 0 {
			s += "." + strings.Repeat("0", post)
		}
		return s, neg, true
	case types.Float:
		if math.IsNaN(v.F) || math.IsInf(v.F, 0) {
			return "", false, false
		}
		s := strconv.FormatFloat(math.Abs(v.F), 'f', post, 64)
		return s, math.Signbit(v.F), true // "-0" as printf gives it
	case types.Decimal:
		r, err := types.DecimalRound(v, post)
		if err != nil {
			return "", false, false
		}
		neg := types.DecimalCmp(r, types.DecimalFromInt(0)) < 0
		s := strings.TrimPrefix(types.FormatDecimal(types.DecimalAbs(r)), "-")
		if post > 0 && !strings.Contains(s, ".") {
			s += "." + strings.Repeat("0", post)
		}
		return s, neg, true
	}
	return "", false, false
}

// numWriter writes one number through a template.
type numWriter struct {
	nf              numFormat
	neg, overflow   bool
	intPart, frac   string
	post            int
	b               strings.Builder
	pos, fracPos    int  // the next integer and fraction positions
	started, signed bool // a digit was written; the leading sign was
	pointed         bool // the decimal point was reached
}

func (w *numWriter) write() string {
	for _, it := range w.nf.items {
		w.item(it)
	}
	return w.b.String()
}

func (w *numWriter) item(it numItem) {
	switch it.kind {
	case '9', '0':
		if w.pointed {
			w.fraction()
			return
		}
		w.integer()
	case '.':
		w.point()
	case ',':
		switch {
		case w.started:
			w.b.WriteByte(',')
		case !w.nf.fm:
			w.b.WriteByte(' ')
		}
	case 'S', 'G':
		w.b.WriteString(w.signChar('+', '-'))
	case 'M':
		w.b.WriteString(w.signChar(' ', '-'))
	case 'P':
		w.b.WriteString(w.signChar('+', ' '))
	case 'R':
		w.b.WriteString(w.signChar(' ', '>'))
	default:
		w.b.WriteString(it.text)
	}
}

// signChar is the sign pattern's text: pos for a non-negative number, neg
// otherwise; fill mode drops a blank.
func (w *numWriter) signChar(pos, neg byte) string {
	c := pos
	if w.neg {
		c = neg
	}
	if c == ' ' && w.nf.fm {
		return ""
	}
	return string(c)
}

// leadSign writes the sign in front of the number's first character
// unless the template places it elsewhere: '-' or a blank, '+' or '-' for
// an S before the digits, '<' or a blank for PR.
func (w *numWriter) leadSign() {
	if w.signed {
		return
	}
	w.signed = true
	switch {
	case w.nf.pr:
		w.b.WriteString(w.signChar(' ', '<'))
	case w.nf.anchorS:
		w.b.WriteString(w.signChar('+', '-'))
	case !w.nf.sign:
		w.b.WriteString(w.signChar(' ', '-'))
	}
}

func (w *numWriter) integer() {
	lead := w.nf.pre - len(w.intPart)
	k := w.pos
	w.pos++
	switch {
	case w.overflow:
		w.leadSign()
		w.b.WriteByte('#')
	case k < lead && k < w.nf.zeroStart:
		if !w.nf.fm {
			w.b.WriteByte(' ')
		}
	case k < lead:
		w.leadSign()
		w.b.WriteByte('0')
		w.started = true
	default:
		w.leadSign()
		w.b.WriteByte(w.intPart[k-lead])
		w.started = true
	}
}

func (w *numWriter) point() {
	w.pointed = true
	if w.nf.post == 0 {
		return
	}
	w.leadSign()
	w.b.WriteByte('.')
}

func (w *numWriter) fraction() {
	j := w.fracPos
	w.fracPos++
	switch {
	case w.overflow:
		w.b.WriteByte('#')
	case j < w.post:
		w.b.WriteByte(w.frac[j])
	}
}
