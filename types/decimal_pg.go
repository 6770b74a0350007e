package types

import (
	"encoding/binary"
	"fmt"
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
