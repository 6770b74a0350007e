package planner

import (
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/streamsql/streamsql/funcs"
	"github.com/streamsql/streamsql/parser"
	"github.com/streamsql/streamsql/types"
)

// bindZoneFunc binds the parser's stand-ins for a cast to TIMESTAMPTZ
// (__timestamptz_cast(x)) and for x AT TIME ZONE z (__at_time_zone(x, z),
// the registry's timezone(z, x)).
func (b *binder) bindZoneFunc(n *ast.FuncCallExpr) (Scalar, error) {
	args, err := b.bindAll(n.Args)
	if err != nil {
		return nil, err
	}
	if n.FnName.L == parser.TimestampTZCastFunc && len(args) == 1 {
		return castTo(n, args[0], types.TimestampTZ)
	}
	if len(args) != 2 {
		return nil, notSupported(n, "this form is")
	}
	return b.call(n, "timezone", args[1], args[0])
}

// zoned puts the binder's time zone where a bound expression needs it:
// on every Cast between TIMESTAMPTZ and a zone-less kind (folding a
// string literal read as TIMESTAMPTZ, so a bad one fails now; unitCall
// binds date_trunc of a TIMESTAMPTZ through such casts), and around
// TIMESTAMPTZ ± interval (added on
// the wall clock, as Postgres adds days and months). extract of a
// TIMESTAMPTZ reads the wall-clock fields, except epoch, which is the
// instant's.
func (b *binder) zoned(s Scalar) (Scalar, error) {
	switch x := s.(type) {
	case *Cast:
		arg, err := b.zoned(x.Arg)
		if err != nil {
			return nil, err
		}
		c := *x
		c.Arg = arg
		if zoneCast(arg.Type(), c.To) {
			c.Zone = b.zone
			if k, ok := arg.(*Const); ok && k.V.K == types.String {
				return b.foldZoned(k.V, c.To)
			}
		}
		return &c, nil
	case *Call:
		return b.zonedCall(x)
	case *Case:
		c := *x
		var err error
		if c.Operand != nil {
			if c.Operand, err = b.zoned(c.Operand); err != nil {
				return nil, err
			}
		}
		c.Whens = make([]When, len(x.Whens))
		for i, w := range x.Whens {
			if c.Whens[i].Cond, err = b.zoned(w.Cond); err != nil {
				return nil, err
			}
			if c.Whens[i].Result, err = b.zoned(w.Result); err != nil {
				return nil, err
			}
		}
		if c.Else != nil {
			if c.Else, err = b.zoned(c.Else); err != nil {
				return nil, err
			}
		}
		return &c, nil
	}
	return s, nil
}

func (b *binder) zonedCall(x *Call) (Scalar, error) {
	c := *x
	c.Args = make([]Scalar, len(x.Args))
	for i, a := range x.Args {
		z, err := b.zoned(a)
		if err != nil {
			return nil, err
		}
		c.Args[i] = z
	}
	switch {
	case c.Fn == "extract" && len(c.Args) == 2 && isWallClock(c.Args[1]) && isConstString(c.Args[0], "epoch"):
		c.Args[1] = c.Args[1].(*Cast).Arg // the instant's epoch
	case (c.Fn == "+" || c.Fn == "-") && c.T == types.TimestampTZ:
		for i, a := range c.Args {
			if a.Type() == types.TimestampTZ {
				c.Args[i] = &Cast{Arg: a, To: types.Timestamp, Zone: b.zone}
			}
		}
		c.T = types.Timestamp
		return &Cast{Arg: &c, To: types.TimestampTZ, Zone: b.zone}, nil
	}
	return &c, nil
}

// zoneCast reports whether a cast from kind from to kind to depends on a
// time zone (TIMESTAMPTZ[] to and from text and other arrays too).
func zoneCast(from, to types.Kind) bool {
	return types.ZoneDependent(from) != types.ZoneDependent(to) && from != types.Null
}

// isWallClock reports whether s is a TIMESTAMPTZ read as wall-clock time.
func isWallClock(s Scalar) bool {
	c, ok := s.(*Cast)
	return ok && c.To == types.Timestamp && c.Arg.Type() == types.TimestampTZ
}

func isConstString(s Scalar, v string) bool {
	c, ok := s.(*Const)
	return ok && c.V.K == types.String && c.V.S == v
}

// foldZoned converts a string constant to TIMESTAMPTZ in the binder's
// zone (or a TIMESTAMPTZ-free kind, which castTo already folded).
func (b *binder) foldZoned(v types.Value, to types.Kind) (Scalar, error) {
	loc, zerr := funcs.Zone(b.zoneName())
	if zerr != nil {
		return nil, zerr
	}
	out, _, err := funcs.CastZoned(v, to, loc)
	if err != nil {
		return nil, err
	}
	return &Const{V: out}, nil
}

func (b *binder) zoneName() string {
	if b.zone == "" {
		return "UTC"
	}
	return b.zone
}
