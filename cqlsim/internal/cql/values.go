package cql

// Validate checks that b is a valid serialized value of type t.
func Validate(t *Type, b []byte) error { panic("todo") }

// EncodeTerm encodes a literal term (no bind markers) as a value of type t.
func EncodeTerm(t *Type, term Term) ([]byte, error) { panic("todo") }

// Compare orders two serialized values of type t as Cassandra does.
func Compare(t *Type, a, b []byte) int { panic("todo") }

// Format renders a serialized value of type t for messages and debugging.
func Format(t *Type, b []byte) string { panic("todo") }
