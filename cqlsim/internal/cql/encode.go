package cql

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"
)

// EncodeTerm encodes a literal term (no bind markers) as a serialized value
// of type t; null encodes as nil. It accepts the constants Cassandra accepts
// for each type (a quoted string for text, ascii, inet, date, time and
// timestamp; integers for every numeric and for date/time/timestamp; unquoted
// uuids; 0x… blobs; duration literals), collection, tuple and UDT literals
// (UDTs must be resolved), and the functions now(), uuid(),
// currentTimestamp(), currentDate(), currentTime(), currentTimeUUID(),
// toTimestamp(now()), toDate(now()) and toUnixTimestamp(now()).
func EncodeTerm(t *Type, term Term) ([]byte, error) {
	return encodeTerm(t, term, &encodeEnv{now: time.Now})
}

// EncodeBound is EncodeTerm for a term that contains bind markers, such as
// the tuple literal (?, ?) or the list [?, 1]: each marker takes
// values[marker.Index], already serialized for the marker's own type (see
// MarkerReceivers); nil is null, which collections refuse as Cassandra does.
func EncodeBound(t *Type, term Term, values [][]byte) ([]byte, error) {
	if values == nil {
		values = [][]byte{}
	}
	return encodeTerm(t, term, &encodeEnv{now: time.Now, values: values})
}

// encodeEnv is what evaluating a term needs besides the term: the clock for
// now() and friends, and the bound values (nil when markers are not allowed).
type encodeEnv struct {
	now    func() time.Time
	values [][]byte
}

func encodeTerm(t *Type, term Term, env *encodeEnv) ([]byte, error) {
	switch v := term.(type) {
	case nil:
		return nil, fmt.Errorf("missing value for type %s", t)
	case *Constant:
		if v.Kind == ConstNull {
			if t.Kind == Counter {
				return nil, fmt.Errorf("invalid null value for counter increment/decrement")
			}
			return nil, nil
		}
		return encodeConstant(t, v, env)
	case *BindMarker:
		if env.values == nil {
			return nil, fmt.Errorf("bind marker %s cannot be encoded: it has no value", markerText(v))
		}
		if v.Index < 0 || v.Index >= len(env.values) {
			return nil, fmt.Errorf("no value bound for marker %s (index %d of %d)", markerText(v), v.Index, len(env.values))
		}
		b := env.values[v.Index]
		if err := Validate(t, b); err != nil {
			return nil, fmt.Errorf("bound value %d: %w", v.Index, err)
		}
		return b, nil
	case *TypeHint:
		return encodeTerm(t, v.Term, env)
	case *FuncCall:
		return encodeFunc(t, v, env)
	case *ListLit:
		switch t.Kind {
		case List:
			return encodeElems(t, t.Elems[0], v.Elems, false, env)
		case Vector:
			return encodeVector(t, v.Elems, env)
		}
	case *SetLit:
		switch {
		case t.Kind == Set:
			return encodeElems(t, t.Elems[0], v.Elems, true, env)
		case t.Kind == Map && len(v.Elems) == 0:
			return []byte{0, 0, 0, 0}, nil
		}
	case *MapLit:
		switch t.Kind {
		case Map:
			return encodeMap(t, v, env)
		}
	case *UDTLit:
		if t.Kind == UDT {
			return encodeUDT(t, v.Fields, v.Values, env)
		}
	case *TupleLit:
		if t.Kind == Tuple {
			return encodeTuple(t, v.Elems, env)
		}
	}
	return nil, fmt.Errorf("invalid %s literal %s for type %s", termKind(term), TermString(term), t)
}

func errLiteral(t *Type, c *Constant, reason string) error {
	msg := fmt.Sprintf("invalid %s literal %s", t, TermString(c))
	if reason != "" {
		msg += ": " + reason
	}
	return fmt.Errorf("%s", msg)
}

func errConstKind(t *Type, c *Constant) error {
	return fmt.Errorf("invalid %s constant (%s) for type %s", termKind(c), c.Text, t)
}

func encodeConstant(t *Type, c *Constant, env *encodeEnv) ([]byte, error) {
	switch t.Kind {
	case Int, Bigint, Smallint, Tinyint, Counter:
		if c.Kind != ConstInteger {
			return nil, errConstKind(t, c)
		}
		bitSize := map[Kind]int{Int: 32, Bigint: 64, Counter: 64, Smallint: 16, Tinyint: 8}[t.Kind]
		v, err := strconv.ParseInt(c.Text, 10, bitSize)
		if err != nil {
			return nil, errLiteral(t, c, "out of range")
		}
		b := make([]byte, 8)
		binary.BigEndian.PutUint64(b, uint64(v))
		return b[8-bitSize/8:], nil
	case Varint:
		if c.Kind != ConstInteger {
			return nil, errConstKind(t, c)
		}
		n, ok := new(big.Int).SetString(c.Text, 10)
		if !ok {
			return nil, errLiteral(t, c, "")
		}
		return varintBytes(n), nil
	case Float, Double:
		var v float64
		switch c.Kind {
		case ConstInteger, ConstFloat:
			bitSize := 64
			if t.Kind == Float {
				bitSize = 32
			}
			f, err := strconv.ParseFloat(c.Text, bitSize)
			if err != nil {
				return nil, errLiteral(t, c, "out of range")
			}
			v = f
		case ConstNaN:
			v = math.NaN()
		case ConstInfinity:
			v = math.Inf(1)
			if strings.HasPrefix(c.Text, "-") {
				v = math.Inf(-1)
			}
		default:
			return nil, errConstKind(t, c)
		}
		if t.Kind == Float {
			return binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(v))), nil
		}
		return binary.BigEndian.AppendUint64(nil, math.Float64bits(v)), nil
	case Decimal:
		if c.Kind != ConstInteger && c.Kind != ConstFloat {
			return nil, errConstKind(t, c)
		}
		b, err := decimalBytes(c.Text)
		if err != nil {
			return nil, errLiteral(t, c, err.Error())
		}
		return b, nil
	case Boolean:
		if c.Kind != ConstBoolean {
			return nil, errConstKind(t, c)
		}
		if c.Text == "true" {
			return []byte{1}, nil
		}
		return []byte{0}, nil
	case Text, Ascii:
		if c.Kind != ConstString {
			return nil, errConstKind(t, c)
		}
		if !utf8.ValidString(c.Text) {
			return nil, errLiteral(t, c, "not valid UTF-8")
		}
		b := []byte(c.Text)
		if t.Kind == Ascii {
			if err := validate(t, b); err != nil {
				return nil, errLiteral(t, c, "non-ASCII character")
			}
		}
		return b, nil
	case Blob:
		if c.Kind != ConstHex {
			return nil, errConstKind(t, c)
		}
		b, err := hex.DecodeString(c.Text[2:])
		if err != nil {
			return nil, errLiteral(t, c, "hex string is of odd length or has non-hex digits")
		}
		return b, nil
	case Uuid, Timeuuid:
		if c.Kind != ConstUUID {
			return nil, errConstKind(t, c)
		}
		u, err := uuid.Parse(c.Text)
		if err != nil {
			return nil, errLiteral(t, c, err.Error())
		}
		if t.Kind == Timeuuid && u.Version() != 1 {
			return nil, errLiteral(t, c, "not a version 1 uuid")
		}
		return u[:], nil
	case Inet:
		if c.Kind != ConstString {
			return nil, errConstKind(t, c)
		}
		a, err := netip.ParseAddr(c.Text)
		if err != nil {
			return nil, errLiteral(t, c, "unable to make inet address")
		}
		return a.AsSlice(), nil
	case Timestamp:
		if c.Kind != ConstString && c.Kind != ConstInteger {
			return nil, errConstKind(t, c)
		}
		ms, err := parseTimestamp(c.Text, env.now)
		if err != nil {
			return nil, errLiteral(t, c, err.Error())
		}
		return binary.BigEndian.AppendUint64(nil, uint64(ms)), nil
	case Date:
		if c.Kind != ConstString && c.Kind != ConstInteger {
			return nil, errConstKind(t, c)
		}
		d, err := parseDate(c.Text)
		if err != nil {
			return nil, errLiteral(t, c, err.Error())
		}
		return binary.BigEndian.AppendUint32(nil, d), nil
	case Time:
		if c.Kind != ConstString && c.Kind != ConstInteger {
			return nil, errConstKind(t, c)
		}
		ns, err := parseTime(c.Text)
		if err != nil {
			return nil, errLiteral(t, c, err.Error())
		}
		return binary.BigEndian.AppendUint64(nil, uint64(ns)), nil
	case Duration:
		if c.Kind != ConstDuration {
			return nil, errConstKind(t, c)
		}
		mo, d, ns, err := parseDuration(c.Text)
		if err != nil {
			return nil, errLiteral(t, c, err.Error())
		}
		return appendVarint(appendVarint(appendVarint(nil, mo), d), ns), nil
	case Custom:
		if c.Kind != ConstHex {
			return nil, errConstKind(t, c)
		}
		b, err := hex.DecodeString(c.Text[2:])
		if err != nil {
			return nil, errLiteral(t, c, "bad hex")
		}
		return b, nil
	}
	return nil, errConstKind(t, c)
}

// varintBytes is n in minimal big-endian two's complement.
func varintBytes(n *big.Int) []byte {
	switch n.Sign() {
	case 0:
		return []byte{0}
	case 1:
		b := n.Bytes()
		if b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -n-1 has the bit pattern of n's two's complement, inverted.
	m := new(big.Int).Neg(n)
	m.Sub(m, big.NewInt(1))
	b := m.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

// varintValue decodes big-endian two's complement.
func varintValue(b []byte) *big.Int {
	n := new(big.Int).SetBytes(b)
	if len(b) > 0 && b[0]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(b))))
	}
	return n
}

// decimalBytes encodes a decimal literal as a 4-byte scale and a varint
// unscaled value, keeping the literal's scale as Java's BigDecimal does
// ("1.50" has scale 2, "1e3" has scale -3).
func decimalBytes(s string) ([]byte, error) {
	mant, exp := s, int64(0)
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.ParseInt(s[i+1:], 10, 32)
		if err != nil {
			return nil, fmt.Errorf("bad exponent")
		}
		mant, exp = s[:i], e
	}
	scale := int64(0)
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		scale = int64(len(mant) - i - 1)
		mant = mant[:i] + mant[i+1:]
	}
	scale -= exp
	if scale != int64(int32(scale)) {
		return nil, fmt.Errorf("scale out of range")
	}
	n, ok := new(big.Int).SetString(mant, 10)
	if !ok {
		return nil, fmt.Errorf("not a number")
	}
	return append(binary.BigEndian.AppendUint32(nil, uint32(int32(scale))), varintBytes(n)...), nil
}

func encodeFunc(t *Type, f *FuncCall, env *encodeEnv) ([]byte, error) {
	name := strings.ToLower(f.Name)
	nowArg := len(f.Args) == 1 && isNowCall(f.Args[0])
	switch {
	case len(f.Args) == 0 && (name == "now" || name == "currenttimeuuid") && (t.Kind == Timeuuid || t.Kind == Uuid):
		return timeUUID(env.now())
	case len(f.Args) == 0 && name == "uuid" && t.Kind == Uuid:
		u, err := uuid.NewRandomFromReader(rand.Reader)
		if err != nil {
			return nil, fmt.Errorf("uuid(): %w", err)
		}
		return u[:], nil
	case t.Kind == Timestamp && (len(f.Args) == 0 && name == "currenttimestamp" || nowArg && name == "totimestamp"):
		return binary.BigEndian.AppendUint64(nil, uint64(env.now().UnixMilli())), nil
	case t.Kind == Bigint && nowArg && name == "tounixtimestamp":
		return binary.BigEndian.AppendUint64(nil, uint64(env.now().UnixMilli())), nil
	case t.Kind == Date && (len(f.Args) == 0 && name == "currentdate" || nowArg && name == "todate"):
		days := env.now().UTC().Unix()
		if days < 0 {
			days -= 86399
		}
		return binary.BigEndian.AppendUint32(nil, uint32(days/86400+dateEpoch)), nil
	case t.Kind == Time && len(f.Args) == 0 && name == "currenttime":
		n := env.now().UTC()
		mid := time.Date(n.Year(), n.Month(), n.Day(), 0, 0, 0, 0, time.UTC)
		return binary.BigEndian.AppendUint64(nil, uint64(n.Sub(mid))), nil
	}
	return nil, fmt.Errorf("function %s cannot produce a value of type %s", TermString(f), t)
}

func isNowCall(t Term) bool {
	f, ok := t.(*FuncCall)
	return ok && strings.EqualFold(f.Name, "now") && len(f.Args) == 0
}

// timeUUID makes a version 1 uuid for tm with a random node and clock sequence.
func timeUUID(tm time.Time) ([]byte, error) {
	var u [16]byte
	if _, err := rand.Read(u[8:]); err != nil {
		return nil, fmt.Errorf("now(): %w", err)
	}
	// 100ns intervals since 1582-10-15, the uuid epoch.
	ts := uint64(tm.UnixNano()/100) + 0x01B21DD213814000
	binary.BigEndian.PutUint32(u[0:], uint32(ts))
	binary.BigEndian.PutUint16(u[4:], uint16(ts>>32))
	binary.BigEndian.PutUint16(u[6:], uint16(ts>>48)&0x0fff|0x1000)
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u[:], nil
}

// appendValue appends a 4-byte length and v (negative length for nil).
func appendValue(dst, v []byte) []byte {
	if v == nil {
		return binary.BigEndian.AppendUint32(dst, math.MaxUint32)
	}
	return append(binary.BigEndian.AppendUint32(dst, uint32(len(v))), v...)
}

func encodeElem(coll, elem *Type, term Term, env *encodeEnv) ([]byte, error) {
	b, err := encodeTerm(elem, term, env)
	if err != nil {
		return nil, fmt.Errorf("%s element: %w", coll, err)
	}
	if b == nil {
		return nil, fmt.Errorf("invalid %s literal: null is not supported inside collections", coll)
	}
	return b, nil
}

// encodeElems encodes a list, or a set (sorted by Compare, duplicates removed,
// as Cassandra stores them).
func encodeElems(t, elem *Type, terms []Term, sorted bool, env *encodeEnv) ([]byte, error) {
	vals := make([][]byte, 0, len(terms))
	for _, term := range terms {
		b, err := encodeElem(t, elem, term, env)
		if err != nil {
			return nil, err
		}
		vals = append(vals, b)
	}
	if sorted {
		sort.SliceStable(vals, func(i, j int) bool { return Compare(elem, vals[i], vals[j]) < 0 })
		vals = dedupSorted(elem, vals)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(len(vals)))
	for _, v := range vals {
		out = appendValue(out, v)
	}
	return out, nil
}

func dedupSorted(t *Type, vals [][]byte) [][]byte {
	out := vals[:0]
	for i, v := range vals {
		if i > 0 && Compare(t, out[len(out)-1], v) == 0 {
			continue
		}
		out = append(out, v)
	}
	return out
}

func encodeMap(t *Type, m *MapLit, env *encodeEnv) ([]byte, error) {
	type entry struct{ k, v []byte }
	entries := make([]entry, 0, len(m.Keys))
	for i := range m.Keys {
		k, err := encodeElem(t, t.Elems[0], m.Keys[i], env)
		if err != nil {
			return nil, err
		}
		v, err := encodeElem(t, t.Elems[1], m.Values[i], env)
		if err != nil {
			return nil, err
		}
		entries = append(entries, entry{k, v})
	}
	// Stable sort, then keep the last of equal keys: a later duplicate wins.
	sort.SliceStable(entries, func(i, j int) bool { return Compare(t.Elems[0], entries[i].k, entries[j].k) < 0 })
	out := entries[:0]
	for _, e := range entries {
		if len(out) > 0 && Compare(t.Elems[0], out[len(out)-1].k, e.k) == 0 {
			out[len(out)-1] = e
			continue
		}
		out = append(out, e)
	}
	b := binary.BigEndian.AppendUint32(nil, uint32(len(out)))
	for _, e := range out {
		b = appendValue(appendValue(b, e.k), e.v)
	}
	return b, nil
}

func encodeTuple(t *Type, elems []Term, env *encodeEnv) ([]byte, error) {
	if len(elems) > len(t.Elems) {
		return nil, fmt.Errorf("invalid tuple literal: too many elements; type %s expects %d but got %d", t, len(t.Elems), len(elems))
	}
	var out []byte
	for i, e := range elems {
		b, err := encodeTerm(t.Elems[i], e, env)
		if err != nil {
			return nil, fmt.Errorf("tuple element %d: %w", i, err)
		}
		out = appendValue(out, b)
	}
	if out == nil {
		out = []byte{}
	}
	return out, nil
}

func encodeUDT(t *Type, fields []string, values []Term, env *encodeEnv) ([]byte, error) {
	if t.Fields == nil {
		return nil, fmt.Errorf("type %s is not resolved; call ResolveUDTs first", t)
	}
	byName := make(map[string]Term, len(fields))
	for i, f := range fields {
		if _, dup := byName[f]; dup {
			return nil, fmt.Errorf("invalid user type literal for %s: duplicate field %s", t, f)
		}
		byName[f] = values[i]
	}
	var out []byte
	for _, f := range t.Fields {
		term, ok := byName[f.Name]
		var b []byte
		if ok {
			var err error
			if b, err = encodeTerm(f.Type, term, env); err != nil {
				return nil, fmt.Errorf("field %s of %s: %w", f.Name, t, err)
			}
			delete(byName, f.Name)
		}
		out = appendValue(out, b)
	}
	for name := range byName {
		return nil, fmt.Errorf("unknown field '%s' in value of user defined type %s", name, t.Name)
	}
	return out, nil
}

func encodeVector(t *Type, elems []Term, env *encodeEnv) ([]byte, error) {
	if len(elems) != t.Dim {
		return nil, fmt.Errorf("invalid vector literal for %s: expected %d elements, got %d", t, t.Dim, len(elems))
	}
	var out []byte
	for _, e := range elems {
		b, err := encodeElem(t, t.Elems[0], e, env)
		if err != nil {
			return nil, err
		}
		out = AppendVectorElement(t, out, b)
	}
	return out, nil
}
