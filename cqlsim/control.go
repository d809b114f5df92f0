package cqlsim

import (
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
)

// ControlHandler serves GET /stats as StatsHandler does, and the control
// requests that drive the nodes' faults from outside the process (a test
// in another language, a chaos script). n counts from 1, as in /stats:
//
//	GET  /nodes/{n}                  the node's state
//	POST /nodes/{n}/stop             Node.Stop: killed, data kept, DOWN announced
//	POST /nodes/{n}/start            Node.Start: back, UP announced
//	POST /nodes/{n}/pause            Node.Pause: connected to, answering nothing
//	POST /nodes/{n}/resume           Node.Resume: answers what queued, in order
//	POST /nodes/{n}/drop-connections Node.DropConnections
//	POST /nodes/{n}/faults?rate=R&kind=K&latency=L&fail_next=N
//	                                 Node.SetFault: replaces the node's faults;
//	                                 an absent parameter is zero (no faults)
//	POST /nodes/{n}/capacity?rows_per_sec=N&mode=M
//	                                 Node.SetCapacity: N rows per second (0:
//	                                 unlimited); mode shed, queue or timeout,
//	                                 absent keeps the current one
//
// The parameters of faults and capacity come in the query string: rate a
// probability in [0, 1]; kind overloaded, write_timeout, unavailable,
// read_timeout or server_error (default overloaded); latency DURATION or
// MIN-MAX as ParseLatency reads it; fail_next how many data requests fail
// next whatever the rate.
//
// A control request answers 200 with the node's state as JSON: node,
// address, up, paused, fault {rate, kind, fail_next, latency} and
// capacity {rows_per_sec, mode}. Stopping
// a stopped node, starting a running one, resuming one that is not paused
// succeed and change nothing. Errors are plain text: 404 for a node that
// does not exist, 400 for bad parameters (each named), 405 for a method
// the path does not take, 409 to pause a stopped node, 500 or 503 when a
// node cannot start.
//
// Requests a web page could send are refused (see sameOriginOnly): 403 for
// an Origin other than the server's own, 415 for a body of a type an HTML
// form or a script's "simple" request sends without asking the server.
func (cl *Cluster) ControlHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /stats", cl.serveStats)
	mux.HandleFunc("GET /nodes/{n}", cl.nodeAction(func(*Node, *http.Request) (int, error) { return 0, nil }))
	mux.HandleFunc("POST /nodes/{n}/stop", cl.nodeAction(func(n *Node, _ *http.Request) (int, error) {
		n.Stop()
		return 0, nil
	}))
	mux.HandleFunc("POST /nodes/{n}/start", cl.nodeAction(func(n *Node, _ *http.Request) (int, error) {
		if err := n.Start(); err != nil {
			if cl.closed.Load() {
				return http.StatusServiceUnavailable, err
			}
			return http.StatusInternalServerError, err
		}
		return 0, nil
	}))
	mux.HandleFunc("POST /nodes/{n}/pause", cl.nodeAction(func(n *Node, _ *http.Request) (int, error) {
		if err := n.Pause(); err != nil {
			return http.StatusConflict, err
		}
		return 0, nil
	}))
	mux.HandleFunc("POST /nodes/{n}/resume", cl.nodeAction(func(n *Node, _ *http.Request) (int, error) {
		n.Resume()
		return 0, nil
	}))
	mux.HandleFunc("POST /nodes/{n}/drop-connections", cl.nodeAction(func(n *Node, _ *http.Request) (int, error) {
		n.DropConnections()
		return 0, nil
	}))
	mux.HandleFunc("POST /nodes/{n}/faults", cl.nodeAction(func(n *Node, r *http.Request) (int, error) {
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return http.StatusBadRequest, fmt.Errorf("cqlsim: %w", err)
		}
		f, err := parseFault(q)
		if err == nil {
			err = n.SetFault(f)
		}
		if err != nil {
			return http.StatusBadRequest, err
		}
		return 0, nil
	}))
	mux.HandleFunc("POST /nodes/{n}/capacity", cl.nodeAction(func(n *Node, r *http.Request) (int, error) {
		q, err := url.ParseQuery(r.URL.RawQuery)
		if err != nil {
			return http.StatusBadRequest, fmt.Errorf("cqlsim: %w", err)
		}
		rate, mode, err := parseCapacity(q)
		if err == nil {
			err = n.SetCapacity(rate, mode)
		}
		if err != nil {
			return http.StatusBadRequest, err
		}
		return 0, nil
	}))
	return sameOriginOnly(mux)
}

// sameOriginOnly refuses the requests any web page open in a browser on
// the machine could make to the control server: a browser lets a page
// send, without asking the server first, a POST of a form or of plain
// text to any address, and would let it stop nodes. Such requests carry
// an Origin naming the page (or "null"), or a body of one of the form
// types; the clients the server is for (tests, curl, chaos scripts) send
// neither. A browser's own requests to the server (an Origin of the same
// host:port) pass.
func sameOriginOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host && o != "https://"+r.Host {
			http.Error(w, fmt.Sprintf("cqlsim: control requests from origin %q are refused: only requests from the server's own origin or without one are taken", o), http.StatusForbidden)
			return
		}
		if hasBody(r) {
			ct := r.Header.Get("Content-Type")
			mt, _, err := mime.ParseMediaType(ct)
			if ct == "" || err != nil {
				// A browser sends text/plain when a page gives none;
				// a type that cannot be read may be any of them.
				mt = "text/plain"
			}
			switch mt {
			case "application/x-www-form-urlencoded", "multipart/form-data", "text/plain":
				http.Error(w, fmt.Sprintf("cqlsim: a control request with a %s body is refused: give the parameters in the query string, with no body", mt), http.StatusUnsupportedMediaType)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

// hasBody says whether r comes with a body: a length, or a chunked one of
// unknown length.
func hasBody(r *http.Request) bool {
	return r.ContentLength > 0 || r.ContentLength < 0 && r.Body != nil && r.Body != http.NoBody
}

// nodeAction resolves {n}, runs act on the node and answers its state, or
// act's error with act's status code.
func (cl *Cluster) nodeAction(act func(*Node, *http.Request) (int, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		s := r.PathValue("n")
		i, err := strconv.Atoi(s)
		if err != nil || i < 1 || i > len(cl.nodes) {
			http.Error(w, fmt.Sprintf("cqlsim: no node %q: nodes are numbered 1 to %d", s, len(cl.nodes)), http.StatusNotFound)
			return
		}
		n := cl.nodes[i-1]
		if code, err := act(n, r); err != nil {
			http.Error(w, err.Error(), code)
			return
		}
		writeJSON(w, n.state())
	}
}

type nodeState struct {
	Node    int        `json:"node"`
	Address string     `json:"address"`
	Up      bool       `json:"up"`
	Paused  bool       `json:"paused"`
	Fault   faultState `json:"fault"`
	// Capacity is Node.Capacity.
	Capacity capacityState `json:"capacity"`
	// Tokens are the node's tokens in ascending order, as system.local
	// and system.peers give them: a benchmark or test outside the
	// process reads the ring here to tell each node's share of its rows.
	Tokens []int64 `json:"tokens"`
}

type capacityState struct {
	RowsPerSec int          `json:"rows_per_sec"`
	Mode       OverloadMode `json:"mode"`
}

type faultState struct {
	Rate     float64 `json:"rate"`
	Kind     string  `json:"kind"`
	FailNext int     `json:"fail_next"`
	// Latency is as the latency parameter takes it; "" for none.
	Latency string `json:"latency"`
}

func (n *Node) state() nodeState {
	f := n.Fault()
	fs := faultState{Rate: f.Rate, Kind: f.Kind, FailNext: f.FailNext}
	if fs.Kind == "" {
		fs.Kind = "overloaded"
	}
	switch {
	case f.LatencyMax > f.LatencyMin:
		fs.Latency = f.LatencyMin.String() + "-" + f.LatencyMax.String()
	case f.LatencyMin > 0:
		fs.Latency = f.LatencyMin.String()
	}
	rate, mode := n.Capacity()
	return nodeState{Node: n.info.index + 1, Address: n.info.addr.String(), Up: n.Running(), Paused: n.Paused(), Fault: fs,
		Capacity: capacityState{RowsPerSec: rate, Mode: mode}, Tokens: append([]int64(nil), n.info.tokens...)}
}

// parseCapacity reads the parameters of POST /nodes/{n}/capacity:
// rows_per_sec is required, mode "" keeps the node's. Every bad parameter
// is reported, by name.
func parseCapacity(form url.Values) (int, OverloadMode, error) {
	var (
		rate    int
		mode    OverloadMode
		hasRate bool
	)
	params, errs := singleParams(form)
	for _, p := range params {
		k, v := p[0], p[1]
		switch k {
		case "rows_per_sec":
			hasRate = true
			r, err := strconv.Atoi(v)
			if err == nil {
				err = checkCapacity(r)
			} else {
				err = fmt.Errorf("%q is not a number of rows per second", v)
			}
			if err != nil {
				errs = append(errs, fmt.Errorf("rows_per_sec: %w", err))
			}
			rate = r
		case "mode":
			m, err := ParseOverloadMode(v)
			if err != nil || v == "" {
				errs = append(errs, fmt.Errorf("mode: %q is not shed, queue or timeout", v))
			}
			mode = m
		default:
			errs = append(errs, fmt.Errorf("unknown parameter %q (want rows_per_sec, mode)", k))
		}
	}
	if !hasRate {
		errs = append(errs, errors.New("rows_per_sec: missing (0 for unlimited)"))
	}
	if len(errs) > 0 {
		return 0, "", fmt.Errorf("cqlsim: bad capacity parameters:\n%w", errors.Join(errs...))
	}
	return rate, mode, nil
}

// singleParams lists a control request's parameters in name order, as
// name and value; a parameter given more than once is an error, by name.
func singleParams(form url.Values) (params [][2]string, errs []error) {
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if len(form[k]) != 1 {
			errs = append(errs, fmt.Errorf("%s: given %d times", k, len(form[k])))
			continue
		}
		params = append(params, [2]string{k, form[k][0]})
	}
	return params, errs
}

// parseFault reads the parameters of POST /nodes/{n}/faults. Every bad
// parameter is reported, by name, so one request shows all the mistakes.
func parseFault(form url.Values) (Fault, error) {
	var f Fault
	params, errs := singleParams(form)
	for _, p := range params {
		k, v := p[0], p[1]
		switch k {
		case "rate":
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || !(r >= 0 && r <= 1) {
				errs = append(errs, fmt.Errorf("rate: %q is not a probability in [0, 1]", v))
			}
			f.Rate = r
		case "kind":
			if _, err := errorForKind(v, 0, writeSimple); err != nil {
				errs = append(errs, fmt.Errorf("kind: %w", err))
			}
			f.Kind = v
		case "latency":
			lo, hi, err := ParseLatency(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("latency: %w", err))
			}
			f.LatencyMin, f.LatencyMax = lo, hi
		case "fail_next":
			c, err := strconv.Atoi(v)
			if err != nil || c < 0 {
				errs = append(errs, fmt.Errorf("fail_next: %q is not a count", v))
			}
			f.FailNext = c
		default:
			errs = append(errs, fmt.Errorf("unknown parameter %q (want rate, kind, latency, fail_next)", k))
		}
	}
	if len(errs) > 0 {
		return Fault{}, fmt.Errorf("cqlsim: bad fault parameters:\n%w", errors.Join(errs...))
	}
	return f, nil
}
