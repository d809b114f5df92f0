package schema

import (
	"encoding/hex"
	"fmt"
	"reflect"
	"time"

	"github.com/gocql/gocql"
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
