package cqlsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// DC describes one data center of the simulated cluster.
type DC struct {
	Name  string
	Nodes int
	// Racks is the number of racks the DC's nodes are spread over round-robin
	// (rack1, rack2, …); 0 means 1.
	Racks int
}

// ParseDCs parses a topology such as "dc1:3,dc2:2" or "dc1:4:2" (name:nodes[:racks]).
func ParseDCs(s string) ([]DC, error) {
	var dcs []DC
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		f := strings.Split(part, ":")
		if len(f) < 2 || len(f) > 3 || f[0] == "" {
			return nil, fmt.Errorf("data center %q: want NAME:NODES or NAME:NODES:RACKS", part)
		}
		if seen[f[0]] {
			return nil, fmt.Errorf("data center %q listed twice", f[0])
		}
		seen[f[0]] = true
		n, err := strconv.Atoi(f[1])
		if err != nil || n < 1 {
			return nil, fmt.Errorf("data center %q: node count %q must be a positive integer", f[0], f[1])
		}
		dc := DC{Name: f[0], Nodes: n, Racks: 1}
		if len(f) == 3 {
			r, err := strconv.Atoi(f[2])
			if err != nil || r < 1 {
				return nil, fmt.Errorf("data center %q: rack count %q must be a positive integer", f[0], f[2])
			}
			dc.Racks = r
		}
		dcs = append(dcs, dc)
	}
	if len(dcs) == 0 {
		return nil, fmt.Errorf("empty data center list %q", s)
	}
	return dcs, nil
}

// nodeInfo is the static identity of a node: where it listens and what it owns.
type nodeInfo struct {
	index    int
	addr     netip.Addr
	dc, rack string
	hostID   [16]byte
	tokens   []int64
}

type ringEntry struct {
	token int64
	node  int
}

// topology is immutable after Start: nodes, their tokens and the sorted ring.
type topology struct {
	nodes []*nodeInfo
	ring  []ringEntry
	// dcNodes and dcRacks count nodes and distinct racks per DC for NTS placement.
	dcNodes map[string]int
	dcRacks map[string]int
	dcOrder []string
}

func newTopology(first netip.Addr, dcs []DC, vnodes int, seed int64) (*topology, error) {
	if !first.Is4() {
		return nil, fmt.Errorf("address %s: only IPv4 loopback-style addresses are supported", first)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	t := &topology{dcNodes: map[string]int{}, dcRacks: map[string]int{}}
	used := map[int64]bool{}
	addr := first
	for _, dc := range dcs {
		racks := max(dc.Racks, 1)
		t.dcOrder = append(t.dcOrder, dc.Name)
		t.dcNodes[dc.Name] = dc.Nodes
		t.dcRacks[dc.Name] = min(racks, dc.Nodes)
		for j := 0; j < dc.Nodes; j++ {
			n := &nodeInfo{
				index: len(t.nodes),
				addr:  addr,
				dc:    dc.Name,
				rack:  "rack" + strconv.Itoa(j%racks+1),
			}
			// Host ids are version-4-shaped UUIDs drawn from the seed so that a
			// given seed always describes the same cluster.
			for k := 0; k < 16; k += 8 {
				v := rng.Uint64()
				for b := 0; b < 8; b++ {
					n.hostID[k+b] = byte(v >> (8 * b))
				}
			}
			n.hostID[6] = n.hostID[6]&0x0f | 0x40
			n.hostID[8] = n.hostID[8]&0x3f | 0x80
			for len(n.tokens) < vnodes {
				tok := int64(rng.Uint64())
				if tok == math.MinInt64 || used[tok] {
					continue
				}
				used[tok] = true
				n.tokens = append(n.tokens, tok)
			}
			sort.Slice(n.tokens, func(a, b int) bool { return n.tokens[a] < n.tokens[b] })
			for _, tok := range n.tokens {
				t.ring = append(t.ring, ringEntry{tok, n.index})
			}
			t.nodes = append(t.nodes, n)
			addr = addr.Next()
			if !addr.IsValid() || !addr.Is4() {
				return nil, fmt.Errorf("ran out of IPv4 addresses after %s", first)
			}
		}
	}
	sort.Slice(t.ring, func(a, b int) bool { return t.ring[a].token < t.ring[b].token })
	return t, nil
}

// ringIndex is the index of the first ring entry whose token is >= tok,
// wrapping to 0: the vnode that owns tok.
func (t *topology) ringIndex(tok int64) int {
	i := sort.Search(len(t.ring), func(i int) bool { return t.ring[i].token >= tok })
	if i == len(t.ring) {
		return 0
	}
	return i
}

// placement computes, for every ring entry, the replicas of the range it
// ends, following Cassandra's SimpleStrategy and NetworkTopologyStrategy.
func (t *topology) placement(r replication) [][]int {
	out := make([][]int, len(t.ring))
	for i := range t.ring {
		out[i] = t.replicasFrom(i, r)
	}
	return out
}

func (t *topology) replicasFrom(start int, r replication) []int {
	var reps []int
	chosen := make([]bool, len(t.nodes))
	n := len(t.ring)
	switch r.strategy {
	case strategySimple:
		want := min(r.factor, len(t.nodes))
		for k := 0; k < n && len(reps) < want; k++ {
			node := t.ring[(start+k)%n].node
			if !chosen[node] {
				chosen[node] = true
				reps = append(reps, node)
			}
		}
	case strategyNTS:
		// Per DC: take nodes from racks not yet used first; a node from an
		// already used rack is accepted only while the DC has more replicas to
		// place than racks, as Cassandra's NetworkTopologyStrategy does.
		need := map[string]int{}
		repeats := map[string]int{}
		seenRacks := map[string]map[string]bool{}
		total := 0
		for dc, rf := range r.dcs {
			nn := t.dcNodes[dc]
			if nn == 0 || rf <= 0 {
				continue
			}
			need[dc] = min(rf, nn)
			repeats[dc] = need[dc] - t.dcRacks[dc]
			seenRacks[dc] = map[string]bool{}
			total += need[dc]
		}
		var skipped []int
		for k := 0; k < n && total > 0; k++ {
			node := t.ring[(start+k)%n].node
			if chosen[node] {
				continue
			}
			info := t.nodes[node]
			if need[info.dc] == 0 {
				continue
			}
			switch {
			case !seenRacks[info.dc][info.rack]:
				seenRacks[info.dc][info.rack] = true
			case repeats[info.dc] > 0:
				repeats[info.dc]--
			default:
				skipped = append(skipped, node)
				continue
			}
			chosen[node] = true
			reps = append(reps, node)
			need[info.dc]--
			total--
		}
		// Cassandra fills remaining places from skipped nodes in ring order.
		for _, node := range skipped {
			if total == 0 {
				break
			}
			info := t.nodes[node]
			if chosen[node] || need[info.dc] == 0 {
				continue
			}
			chosen[node] = true
			reps = append(reps, node)
			need[info.dc]--
			total--
		}
	default: // local strategy: the coordinator only; callers handle it.
	}
	return reps
}

type strategyKind int

const (
	strategyLocal strategyKind = iota
	strategySimple
	strategyNTS
)

// replication is a keyspace's parsed replication map.
type replication struct {
	strategy strategyKind
	factor   int            // SimpleStrategy
	dcs      map[string]int // NetworkTopologyStrategy
	// options is the map as system_schema.keyspaces shows it: full class name.
	options map[string]string
}

const (
	classSimple = "org.apache.cassandra.locator.SimpleStrategy"
	classNTS    = "org.apache.cassandra.locator.NetworkTopologyStrategy"
	classLocal  = "org.apache.cassandra.locator.LocalStrategy"
)

func parseReplication(m map[string]string, t *topology) (replication, error) {
	class := ""
	for k, v := range m {
		if strings.EqualFold(k, "class") {
			class = v
		}
	}
	short := class[strings.LastIndex(class, ".")+1:]
	r := replication{options: map[string]string{}}
	switch short {
	case "SimpleStrategy":
		r.strategy = strategySimple
		r.options["class"] = classSimple
		rf, ok := m["replication_factor"]
		if !ok {
			return r, fmt.Errorf("SimpleStrategy requires a replication_factor strategy option")
		}
		n, err := strconv.Atoi(rf)
		if err != nil || n < 0 {
			return r, fmt.Errorf("replication_factor must be a non-negative integer, got %q", rf)
		}
		r.factor = n
		r.options["replication_factor"] = rf
		for k := range m {
			if k != "class" && k != "replication_factor" {
				return r, fmt.Errorf("unrecognized strategy option {%s} passed to SimpleStrategy for keyspace", k)
			}
		}
	case "NetworkTopologyStrategy":
		r.strategy = strategyNTS
		r.options["class"] = classNTS
		r.dcs = map[string]int{}
		for k, v := range m {
			if k == "class" {
				continue
			}
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return r, fmt.Errorf("replication factor for %s must be a non-negative integer, got %q", k, v)
			}
			if k == "replication_factor" {
				// Cassandra 4 expands a default replication_factor to every DC.
				for _, dc := range t.dcOrder {
					if _, set := m[dc]; !set {
						r.dcs[dc] = n
						r.options[dc] = v
					}
				}
				continue
			}
			if _, known := t.dcNodes[k]; !known {
				return r, fmt.Errorf("unrecognized strategy option {%s} passed to NetworkTopologyStrategy for keyspace; data centers are %s", k, strings.Join(t.dcOrder, ", "))
			}
			r.dcs[k] = n
			r.options[k] = v
		}
	case "LocalStrategy":
		r.strategy = strategyLocal
		r.options["class"] = classLocal
	case "":
		return r, fmt.Errorf("missing replication strategy class")
	default:
		return r, fmt.Errorf("unable to find replication strategy class '%s'", class)
	}
	return r, nil
}
