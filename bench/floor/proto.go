package floor

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Native protocol v4 (the CQL binary protocol spec, native_protocol_v4.spec):
// only what a writing client needs.
const (
	protoVersion = 0x04 // request; responses carry 0x84
	headerLen    = 9    // version, flags, stream (2), opcode, length (4)

	opError         = 0x00
	opStartup       = 0x01
	opReady         = 0x02
	opAuthenticate  = 0x03
	opOptions       = 0x05
	opSupported     = 0x06
	opResult        = 0x08
	opPrepare       = 0x09
	opExecute       = 0x0A
	opBatch         = 0x0D
	opAuthChallenge = 0x0E
	opAuthResponse  = 0x0F
	opAuthSuccess   = 0x10

	flagTracing       = 0x02
	flagCustomPayload = 0x04
	flagWarning       = 0x08

	resultPrepared = 0x0004

	queryFlagValues = 0x01

	batchUnlogged = 1
	batchCounter  = 2
	batchPrepared = 1 // a batch child given by prepared id

	// maxStreams is how many stream ids a v3+ connection has.
	maxStreams = 32768
)

// beginFrame appends a request header with stream 0 and no length yet.
func beginFrame(dst []byte, op byte) []byte {
	return append(dst, protoVersion, 0, 0, 0, op, 0, 0, 0, 0)
}

// endFrame sets the length of the frame starting at start in f.
func endFrame(f []byte, start int) {
	binary.BigEndian.PutUint32(f[start+5:], uint32(len(f)-start-headerLen))
}

func appendShort(b []byte, v uint16) []byte { return binary.BigEndian.AppendUint16(b, v) }

func appendString(b []byte, s string) []byte {
	return append(appendShort(b, uint16(len(s))), s...)
}

func appendLongString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

func appendShortBytes(b, v []byte) []byte {
	return append(appendShort(b, uint16(len(v))), v...)
}

// appendValue is a [bytes] value; nil is a null (length -1), as gocql
// sends a value that marshals to nil.
func appendValue(b, v []byte) []byte {
	if v == nil {
		return binary.BigEndian.AppendUint32(b, 0xFFFFFFFF)
	}
	return append(binary.BigEndian.AppendUint32(b, uint32(len(v))), v...)
}

// header is a response frame's header.
type header struct {
	flags  byte
	stream int16
	op     byte
	length int
}

func parseHeader(h []byte) (header, error) {
	if h[0] != 0x80|protoVersion {
		return header{}, fmt.Errorf("floor: response version byte %#x, want %#x", h[0], 0x80|protoVersion)
	}
	return header{
		flags:  h[1],
		stream: int16(binary.BigEndian.Uint16(h[2:])),
		op:     h[4],
		length: int(binary.BigEndian.Uint32(h[5:])),
	}, nil
}

// readFrame reads one response, body whole.
func readFrame(r *bufio.Reader) (header, []byte, error) {
	var h [headerLen]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return header{}, nil, err
	}
	hd, err := parseHeader(h[:])
	if err != nil {
		return hd, nil, err
	}
	body := make([]byte, hd.length)
	if _, err := io.ReadFull(r, body); err != nil {
		return hd, nil, err
	}
	return hd, body, nil
}

// decoder reads a response body; the first short read sets err.
type decoder struct {
	b   []byte
	err error
}

var errShort = errors.New("floor: response body too short")

func (d *decoder) take(n int) []byte {
	if d.err != nil || n < 0 || n > len(d.b) {
		d.err = errShort
		return nil
	}
	v := d.b[:n]
	d.b = d.b[n:]
	return v
}

func (d *decoder) short() int {
	if v := d.take(2); v != nil {
		return int(binary.BigEndian.Uint16(v))
	}
	return 0
}

func (d *decoder) int() int {
	if v := d.take(4); v != nil {
		return int(int32(binary.BigEndian.Uint32(v)))
	}
	return 0
}

func (d *decoder) string() string { return string(d.take(d.short())) }

func (d *decoder) stringList() []string {
	n := d.short()
	var out []string
	for range n {
		out = append(out, d.string())
	}
	return out
}

// bodyOf skips what the header's flags put before a response's own body:
// a tracing id, warnings, a custom payload.
func bodyOf(h header, body []byte) *decoder {
	d := &decoder{b: body}
	if h.flags&flagTracing != 0 {
		d.take(16)
	}
	if h.flags&flagWarning != 0 {
		d.stringList()
	}
	if h.flags&flagCustomPayload != 0 {
		for range d.short() {
			d.string()
			d.take(d.int())
		}
	}
	return d
}

// ServerError is an ERROR response.
type ServerError struct {
	Code    int
	Message string
}

func (e *ServerError) Error() string {
	return fmt.Sprintf("server error %#04x: %s", e.Code, e.Message)
}

// errorOf reads an ERROR response's code and message.
func errorOf(h header, body []byte) error {
	d := bodyOf(h, body)
	e := &ServerError{Code: d.int(), Message: d.string()}
	if d.err != nil {
		return d.err
	}
	return e
}

// expect checks that a setup response has opcode want; an ERROR is
// returned as one.
func expect(h header, body []byte, want byte, what string) (*decoder, error) {
	switch h.op {
	case want:
		return bodyOf(h, body), nil
	case opError:
		return nil, fmt.Errorf("floor: %s: %w", what, errorOf(h, body))
	}
	return nil, fmt.Errorf("floor: %s: response opcode %#x, want %#x", what, h.op, want)
}
