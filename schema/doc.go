// Package schema knows the target table and turns CSV text into CQL values.
//
// It reads a table's columns and types from the driver's metadata
// (LoadTable), parses CQL type strings (ParseType), builds one Converter per
// column that appends the protocol-v4 serialized form of a field's text
// (NewConverter), and builds the INSERT or counter UPDATE statement
// (InsertStatement, CounterStatement).
//
// # Accepted text
//
// Converters accept what cqlsh COPY FROM accepts, with cqlsh's option names
// and defaults (DECIMALSEP, THOUSANDSSEP, BOOLSTYLE, DATETIMEFORMAT), and
// read back what cqlsh COPY TO writes. Per type:
//
//   - tinyint, smallint, int, bigint, counter, varint: optionally signed
//     decimal digits, blanks around them and single underscores between
//     digits allowed (as Python's int() allows), THOUSANDSSEP between
//     digits. varint and decimal take at most 4300
//     digits, Python's limit for int(), so also cqlsh's.
//   - float, double, decimal: decimal or exponent notation with DECIMALSEP
//     and THOUSANDSSEP; NaN, Infinity, -Infinity (any case, also inf) for
//     float and double.
//   - boolean: the two BOOLSTYLE words, any case.
//   - blob: 0x followed by an even number of hex digits.
//   - timestamp: DATETIMEFORMAT (Python strptime directives %Y %y %m %d %H
//     %I %M %S %f %z %Z %p %b %B %a %A %j %%); otherwise any CQL literal:
//     yyyy-mm-dd, then optionally a space or T and hh:mm[:ss[.f…]], then
//     optionally Z, ±hh, ±hhmm or ±hh:mm, also after a blank, or a blank and
//     UTC or GMT with an optional offset; otherwise integer milliseconds
//     since the epoch. A value without a zone is in Formats.TimeZone (UTC by
//     default). Fraction digits beyond milliseconds are dropped (rounding
//     toward the past).
//   - date: yyyy-mm-dd (one-digit month and day allowed), or a signed
//     integer counting days from 1970-01-01, the form cqlsh COPY TO writes
//     for years outside 1–9999 (not the server's unsigned form, where
//     2147483648 is 1970-01-01).
//   - time: hh:mm:ss[.fffffffff], or integer nanoseconds since midnight.
//   - duration: 1y2mo3w4d5h6m7s8ms9us10ns (µs too), ISO 8601 P1Y2M3DT4H5M6S
//     and P2W, and P0001-02-03T04:05:06; each optionally negative.
//   - uuid, timeuuid: 32 hex digits with hyphens anywhere (canonically
//     8-4-4-4-12), optionally in braces or after urn:uuid:; a timeuuid must
//     be version 1.
//   - inet: IPv4 or IPv6.
//   - ascii (7-bit only), text, varchar (valid UTF-8 only).
//   - list, set, map, tuple, user-defined type, vector: CQL literal syntax
//     ([…], {…}, {k: v}, (…), {field: v}) nested to any depth, any of the
//     three brackets enclosing any of them as in cqlsh, with
//     single-quoted strings (a doubled single quote for a quote) or JSON-style double-quoted
//     strings, blanks around elements. UDT fields may come in any order;
//     missing fields are null; unknown fields are an error. Inside tuples and
//     UDTs a bare null, an empty value or the NULL marker
//     (Formats.NullMarker) is null, and so is None in a tuple component that
//     is not text (cqlsh COPY TO writes Python's None there; cqlsh COPY FROM
//     cannot read it back). A vector must have exactly
//     its dimension of elements. With DECIMALSEP or THOUSANDSSEP ",", a
//     number inside a collection must be quoted ('1,5'), since a bare comma
//     separates elements.
//
// # Where cqlload deliberately differs from cqlsh COPY FROM
//
// cqlload loads every value that cqlsh loads correctly to the same stored
// value. It differs where cqlsh silently stores something other than what
// the file says, or rejects valid data:
//
//   - boolean: a word that is neither BOOLSTYLE word is an error. cqlsh
//     stores false for anything that is not the true word ("ture", "1",
//     "yes").
//   - blob: the value must start with 0x. cqlsh drops the first two
//     characters whatever they are, so "abcd" loads as 0xcd.
//   - timestamp zones: an offset is applied with the right sign
//     ("10:00+02:00" is 08:00 UTC). When DATETIMEFORMAT does not match,
//     cqlsh's fallback parser adds the offset instead of subtracting it,
//     shifting such values by twice the offset; it also applies the machine's
//     local zone the same wrong way to zone-less values. cqlload uses
//     --timezone (UTC by default) for zone-less values.
//   - timestamp with T or without seconds: "2020-01-02T03:04:05" and
//     "2020-01-02 03:04" load as those instants. cqlsh's fallback pattern
//     expects a literal 'T' in quotes and (since Cassandra 4) requires
//     seconds, and as it only has to match a prefix it silently keeps the
//     date and drops the time of day.
//   - timestamp fractions: up to nine digits are read and truncated to the
//     millisecond; cqlsh's fallback reads at most six and silently ignores
//     whatever follows, zone included.
//   - text after a timestamp is an error; cqlsh ignores it.
//   - out-of-range numbers are errors naming the type's range. cqlsh relies
//     on the driver, which rejects most, but a double such as 1e400 becomes
//     Infinity in cqlsh; in cqlload it is an error.
//   - float values are rounded once, from the text to 32 bits, as the
//     server rounds CQL literals; cqlsh rounds to 64 bits first, which
//     differs in rare double-rounding cases.
//   - THOUSANDSSEP is only dropped between digits; cqlsh removes it anywhere
//     ("1,,2" and ",12" are 12 for cqlsh, errors for cqlload).
//   - date also accepts an integer, read as Cassandra reads one: an
//     unsigned 32-bit day number on which 2147483648 is 1970-01-01. Eight
//     digits that read as yyyymmdd (20200102) are an error, as in cqlsh;
//     Cassandra would store a day five million years ago. Such a day number
//     is written with a leading zero or + (020200102), which no one types
//     for a date. cqlsh COPY TO writes dates outside years 1–9999 as signed
//     days since the epoch, which do not read back as such. time accepts
//     integer nanoseconds as CQL does.
//   - timestamp years of one to three digits (999-12-31 23:59:59.999+0000,
//     as cqlsh COPY TO writes years before 1000) load in cqlsh's default
//     DATETIMEFORMAT and as CQL literals. Under a format the user gives,
//     %Y takes four digits, as strptime's: 02/01/24 under %d/%m/%Y is an
//     error, not the year 24.
//   - duration: loads. cqlsh COPY FROM with prepared statements cannot
//     serialize durations at all.
//   - collections: a bare null inside a list, set or map is an error (the
//     server rejects nulls there; cqlsh stores the word null in a text
//     element). Strings may be double-quoted JSON-style
//     with JSON escapes, which cqlsh does not read. A map key whose type
//     contains colons (time, timestamp, inet) may be written bare if ": "
//     separates it from the value; cqlsh cannot split such keys.
//   - tuples and UDTs: null, an empty component and the unquoted NULL
//     marker are null, and a quoted string is its text; cqlsh stores the
//     word null in a text component (and rejects it in others), keeps an
//     empty text component of a tuple as the empty string, and stores
//     null for an empty string and for the marker, quoted or not, in a
//     UDT field. Extra tuple components are an error (cqlsh drops them). UDT field names
//     are CQL identifiers (ZIP is zip, "Zip" is Zip); cqlsh
//     compares them as written and silently stores null for a field it
//     does not match, ignores unknown fields and keeps the last of a
//     repeated one, where cqlload names the field in an error.
//   - inet: an IPv4 address must be four decimal numbers without leading
//     zeros. cqlsh reads IPv4 with inet_aton, which silently takes
//     010.0.0.1 as octal (8.0.0.1), 0x7f.1 as hex and 1.2.3 as 1.2.0.3.
//   - timeuuid must be version 1 before the server says so, so the error
//     names the row.
//   - ascii rejects non-ASCII bytes and text rejects invalid UTF-8 as row
//     errors (the server would fail the whole batch).
//   - cqlsh COPY TO escapes text beyond CSV quoting (backslashes doubled,
//     control characters as \n or \xHH) and cqlsh COPY FROM stores those
//     escapes as they are, so a cqlsh export does not load back unchanged.
//     Formats.CqlshEscapes (off by default, for the same result as cqlsh)
//     undoes them. It is off by default because in other files a backslash
//     is data: C:\new would lose its backslash.
//
// Things cqlsh accepts that cqlload does not: non-ASCII digits in numbers
// and IPv4 forms other than four plain decimal numbers (see inet above).
package schema
