// Package cql is the CQL language layer of cqlsim: a hand-written lexer and
// recursive-descent parser for the statements the simulator serves, the CQL
// type system, and the validation, literal encoding, ordering and formatting
// of values in their native protocol (v3/v4) serialized form.
//
// Parsing: Parse and ParseScript return the AST types of ast.go. Syntax errors
// are *SyntaxError with Cassandra's position convention (line 1-based, column
// 0-based); valid CQL that cqlsim does not implement (ALTER, GRANT, CREATE
// INDEX, …) is *UnsupportedError, so the server can answer each with the right
// error frame. Bind markers are numbered in textual order across a whole
// statement, batches included; BindMarkers lists them.
//
// Types: ParseType and Type.String round-trip the text Cassandra 4 stores in
// system_schema (varchar is text, tuples and everything inside frozen<> are
// frozen deeply, UDTs print by bare name). Type.Check reports the column types
// Cassandra refuses; ResolveUDTs fills in UDT fields; DataType gives the
// protocol metadata.
//
// Values: Validate follows Cassandra's marshal classes, including which types
// accept the zero-length "empty" value (see values.go), and does not allocate.
// EncodeTerm turns literals into values with Cassandra's assignment rules;
// zone-less timestamps are UTC. Compare is Cassandra's ascending order; Format
// renders a value as a CQL literal for messages.
package cql
