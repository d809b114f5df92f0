package cqlsim

import (
	"github.com/cqlload/cqlload/cqlsim/internal/cql"
	"github.com/datastax/go-cassandra-native-protocol/datatype"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// durationClass is how protocol v3/v4 name the duration type: its type code
// (0x15) only exists from v5, so Cassandra sends it as a custom type.
const durationClass = "org.apache.cassandra.db.marshal.DurationType"

// wireType is t's metadata type for protocol v3/v4.
func wireType(t *cql.Type) datatype.DataType {
	return downgrade(t.DataType())
}

func downgrade(dt datatype.DataType) datatype.DataType {
	switch x := dt.(type) {
	case *datatype.List:
		return &datatype.List{ElementType: downgrade(x.ElementType)}
	case *datatype.Set:
		return &datatype.Set{ElementType: downgrade(x.ElementType)}
	case *datatype.Map:
		return &datatype.Map{KeyType: downgrade(x.KeyType), ValueType: downgrade(x.ValueType)}
	case *datatype.Tuple:
		out := &datatype.Tuple{FieldTypes: make([]datatype.DataType, len(x.FieldTypes))}
		for i, f := range x.FieldTypes {
			out.FieldTypes[i] = downgrade(f)
		}
		return out
	case *datatype.UserDefined:
		out := &datatype.UserDefined{Keyspace: x.Keyspace, Name: x.Name, FieldNames: x.FieldNames, FieldTypes: make([]datatype.DataType, len(x.FieldTypes))}
		for i, f := range x.FieldTypes {
			out.FieldTypes[i] = downgrade(f)
		}
		return out
	}
	if dt != nil && dt.Code() == primitive.DataTypeCodeDuration {
		return datatype.NewCustom(durationClass)
	}
	return dt
}
