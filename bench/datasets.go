package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
)

// keyspaceCQL is the keyspace every dataset lives in. A replication factor
// of 1 makes the replica-coordinator share meaningful: with RF = nodes
// every node would own every token and the share would be 100% for free.
const keyspaceCQL = `CREATE KEYSPACE bench WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};`

// dataset is one standard input: its table and a deterministic generator.
type dataset struct {
	name   string
	table  string // keyspace.table
	schema string // CQL run after keyspaceCQL
	header string
	// row appends row i (0-based) as a CSV line without terminator.
	row func(dst []byte, i int64, r *rand.Rand) []byte
}

// datasets returns the standard datasets in the order they are run.
func datasets() []dataset {
	return []dataset{
		{
			name:  "narrow",
			table: "bench.narrow",
			schema: `CREATE TABLE bench.narrow (id uuid PRIMARY KEY, n int, big bigint, name text, ts timestamp, score double);
`,
			header: "id,n,big,name,ts,score",
			row:    narrowRow,
		},
		{
			name:  "1kb",
			table: "bench.kb",
			schema: `CREATE TABLE bench.kb (pkey text, ccol bigint, data text, PRIMARY KEY (pkey, ccol));
`,
			header: "pkey,ccol,data",
			row:    kbRow,
		},
		{
			name:  "wide",
			table: "bench.wide",
			schema: `CREATE TABLE bench.wide (pk int, ck int, val text, PRIMARY KEY (pk, ck));
`,
			header: "pk,ck,val",
			row:    wideRow,
		},
		{
			name:  "rich",
			table: "bench.rich",
			schema: `CREATE TYPE bench.address (street text, city text, zip int);
CREATE TABLE bench.rich (id bigint PRIMARY KEY, tags list<text>, nums set<int>, attrs map<text, int>, home frozen<address>, at timestamp);
`,
			header: "id,tags,nums,attrs,home,at",
			row:    richRow,
		},
	}
}

func findDataset(name string) (dataset, bool) {
	for _, d := range datasets() {
		if d.name == name {
			return d, true
		}
	}
	return dataset{}, false
}

// schemaCQL is the whole schema file given to cqlsim.
func schemaCQL() string {
	s := keyspaceCQL + "\n"
	for _, d := range datasets() {
		s += d.schema
	}
	return s
}

const (
	lower    = "abcdefghijklmnopqrstuvwxyz"
	alnum    = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	hexDigit = "0123456789abcdef"
	// epochMs anchors generated timestamps (2024-01-01T00:00:00Z) so that
	// every dataset spans the same plausible year.
	epochMs = 1704067200000
	yearMs  = 365 * 24 * 3600 * 1000
)

func appendRandom(dst []byte, r *rand.Rand, alphabet string, n int) []byte {
	for range n {
		dst = append(dst, alphabet[r.IntN(len(alphabet))])
	}
	return dst
}

func appendUUID(dst []byte, r *rand.Rand) []byte {
	hi, lo := r.Uint64(), r.Uint64()
	// Version 4, RFC 4122 variant, as random UUIDs in real exports are.
	hi = hi&^(0xf<<12) | 4<<12
	lo = lo&^(3<<62) | 2<<62
	var b [16]byte
	for k := range 8 {
		b[k] = byte(hi >> (56 - 8*k))
		b[8+k] = byte(lo >> (56 - 8*k))
	}
	for k, v := range b {
		if k == 4 || k == 6 || k == 8 || k == 10 {
			dst = append(dst, '-')
		}
		dst = append(dst, hexDigit[v>>4], hexDigit[v&15])
	}
	return dst
}

// appendTimestamp writes cqlsh COPY TO's format, milliseconds included.
func appendTimestamp(dst []byte, ms int64) []byte {
	return time.UnixMilli(ms).UTC().AppendFormat(dst, "2006-01-02 15:04:05.000-0700")
}

// narrowRow is about 100 bytes: uuid, int, bigint, text, timestamp, double.
func narrowRow(dst []byte, _ int64, r *rand.Rand) []byte {
	dst = appendUUID(dst, r)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, int64(int32(r.Uint32())), 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, r.Int64N(1<<40), 10)
	dst = append(dst, ',')
	dst = appendRandom(dst, r, lower, 8+r.IntN(8))
	dst = append(dst, ',')
	dst = appendTimestamp(dst, epochMs+r.Int64N(yearMs))
	dst = append(dst, ',')
	return strconv.AppendFloat(dst, math.Round(r.Float64()*1e6)/100, 'f', -1, 64)
}

// kbRow follows DSEBulkLoadTest: a random 12-character partition key, a
// bigint clustering column and 1,000 characters of data.
func kbRow(dst []byte, i int64, r *rand.Rand) []byte {
	dst = appendRandom(dst, r, alnum, 12)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, i, 10)
	dst = append(dst, ',')
	return appendRandom(dst, r, alnum, 1000)
}

// wideRows is the partition count of the wide dataset; rows go round-robin
// over them, so every chunk holds many rows of each partition.
const wideRows = 100

func wideRow(dst []byte, i int64, r *rand.Rand) []byte {
	dst = strconv.AppendInt(dst, i%wideRows, 10)
	dst = append(dst, ',')
	dst = strconv.AppendInt(dst, i/wideRows, 10)
	dst = append(dst, ',')
	return appendRandom(dst, r, lower, 40)
}

var (
	cities  = []string{"Springfield", "Riverside", "Franklin", "Greenville", "Bristol", "Clinton", "Fairview", "Salem"}
	streets = []string{"Main St", "Oak Ave", "Pine Rd", "Maple Dr", "Cedar Ln", "Elm St", "Lake View", "Hill Rd"}
)

// richRow holds a list, a set, a map, a UDT and a timestamp, in the CQL
// literal syntax cqlsh COPY TO writes.
func richRow(dst []byte, i int64, r *rand.Rand) []byte {
	dst = strconv.AppendInt(dst, i, 10)
	dst = append(dst, `,"[`...)
	for k := range 1 + r.IntN(4) {
		if k > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, '\'')
		dst = appendRandom(dst, r, lower, 3+r.IntN(6))
		dst = append(dst, '\'')
	}
	dst = append(dst, `]","{`...)
	base := r.IntN(1000)
	for k := range 1 + r.IntN(5) {
		if k > 0 {
			dst = append(dst, ", "...)
		}
		dst = strconv.AppendInt(dst, int64(base+k*7), 10)
	}
	dst = append(dst, `}","{`...)
	for k := range 1 + r.IntN(3) {
		if k > 0 {
			dst = append(dst, ", "...)
		}
		dst = append(dst, '\'', byte('a'+k), '\'', ':', ' ')
		dst = strconv.AppendInt(dst, int64(r.IntN(100000)), 10)
	}
	dst = append(dst, `}","{street: '`...)
	dst = strconv.AppendInt(dst, int64(1+r.IntN(999)), 10)
	dst = append(dst, ' ')
	dst = append(dst, streets[r.IntN(len(streets))]...)
	dst = append(dst, "', city: '"...)
	dst = append(dst, cities[r.IntN(len(cities))]...)
	dst = append(dst, "', zip: "...)
	dst = strconv.AppendInt(dst, int64(10000+r.IntN(90000)), 10)
	dst = append(dst, `}",`...)
	return appendTimestamp(dst, epochMs+r.Int64N(yearMs))
}

// seed makes every dataset reproducible; each dataset gets its own stream
// so that adding one does not change the others.
func seedFor(name string) (uint64, uint64) {
	var h uint64 = 14695981039346656037
	for k := 0; k < len(name); k++ {
		h = (h ^ uint64(name[k])) * 1099511628211
	}
	return 0x5eed, h
}

// generate writes rows rows of d (with a header line) to w and returns the
// bytes written. The same name and row count always give the same bytes.
func generate(w io.Writer, d dataset, rows int64) (int64, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	r := rand.New(rand.NewPCG(seedFor(d.name)))
	n, err := bw.WriteString(d.header + "\n")
	total := int64(n)
	if err != nil {
		return total, err
	}
	line := make([]byte, 0, 2048)
	for i := range rows {
		line = d.row(line[:0], i, r)
		line = append(line, '\n')
		n, err := bw.Write(line)
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, bw.Flush()
}

// generateFile writes the dataset to path.
func generateFile(path string, d dataset, rows int64) (int64, error) {
	f, err := os.Create(path)
	if err != nil {
		return 0, fmt.Errorf("dataset %s: %w", d.name, err)
	}
	n, err := generate(f, d, rows)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return n, fmt.Errorf("dataset %s: write %s: %w", d.name, path, err)
	}
	return n, nil
}
