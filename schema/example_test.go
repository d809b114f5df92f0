package schema_test

import (
	"fmt"

	"github.com/cqlload/cqlload/schema"
)

func ExampleNewConverter() {
	typ, err := schema.ParseType("map<text, frozen<list<int>>>")
	if err != nil {
		panic(err)
	}
	conv, err := schema.NewConverter(typ, schema.DefaultFormats())
	if err != nil {
		panic(err)
	}
	// Converters append to a buffer, so one buffer can hold a whole row.
	buf := make([]byte, 0, 64)
	buf, err = conv(buf, []byte(`{'a': [1, 2]}`))
	fmt.Printf("%x %v\n", buf, err)

	_, err = conv(buf, []byte(`{'a': [1, x]}`))
	fmt.Println(err)
	// Output:
	// 000000010000000161000000140000000200000004000000010000000400000002 <nil>
	// invalid map<text, frozen<list<int>>> "{'a': [1, x]}": value 1: element 2: invalid int "x": not a number
}

func ExampleInsertStatement() {
	text, _ := schema.ParseType("text")
	ts, _ := schema.ParseType("timestamp")
	t, err := schema.NewTable("ks", "events", []*schema.Column{
		{Name: "at", Type: ts, Kind: schema.Clustering},
		{Name: "id", Type: text, Kind: schema.PartitionKey},
		{Name: "Note", Type: text},
	})
	if err != nil {
		panic(err)
	}
	stmt, binds := schema.InsertStatement(t, t.Columns, schema.Using{TTL: 86400})
	fmt.Println(stmt)
	fmt.Println(binds.Names())
	// Output:
	// INSERT INTO ks.events (id,at,"Note") VALUES (?,?,?) USING TTL 86400
	// [id at Note]
}
