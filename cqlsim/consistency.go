package cqlsim

import (
	"github.com/datastax/go-cassandra-native-protocol/message"
	"github.com/datastax/go-cassandra-native-protocol/primitive"
)

// The simulator keeps one copy of every row, but it answers as Cassandra
// would when too few replicas of a token are up for the requested
// consistency level: an Unavailable error. A stopped node thus takes its
// ranges away at RF 1, and QUORUM fails at RF 3 with two nodes stopped.

// unavailable checks that enough replicas of token are running for cl and
// returns the Unavailable error otherwise.
func (n *Node) unavailable(ks *keyspace, token int64, cl primitive.ConsistencyLevel) error {
	if ks == nil || ks.repl.strategy == strategyLocal || cl == primitive.ConsistencyLevelAny {
		return nil
	}
	reps := ks.placement[n.cl.topo.ringIndex(token)]
	local := n.info.dc
	// Quorums count the replication factor as configured, even beyond the
	// nodes there are: RF 3 on one node cannot reach QUORUM, as in Cassandra.
	rf, rfLocal := ks.repl.factor, ks.repl.factor
	if ks.repl.strategy == strategyNTS {
		rf, rfLocal = 0, ks.repl.dcs[local]
		for _, f := range ks.repl.dcs {
			rf += f
		}
	}
	var alive, aliveLocal int
	var aliveDC map[string]int
	if cl == primitive.ConsistencyLevelEachQuorum {
		aliveDC = map[string]int{}
	}
	for _, r := range reps {
		node := n.cl.nodes[r]
		if !node.up.Load() {
			continue
		}
		alive++
		if node.info.dc == local || ks.repl.strategy != strategyNTS {
			aliveLocal++
		}
		if aliveDC != nil {
			aliveDC[node.info.dc]++
		}
	}
	need, have := 0, alive
	switch cl {
	case primitive.ConsistencyLevelOne:
		need = 1
	case primitive.ConsistencyLevelTwo:
		need = 2
	case primitive.ConsistencyLevelThree:
		need = 3
	case primitive.ConsistencyLevelQuorum, primitive.ConsistencyLevelSerial:
		need = rf/2 + 1
	case primitive.ConsistencyLevelAll:
		need = rf
	case primitive.ConsistencyLevelLocalOne:
		need, have = 1, aliveLocal
	case primitive.ConsistencyLevelLocalQuorum, primitive.ConsistencyLevelLocalSerial:
		need, have = rfLocal/2+1, aliveLocal
	case primitive.ConsistencyLevelEachQuorum:
		for dc, f := range ks.repl.dcs {
			if q := f/2 + 1; f > 0 && aliveDC[dc] < q {
				return &reqError{&message.Unavailable{ErrorMessage: "Cannot achieve consistency level EACH_QUORUM in DC " + dc,
					Consistency: cl, Required: int32(q), Alive: int32(aliveDC[dc])}}
			}
		}
		return nil
	default:
		return nil
	}
	if have >= need {
		return nil
	}
	return &reqError{&message.Unavailable{ErrorMessage: "Cannot achieve consistency level " + cl.String(),
		Consistency: cl, Required: int32(need), Alive: int32(have)}}
}

// checkMutations applies unavailable to every row of a write.
func (n *Node) checkMutations(muts []*mutation, cl primitive.ConsistencyLevel) error {
	for _, m := range muts {
		if err := n.unavailable(m.t.keyspace, m.token, cl); err != nil {
			return err
		}
	}
	return nil
}
