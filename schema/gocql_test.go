package schema

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"time"

	"github.com/gocql/gocql"
	"gopkg.in/inf.v0"
)

// This file checks serialized values independently of the converters: it
// decodes them with the driver's own Unmarshal and renders the Go value.

const proto4 = 4

func gocqlType(t *Type) gocql.TypeInfo {
	native := func(k gocql.Type) gocql.NativeType { return gocql.NewNativeType(proto4, k) }
	switch t.Kind {
	case KindAscii:
		return native(gocql.TypeAscii)
	case KindBigint:
		return native(gocql.TypeBigInt)
	case KindBlob:
		return native(gocql.TypeBlob)
	case KindBoolean:
		return native(gocql.TypeBoolean)
	case KindCounter:
		return native(gocql.TypeCounter)
	case KindDate:
		return native(gocql.TypeDate)
	case KindDecimal:
		return native(gocql.TypeDecimal)
	case KindDouble:
		return native(gocql.TypeDouble)
	case KindDuration:
		return native(gocql.TypeDuration)
	case KindFloat:
		return native(gocql.TypeFloat)
	case KindInet:
		return native(gocql.TypeInet)
	case KindInt:
		return native(gocql.TypeInt)
	case KindSmallint:
		return native(gocql.TypeSmallInt)
	case KindText:
		return native(gocql.TypeText)
	case KindTime:
		return native(gocql.TypeTime)
	case KindTimestamp:
		return native(gocql.TypeTimestamp)
	case KindTimeuuid:
		return native(gocql.TypeTimeUUID)
	case KindTinyint:
		return native(gocql.TypeTinyInt)
	case KindUUID:
		return native(gocql.TypeUUID)
	case KindVarint:
		return native(gocql.TypeVarint)
	case KindList:
		return gocql.CollectionType{NativeType: native(gocql.TypeList), Elem: gocqlType(t.Elems[0])}
	case KindSet:
		return gocql.CollectionType{NativeType: native(gocql.TypeSet), Elem: gocqlType(t.Elems[0])}
	case KindMap:
		return gocql.CollectionType{NativeType: native(gocql.TypeMap), Key: gocqlType(t.Elems[0]), Elem: gocqlType(t.Elems[1])}
	case KindTuple:
		var elems []gocql.TypeInfo
		for _, e := range t.Elems {
			elems = append(elems, gocqlType(e))
		}
		return gocql.TupleTypeInfo{NativeType: native(gocql.TypeTuple), Elems: elems}
	case KindUDT:
		var fields []gocql.UDTField
		for _, f := range t.Fields {
			fields = append(fields, gocql.UDTField{Name: f.Name, Type: gocqlType(f.Type)})
		}
		return gocql.NewUDTType(proto4, t.Name, t.Keyspace, fields...)
	case KindVector:
		return gocql.VectorType{
			NativeType: gocql.NewCustomType(proto4, gocql.TypeCustom, "org.apache.cassandra.db.marshal.VectorType"),
			SubType:    gocqlType(t.Elems[0]),
			Dimensions: t.Dim,
		}
	}
	panic("no gocql type for " + t.String())
}

// decode unmarshals b with the driver and renders the value: %v of the
// natural Go value, except blobs in hex, timestamps in RFC 3339 (UTC) and
// dates as yyyy-mm-dd.
func decode(t *Type, b []byte) (string, error) {
	info := gocqlType(t)
	switch t.Kind {
	case KindBlob:
		return "0x" + hex.EncodeToString(b), nil
	case KindTimestamp:
		var v time.Time
		if err := gocql.Unmarshal(info, b, &v); err != nil {
			return "", err
		}
		return v.UTC().Format("2006-01-02T15:04:05.000Z07:00"), nil
	case KindDate:
		var v time.Time
		if err := gocql.Unmarshal(info, b, &v); err != nil {
			return "", err
		}
		return v.UTC().Format("2006-01-02"), nil
	case KindDecimal:
		var v inf.Dec
		if err := gocql.Unmarshal(info, b, &v); err != nil {
			return "", err
		}
		if s := v.Scale(); s < -64 || s > 20000 {
			// inf.Dec would write out every zero of 2E+1700000000.
			return fmt.Sprintf("%vE%+d", v.UnscaledBig(), -int64(s)), nil
		}
		return v.String(), nil
	case KindTuple, KindUDT:
		return decodeComponents(t, b)
	case KindMap:
		if needsManualDecode(t) {
			// The driver would build a Go map keyed by a slice and panic,
			// or print a decimal with every zero of its exponent.
			return decodeMapEntries(t, b)
		}
	case KindList, KindSet:
		if needsManualDecode(t) {
			return decodeListElements(t, b)
		}
	case KindVector:
		elem, err := gocqlType(t.Elems[0]).NewWithError()
		if err != nil {
			return "", err
		}
		ptr := reflect.New(reflect.SliceOf(reflect.TypeOf(elem).Elem()))
		if err := gocql.Unmarshal(info, b, ptr.Interface()); err != nil {
			return "", err
		}
		return fmt.Sprintf("%v", ptr.Elem().Interface()), nil
	}
	ptr, err := info.NewWithError()
	if err != nil {
		return "", err
	}
	if err := gocql.Unmarshal(info, b, ptr); err != nil {
		return "", err
	}
	return fmt.Sprintf("%v", reflect.ValueOf(ptr).Elem().Interface()), nil
}

// decodeComponents splits a tuple or UDT into its [int32 length][bytes]
// components and decodes each with the driver, so that nulls show as <nil>
// (the driver would turn them into zero values).
func decodeComponents(t *Type, b []byte) (string, error) {
	var types []*Type
	var names []string
	if t.Kind == KindTuple {
		types = t.Elems
	} else {
		for _, f := range t.Fields {
			types, names = append(types, f.Type), append(names, f.Name)
		}
	}
	parts := make([]string, len(types))
	for i, et := range types {
		if len(b) < 4 {
			return "", fmt.Errorf("component %d: %d bytes left", i, len(b))
		}
		n := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if n < 0 {
			parts[i] = "<nil>"
			continue
		}
		if int(n) > len(b) {
			return "", fmt.Errorf("component %d: length %d, %d bytes left", i, n, len(b))
		}
		s, err := decode(et, b[:n])
		if err != nil {
			return "", err
		}
		parts[i], b = s, b[n:]
	}
	if len(b) != 0 {
		return "", fmt.Errorf("%d bytes after the last component", len(b))
	}
	if names == nil {
		return "[" + strings.Join(parts, " ") + "]", nil
	}
	kv := make([]string, len(parts))
	for i := range parts {
		kv[i] = names[i] + ":" + parts[i]
	}
	sort.Strings(kv)
	return "map[" + strings.Join(kv, " ") + "]", nil
}

// decodeMapEntries renders a map whose keys cannot be Go map keys, each
// entry decoded by the driver, sorted like %v sorts a map.
func decodeMapEntries(t *Type, b []byte) (string, error) {
	if len(b) < 4 {
		return "", fmt.Errorf("map of %d bytes", len(b))
	}
	n := int(binary.BigEndian.Uint32(b))
	b = b[4:]
	var entries []string
	for i := 0; i < n; i++ {
		var kv [2]string
		for j := range kv {
			if len(b) < 4 {
				return "", fmt.Errorf("entry %d: %d bytes left", i, len(b))
			}
			size := int32(binary.BigEndian.Uint32(b))
			b = b[4:]
			if size < 0 || int(size) > len(b) {
				return "", fmt.Errorf("entry %d: length %d, %d bytes left", i, size, len(b))
			}
			s, err := decode(t.Elems[j], b[:size])
			if err != nil {
				return "", err
			}
			kv[j], b = s, b[size:]
		}
		entries = append(entries, kv[0]+":"+kv[1])
	}
	if len(b) != 0 {
		return "", fmt.Errorf("%d bytes after the map", len(b))
	}
	sort.Strings(entries)
	return "map[" + strings.Join(entries, " ") + "]", nil
}

// needsManualDecode reports a type whose Go value the driver cannot build
// or fmt cannot print in reasonable space: a map, anywhere in t, keyed by
// a type Go does not allow as a map key (slices, maps), or a decimal.
func needsManualDecode(t *Type) bool {
	if t.Kind == KindDecimal {
		return true
	}
	if t.Kind == KindMap {
		if k := t.Elems[0].Kind; k == KindBlob || k >= KindList {
			return true
		}
	}
	for _, e := range t.Elems {
		if needsManualDecode(e) {
			return true
		}
	}
	return false
}

// decodeListElements renders a list or set element by element.
func decodeListElements(t *Type, b []byte) (string, error) {
	if len(b) < 4 {
		return "", fmt.Errorf("collection of %d bytes", len(b))
	}
	n := int(binary.BigEndian.Uint32(b))
	b = b[4:]
	var parts []string
	for i := 0; i < n; i++ {
		if len(b) < 4 {
			return "", fmt.Errorf("element %d: %d bytes left", i, len(b))
		}
		size := int32(binary.BigEndian.Uint32(b))
		b = b[4:]
		if size < 0 || int(size) > len(b) {
			return "", fmt.Errorf("element %d: length %d, %d bytes left", i, size, len(b))
		}
		e, err := decode(t.Elems[0], b[:size])
		if err != nil {
			return "", err
		}
		parts, b = append(parts, e), b[size:]
	}
	if len(b) != 0 {
		return "", fmt.Errorf("%d bytes after the collection", len(b))
	}
	return "[" + strings.Join(parts, " ") + "]", nil
}
