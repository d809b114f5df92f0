package cql

// Parse parses one CQL statement; a trailing ';' is allowed.
func Parse(src string) (Statement, error) { panic("todo") }

// ParseScript splits a .cql file into statements and parses each.
func ParseScript(src string) ([]Statement, error) { panic("todo") }

// BindMarkers returns the statement's bind markers in Index order.
func BindMarkers(s Statement) []*BindMarker { panic("todo") }
