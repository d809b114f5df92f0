//go:build unix

package cqlsim

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"io"
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/cqlload/cqlload/internal/cputime"
	"github.com/datastax/go-cassandra-native-protocol/frame"
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// The benchmarks measure cqlsim's own cost per written row. The client is a
// raw pipelining connection that patches the key into pre-encoded frames,
// so nearly all CPU the process spends is the simulator's: read, decode,
// validate, store (or not, in blackhole mode), acknowledge.

func BenchmarkStoreInsert(b *testing.B)          { benchInsert(b, false, 1) }
func BenchmarkBlackholeInsert(b *testing.B)      { benchInsert(b, true, 1) }
func BenchmarkStoreBatchInsert(b *testing.B)     { benchInsert(b, false, 20) }
func BenchmarkBlackholeBatchInsert(b *testing.B) { benchInsert(b, true, 20) }

// BenchmarkBlackholeInsertCapacity is BenchmarkBlackholeInsert with a
// capacity far above what it reaches: the cost of the token bucket.
func BenchmarkBlackholeInsertCapacity(b *testing.B) {
	benchInsertConfig(b, Config{Nodes: 1, Blackhole: true, Capacity: maxCapacity}, 1)
}

const benchInFlight = 256

func benchInsert(b *testing.B, blackhole bool, perBatch int) {
	benchInsertConfig(b, Config{Nodes: 1, Blackhole: blackhole}, perBatch)
}

func benchInsertConfig(b *testing.B, cfg Config, perBatch int) {
	cl := startCluster(b, cfg)
	if err := cl.Exec(`CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1};
		CREATE TABLE ks.t (k bigint, c int, name text, score double, tags list<text>, PRIMARY KEY (k, c))`); err != nil {
		b.Fatal(err)
	}
	nc, err := net.Dial("tcp", cl.Hosts()[0])
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	codec := frame.NewCodec()
	br := bufio.NewReaderSize(nc, 64<<10)
	call := func(m message.Message) message.Message {
		if err := codec.EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, 0, m), nc); err != nil {
			b.Fatal(err)
		}
		f, err := codec.DecodeFrame(br)
		if err != nil {
			b.Fatal(err)
		}
		return f.Body.Message
	}
	call(message.NewStartup())
	prep, ok := call(&message.Prepare{Query: "INSERT INTO ks.t (k, c, name, score, tags) VALUES (?, ?, ?, ?, ?)"}).(*message.PreparedResult)
	if !ok {
		b.Fatal("PREPARE failed")
	}
	const marker = 0x7eadbeef7eadbeef
	tags := []byte{0, 0, 0, 2, 0, 0, 0, 3, 'a', 'b', 'c', 0, 0, 0, 1, 'z'}
	values := func(k int64) []*primitive.Value {
		return []*primitive.Value{
			primitive.NewValue(binary.BigEndian.AppendUint64(nil, uint64(k))),
			primitive.NewValue([]byte{0, 0, 0, 1}),
			primitive.NewValue([]byte("a customer name")),
			primitive.NewValue([]byte{0x40, 0x09, 0x21, 0xfb, 0x54, 0x44, 0x2d, 0x18}),
			primitive.NewValue(tags),
		}
	}
	var msg message.Message
	if perBatch == 1 {
		msg = &message.Execute{QueryId: prep.PreparedQueryId, Options: &message.QueryOptions{Consistency: primitive.ConsistencyLevelLocalOne, PositionalValues: values(marker)}}
	} else {
		bm := &message.Batch{Type: primitive.BatchTypeUnlogged, Consistency: primitive.ConsistencyLevelLocalOne}
		for i := 0; i < perBatch; i++ {
			bm.Children = append(bm.Children, &message.BatchChild{Id: prep.PreparedQueryId, Values: values(marker)})
		}
		msg = bm
	}
	var tmpl bytes.Buffer
	if err := codec.EncodeFrame(frame.NewFrame(primitive.ProtocolVersion4, 0, msg), &tmpl); err != nil {
		b.Fatal(err)
	}
	frameBytes := tmpl.Bytes()
	var offsets []int
	mk := binary.BigEndian.AppendUint64(nil, marker)
	for i := 0; ; {
		j := bytes.Index(frameBytes[i:], mk)
		if j < 0 {
			break
		}
		offsets = append(offsets, i+j)
		i += j + 8
	}
	if len(offsets) != perBatch {
		b.Fatalf("found %d key slots, want %d", len(offsets), perBatch)
	}
	frames := b.N
	streams := make(chan int16, benchInFlight)
	for i := 0; i < benchInFlight; i++ {
		streams <- int16(i + 1)
	}
	readErr := make(chan error, 1)
	go func() {
		hdr := make([]byte, 9)
		for i := 0; i < frames; i++ {
			if _, err := io.ReadFull(br, hdr); err != nil {
				readErr <- err
				return
			}
			body := make([]byte, binary.BigEndian.Uint32(hdr[5:]))
			if _, err := io.ReadFull(br, body); err != nil {
				readErr <- err
				return
			}
			if hdr[4] != byte(primitive.OpCodeResult) {
				readErr <- io.ErrUnexpectedEOF
				return
			}
			streams <- int16(binary.BigEndian.Uint16(hdr[2:]))
		}
		readErr <- nil
	}()
	bw := bufio.NewWriterSize(nc, 64<<10)
	heap0 := liveHeap()
	cpu0 := processCPU()
	start := time.Now()
	b.ResetTimer()
	key := int64(0)
	for i := 0; i < frames; i++ {
		var s int16
		select {
		case s = <-streams:
		default:
			_ = bw.Flush()
			s = <-streams
		}
		binary.BigEndian.PutUint16(frameBytes[2:], uint16(s))
		for _, off := range offsets {
			binary.BigEndian.PutUint64(frameBytes[off:], uint64(key))
			key++
		}
		if _, err := bw.Write(frameBytes); err != nil {
			b.Fatal(err)
		}
	}
	_ = bw.Flush()
	if err := <-readErr; err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	elapsed := time.Since(start)
	cpu := processCPU() - cpu0
	rows := float64(frames * perBatch)
	b.ReportMetric(float64(cpu.Nanoseconds())/rows, "cpu-ns/row")
	b.ReportMetric(rows/elapsed.Seconds(), "rows/s")
	if !cfg.Blackhole {
		// What the stored rows keep alive (the test client's part is constant).
		b.ReportMetric(float64(liveHeap()-heap0)/rows, "heap-B/row")
	}
	if got := cl.Stats().Total().RowsWritten; got != int64(rows) {
		b.Fatalf("rows written %d, want %d", got, int64(rows))
	}
}

// liveHeap is the heap in use after a full collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// processCPU is the test process's CPU time so far (0 where the system
// does not say).
func processCPU() time.Duration {
	d, _ := cputime.Process()
	return d
}
