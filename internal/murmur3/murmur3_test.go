package murmur3

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
)

func TestTokenKnownKeys(t *testing.T) {
	tests := []struct {
		name string
		key  []byte
		want int64
	}{
		{"empty", nil, 0},
		{"ascii 123", []byte("123"), -7468325962851647638},
		{"eight 0xfe", bytes.Repeat([]byte{0xfe}, 8), -8927430733708461935},
		{"eight 0x10", bytes.Repeat([]byte{0x10}, 8), 1446172840243228796},
		{"fifty bytes", bytes.Repeat([]byte{0x00, 0xff, 0x10, 0xfa, 0x99}, 10), 5837342703291459765},
	}
	for _, tt := range tests {
		if got := Token(tt.key); got != tt.want {
			t.Errorf("%s: Token(%x) = %d, want %d", tt.name, tt.key, got, tt.want)
		}
	}
}

// TestTokenVectors checks keys whose tokens the DataStax Python driver's
// cassandra.murmur3 computed (the function cqlsh and the driver route with).
func TestTokenVectors(t *testing.T) {
	f, err := os.Open("../../testdata/murmur3-vectors.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		keyHex, tokStr, ok := strings.Cut(line, ",")
		if !ok {
			t.Fatalf("bad vector line %q", line)
		}
		key, err := hex.DecodeString(keyHex)
		if err != nil {
			t.Fatalf("bad key in %q: %v", line, err)
		}
		want, err := strconv.ParseInt(tokStr, 10, 64)
		if err != nil {
			t.Fatalf("bad token in %q: %v", line, err)
		}
		if got := Token(key); got != want {
			t.Errorf("Token(%s) = %d, want %d", keyHex, got, want)
		}
		n++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 900 {
		t.Fatalf("only %d vectors read, want at least 900", n)
	}
}

func BenchmarkToken16(b *testing.B) {
	key := []byte("0123456789abcdef")
	for b.Loop() {
		Token(key)
	}
}

func FuzzToken(f *testing.F) {
	f.Add([]byte("123"))
	f.Fuzz(func(t *testing.T, key []byte) {
		if Token(key) == -1<<63 {
			t.Fatalf("Token(%x) returned the reserved minimum token", key)
		}
	})
}
