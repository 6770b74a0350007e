package types

import (
	"encoding/binary"
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// Postgres's binary numeric (numeric_send / numeric_recv): int16 count of
// base-10000 digits, int16 weight of the first digit, uint16 sign
// (0x0000 positive, 0x4000 negative, 0xC000 NaN, 0xD000/0xF000 ±Infinity),
// uint16 display scale, then the digits, most significant first, with no
// leading or trailing zero digits. The digit groups are aligned on the
// decimal point: digit i is worth 10000^(weight - i).
const (
	numericPos = 0x0000
	numericNeg = 0x4000
)

// AppendNumericBinary appends a Decimal in Postgres's binary numeric
// format (without a length prefix).
func AppendNumericBinary(dst []byte, v Value) []byte {
	d := v.coefDigits()
	s := int(v.Scale)
	if len(d) <= s { // 0.0012: pad the integer part to one zero digit
		d = strings.Repeat("0", s-len(d)+1) + d
	}
	ip, fp := d[:len(d)-s], d[len(d)-s:]
	ip = strings.Repeat("0", (4-len(ip)%4)%4) + ip
	fp += strings.Repeat("0", (4-len(fp)%4)%4)
	all := ip + fp
	groups := make([]uint16, 0, len(all)/4)
	for i := 0; i < len(all); i += 4 {
		n, _ := strconv.Atoi(all[i : i+4])
		groups = append(groups, uint16(n))
	}
	weight := len(ip)/4 - 1
	for len(groups) > 0 && groups[0] == 0 {
		groups, weight = groups[1:], weight-1
	}
	for len(groups) > 0 && groups[len(groups)-1] == 0 {
		groups = groups[:len(groups)-1]
	}
	sign := uint16(numericPos)
	if v.decimalSign() < 0 {
		sign = numericNeg
	}
	if len(groups) == 0 {
		weight = 0
	}
	dst = binary.BigEndian.AppendUint16(dst, uint16(len(groups)))
	dst = binary.BigEndian.AppendUint16(dst, uint16(int16(weight)))
	dst = binary.BigEndian.AppendUint16(dst, sign)
	dst = binary.BigEndian.AppendUint16(dst, uint16(s))
	for _, g := range groups {
		dst = binary.BigEndian.AppendUint16(dst, g)
	}
	return dst
}

// ParseNumericBinary reads a binary numeric into a Decimal of its display
// scale. NaN and infinities are refused: DECIMAL holds finite numbers.
func ParseNumericBinary(b []byte) (Value, error) {
	if len(b) < 8 {
		return NullValue, fmt.Errorf("invalid binary numeric of %d bytes", len(b))
	}
	n := int(binary.BigEndian.Uint16(b))
	weight := int(int16(binary.BigEndian.Uint16(b[2:])))
	sign := binary.BigEndian.Uint16(b[4:])
	dscale := int(binary.BigEndian.Uint16(b[6:]))
	if len(b) != 8+2*n {
		return NullValue, fmt.Errorf("invalid binary numeric: %d digits in %d bytes", n, len(b))
	}
	if sign != numericPos && sign != numericNeg {
		return NullValue, &DecimalError{Code: "22003", Msg: "NaN and infinite numerics are not supported"}
	}
	if dscale > maxDecimalScale {
		return NullValue, ErrDecimalOverflow
	}
	var t strings.Builder
	if sign == numericNeg {
		t.WriteByte('-')
	}
	t.WriteByte('0')
	for i := 0; i < n; i++ {
		g := binary.BigEndian.Uint16(b[8+2*i:])
		if g > 9999 {
			return NullValue, fmt.Errorf("invalid binary numeric digit %d", g)
		}
		fmt.Fprintf(&t, "%04d", g)
	}
	fmt.Fprintf(&t, "e%d", 4*(weight-(n-1)))
	v, err := ParseDecimal(t.String())
	if err != nil {
		return NullValue, err
	}
	return DecimalRound(v, dscale)
}

// AppendDecimalBytes appends a Decimal's compact binary form, which the
// state and staged-changes codecs use: uvarint(scale<<1 | large), then
// the int64 coefficient as a varint, or a large one as its base-10 text
// (uvarint length first).
func AppendDecimalBytes(dst []byte, v Value) []byte {
	if v.S == "" {
		dst = binary.AppendUvarint(dst, uint64(v.Scale)<<1)
		return binary.AppendVarint(dst, v.I)
	}
	dst = binary.AppendUvarint(dst, uint64(v.Scale)<<1|1)
	dst = binary.AppendUvarint(dst, uint64(len(v.S)))
	return append(dst, v.S...)
}

// DecodeDecimalBytes reads what AppendDecimalBytes wrote and returns the
// rest of b. It refuses a non-canonical value (a large coefficient that
// fits an int64, or text that is not a plain integer).
func DecodeDecimalBytes(b []byte) (Value, []byte, error) {
	h, k := binary.Uvarint(b)
	if k <= 0 || h>>1 > maxDecimalScale {
		return NullValue, nil, fmt.Errorf("bad decimal scale")
	}
	b = b[k:]
	scale := int(h >> 1)
	if h&1 == 0 {
		x, k := binary.Varint(b)
		if k <= 0 {
			return NullValue, nil, fmt.Errorf("bad decimal")
		}
		return DecimalValue(x, scale), b[k:], nil
	}
	l, k := binary.Uvarint(b)
	if k <= 0 || l > uint64(len(b)-k) {
		return NullValue, nil, fmt.Errorf("bad decimal length")
	}
	text := string(b[k : k+int(l)])
	c, ok := new(big.Int).SetString(text, 10)
	if !ok || c.IsInt64() || c.String() != text {
		return NullValue, nil, fmt.Errorf("bad decimal coefficient")
	}
	v, err := decimalFromBig(c, scale)
	if err != nil {
		return NullValue, nil, err
	}
	return v, b[k+int(l):], nil
}
