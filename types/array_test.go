package types

import "testing"

func TestArrayText(t *testing.T) {
	a := ArrayValue(String, []Value{StringValue("a"), NullValue, StringValue(""), StringValue(`x "y"\`), StringValue("NULL"), StringValue("b c")})
	want := `{a,NULL,"","x \"y\"\\","NULL","b c"}`
	if got := a.String(); got != want {
		t.Fatalf("String = %s, want %s", got, want)
	}
	back, err := ParseArray(want, String, func(s string) (Value, error) { return ParseScalar(s, String) })
	if err != nil || back != a {
		t.Fatalf("ParseArray(%s) = %v, %v", want, back, err)
	}
	if a.K.String() != "VARCHAR[]" || !a.K.IsArray() || a.K.Elem() != String || ArrayLen(a) != 6 {
		t.Errorf("kind %v, len %d", a.K, ArrayLen(a))
	}
	ints, err := ParseArray(" { 1 , -2,null } ", Int, func(s string) (Value, error) { return ParseScalar(s, Int) })
	if err != nil || ints.String() != "{1,-2,NULL}" {
		t.Errorf("int array = %v, %v", ints, err)
	}
	for _, bad := range []string{"1,2", "{1,2", "{1,,2}", `{"a}`, "{a b c}x", "{{1}}"} {
		if _, err := ParseArray(bad, String, func(s string) (Value, error) { return ParseScalar(s, String) }); err == nil {
			t.Errorf("ParseArray(%q) succeeded", bad)
		}
	}
	if e := ArrayValue(Int, nil); e.String() != "{}" {
		t.Errorf("empty = %s", e)
	}
}

func TestArrayOrder(t *testing.T) {
	arr := func(vs ...Value) Value { return ArrayValue(Int, vs) }
	one, two := IntValue(1), IntValue(2)
	tests := []struct {
		a, b Value
		want int
	}{
		{arr(one, two), arr(one, two), 0},
		{arr(one), arr(one, two), -1},
		{arr(two), arr(one, two), 1},
		{arr(one, NullValue), arr(one, two), 1},
		{arr(one, NullValue), arr(one, NullValue), 0},
	}
	for _, tt := range tests {
		if got := Compare(tt.a, tt.b); got != tt.want {
			t.Errorf("Compare(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
	d1 := ArrayValue(Decimal, []Value{DecimalValue(10, 1)})
	d2 := ArrayValue(Decimal, []Value{DecimalValue(1, 0)})
	if Compare(d1, d2) != 0 || ArrayKeyForm(d1) != ArrayKeyForm(d2) {
		t.Errorf("{1.0} and {1} differ: %v %v", ArrayKeyForm(d1), ArrayKeyForm(d2))
	}
	if _, err := DecodeArrayBytes(Int, []byte(d1.S+"x")); err == nil {
		t.Error("DecodeArrayBytes accepted trailing bytes")
	}
}
