package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/cqlload/cqlload/cqlsim"
	"github.com/cqlload/cqlload/internal/wholefile"
)

const exitUsage = 64

type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }
func (l *listFlag) Type() string       { return "file" }

// run is main without the process: tests call it. It stops on SIGINT/SIGTERM.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return runContext(ctx, args, stdout, stderr)
}

func runContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if os.Getenv("GOGC") == "" {
		// A simulator in store mode holds every row it was sent; a lazier
		// collector halves its CPU per row for twice the memory. GOGC overrides.
		debug.SetGCPercent(400)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		// The lazier collector must not take the machine: past half of
		// it the runtime collects harder. GOMEMLIMIT overrides.
		if total := memTotal(); total > 0 {
			debug.SetMemoryLimit(total / 2)
		}
	}
	cfg, statsAddr, err := parseFlags(args, stderr)
	if err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		fmt.Fprintln(stderr, "cqlsim:", err)
		return exitUsage
	}
	var logMu sync.Mutex
	cfg.Logf = func(format string, args ...any) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintf(stderr, format+"\n", args...)
	}
	cl, err := cqlsim.Start(ctx, cfg)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	defer cl.Close()
	var srv *http.Server
	if statsAddr != "" {
		ln, err := net.Listen("tcp", statsAddr)
		if err != nil {
			fmt.Fprintf(stderr, "cqlsim: stats address: %v\n", err)
			return 1
		}
		srv = &http.Server{Handler: cl.ControlHandler(), ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(ln) }()
		defer srv.Close()
		fmt.Fprintf(stdout, "stats on http://%s/stats\n", ln.Addr())
	}
	for i := 0; i < cl.NumNodes(); i++ {
		n := cl.Node(i)
		fmt.Fprintf(stdout, "node %d %s/%s listening on %s\n", i+1, n.DC(), n.Rack(), n.Addr())
	}
	fmt.Fprintln(stdout, "ready")
	<-ctx.Done()
	return 0
}

// httpUsage documents what --stats-addr serves (cqlsim.ControlHandler).
const httpUsage = `HTTP on --stats-addr (n counts from 1, as in /stats):
  GET  /stats                 per node: up, paused, requests by opcode, rows
                              written (as a replica, on its shard), batches,
                              errors sent by kind (injected and real), capacity
                              (setting, queue length, errors it caused); the process
  GET  /nodes/{n}             the node's state: up, paused, fault, capacity,
                              tokens (ascending)
  POST /nodes/{n}/stop        kill the node: connections closed, port refused,
                              data kept; the other nodes announce it DOWN
  POST /nodes/{n}/start       bring it back with its data, announced UP
                              (a running node: nothing to do, 200)
  POST /nodes/{n}/pause       freeze it as a long GC pause does: connections stay
                              open, new ones are accepted, nothing is read or
                              answered (heartbeats and STARTUP neither)
  POST /nodes/{n}/resume      execute and answer what queued, in order
  POST /nodes/{n}/drop-connections
                              close its client connections
  POST /nodes/{n}/faults?rate=R&kind=K&latency=L&fail_next=N
                              replace the node's faults; an absent parameter
                              is zero, so no parameters clears them. kind is
                              overloaded|write_timeout|unavailable|read_timeout|
                              server_error (write_timeout applies the write,
                              then answers WriteTimeout); latency DURATION or
                              MIN-MAX; fail_next fails the next N data requests
  POST /nodes/{n}/capacity?rows_per_sec=N&mode=M
                              set the node's capacity as --capacity (0:
                              unlimited) and, if given, its mode as --overload
Control requests answer the node's state as JSON. Errors: 404 no such node,
400 bad parameter (named), 405 wrong method, 409 pausing a stopped node,
403 an Origin other than the server's own, 415 a form or text body (what a
web page could send): parameters go in the query string.
Example: curl -X POST '127.0.0.1:8080/nodes/2/faults?rate=0.05&kind=write_timeout'
`

func parseFlags(args []string, stderr io.Writer) (cqlsim.Config, string, error) {
	var cfg cqlsim.Config
	// The same flag library as cqlload, so both take --name value and
	// --name=value alike.
	fs := pflag.NewFlagSet("cqlsim", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: cqlsim [flags]\n\nRuns a simulated Cassandra cluster until interrupted.\n\nFlags:")
		fs.PrintDefaults()
		fmt.Fprint(stderr, "\n"+httpUsage)
	}
	var (
		schemas                  listFlag
		auth, latency, statsAddr string
		overload                 string
		tlsCert, tlsKey, tlsCA   string
		dcs                      string
		nodes                    int
	)
	fs.IntVar(&nodes, "nodes", 3, "number of nodes (one data center) unless --dcs is given")
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1", "address of the first node; node i listens on the i-th next address")
	fs.IntVar(&cfg.Port, "port", 9042, "native protocol port of every node (0 picks a free one)")
	fs.StringVar(&dcs, "dcs", "", "data centers as NAME:NODES[:RACKS],… e.g. dc1:3,dc2:2")
	fs.IntVar(&cfg.VNodes, "vnodes", 16, "tokens per node")
	fs.IntVar(&cfg.Shards, "shards", 0, "announce ScyllaDB sharding with this many shards per node (0: none, as Cassandra)")
	fs.Int64Var(&cfg.Seed, "seed", 1, "seed for tokens, host ids and fault choices")
	fs.Var(&schemas, "schema", "CQL file to run at start (repeatable)")
	fs.StringVar(&auth, "auth", "", "enable PasswordAuthenticator with USER:PASS")
	fs.StringVar(&tlsCert, "tls-cert", "", "TLS certificate file (PEM)")
	fs.StringVar(&tlsKey, "tls-key", "", "TLS key file (PEM)")
	fs.StringVar(&tlsCA, "tls-ca", "", "CA file (PEM) to require and verify client certificates")
	fs.BoolVar(&cfg.Blackhole, "blackhole", false, "acknowledge writes without storing them")
	fs.Float64Var(&cfg.FailRate, "fail-rate", 0, "probability that a data request fails")
	fs.StringVar(&cfg.FailWith, "fail-with", "overloaded", "overloaded|write_timeout|unavailable|read_timeout|server_error")
	fs.StringVar(&latency, "latency", "", "added response latency: DURATION or MIN-MAX (e.g. 2ms, 1ms-5ms)")
	fs.IntVar(&cfg.Capacity, "capacity", 0, "rows each node coordinates per second (token bucket, 20 ms burst; a batch of k costs k); 0: unlimited")
	fs.StringVar(&overload, "overload", "shed", "beyond --capacity: shed (answer Overloaded)|queue (wait, WriteTimeout past 2s)|timeout (hold 2s, WriteTimeout)")
	fs.IntVar(&cfg.BatchWarnKB, "batch-warn-kb", 5, "multi-partition batch size that draws a warning (KiB)")
	fs.IntVar(&cfg.BatchFailKB, "batch-fail-kb", 50, "multi-partition batch size that is rejected (KiB)")
	fs.StringVar(&statsAddr, "stats-addr", "", "serve GET /stats as JSON and the control requests below on HOST:PORT")
	if err := fs.Parse(args); err != nil {
		return cfg, "", err
	}
	if fs.NArg() > 0 {
		return cfg, "", fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	if dcs != "" {
		cfg.DCs = dcs
		set := false
		fs.Visit(func(f *pflag.Flag) { set = set || f.Name == "nodes" })
		if set {
			cfg.Nodes = nodes
		}
	} else {
		if nodes < 1 {
			return cfg, "", fmt.Errorf("--nodes must be at least 1, got %d", nodes)
		}
		cfg.Nodes = nodes
	}
	if auth != "" {
		user, pass, ok := strings.Cut(auth, ":")
		if !ok || user == "" {
			return cfg, "", fmt.Errorf("--auth wants USER:PASS, got %q", auth)
		}
		cfg.Username, cfg.Password = user, pass
	}
	if latency != "" {
		lo, hi, err := cqlsim.ParseLatency(latency)
		if err != nil {
			return cfg, "", fmt.Errorf("--latency: %w", err)
		}
		cfg.LatencyMin, cfg.LatencyMax = lo, hi
	}
	if !(cfg.FailRate >= 0 && cfg.FailRate <= 1) { // NaN too
		return cfg, "", fmt.Errorf("--fail-rate must be in [0, 1], got %v", cfg.FailRate)
	}
	switch cfg.FailWith {
	case "overloaded", "write_timeout", "unavailable", "read_timeout", "server_error":
	default:
		return cfg, "", fmt.Errorf("--fail-with: unknown kind %q", cfg.FailWith)
	}
	if cfg.Capacity < 0 {
		return cfg, "", fmt.Errorf("--capacity must not be negative, got %d", cfg.Capacity)
	}
	mode, err := cqlsim.ParseOverloadMode(overload)
	if err != nil || overload == "" {
		return cfg, "", fmt.Errorf("--overload: unknown mode %q (want shed, queue or timeout)", overload)
	}
	cfg.Overload = mode
	for _, f := range schemas {
		b, err := wholefile.Read(f, "schema file", wholefile.MaxSchema)
		if err != nil {
			return cfg, "", fmt.Errorf("--schema: %w", err)
		}
		cfg.Schema = append(cfg.Schema, string(b))
	}
	if (tlsCert == "") != (tlsKey == "") {
		return cfg, "", errors.New("--tls-cert and --tls-key go together")
	}
	if tlsCert != "" {
		certPEM, err := wholefile.Read(tlsCert, "--tls-cert file", wholefile.MaxPEM)
		if err != nil {
			return cfg, "", fmt.Errorf("--tls-cert: %w", err)
		}
		keyPEM, err := wholefile.Read(tlsKey, "--tls-key file", wholefile.MaxPEM)
		if err != nil {
			return cfg, "", fmt.Errorf("--tls-key: %w", err)
		}
		cert, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return cfg, "", fmt.Errorf("TLS key pair: %w", err)
		}
		cfg.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		if tlsCA != "" {
			pem, err := wholefile.Read(tlsCA, "--tls-ca file", wholefile.MaxPEM)
			if err != nil {
				return cfg, "", fmt.Errorf("--tls-ca: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return cfg, "", fmt.Errorf("--tls-ca: no certificate in %s", tlsCA)
			}
			cfg.TLS.ClientCAs = pool
			cfg.TLS.ClientAuth = tls.RequireAndVerifyClientCert
		}
	} else if tlsCA != "" {
		return cfg, "", errors.New("--tls-ca needs --tls-cert and --tls-key")
	}
	return cfg, statsAddr, nil
}

// memTotal is the machine's memory in bytes from /proc/meminfo, or 0.
func memTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
			f := strings.Fields(rest)
			if len(f) == 2 && f[1] == "kB" {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb << 10
				}
			}
		}
	}
	return 0
}
