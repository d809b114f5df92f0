"""Drive a cqlsim cluster with the DataStax Python driver, default settings.

Usage: python3 pydriver_check.py HOST PORT [NODES]

Exits 0 and prints OK when every check passes; otherwise prints what
differed and exits 1. cqlsim's Go tests run it (TestPythonDriver).
"""
import datetime
import decimal
import random
import sys
import uuid

from cassandra import InvalidRequest
from cassandra.cluster import Cluster
from cassandra.murmur3 import murmur3
from cassandra.query import BatchStatement, BatchType, SimpleStatement
from cassandra.util import Date, Duration, Time

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


class Addr(object):
    def __init__(self, street, zip):
        self.street = street
        self.zip = zip


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    want_nodes = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    cluster = Cluster([host], port=port)
    session = cluster.connect()
    hosts = cluster.metadata.all_hosts()
    check(len(hosts) == want_nodes, "hosts: got %d, want %d: %s" % (len(hosts), want_nodes, hosts))
    for h in hosts:
        check(h.datacenter is not None and h.rack is not None, "host %s lacks dc/rack" % h)
    check(cluster.metadata.partitioner == "org.apache.cassandra.dht.Murmur3Partitioner",
          "partitioner %r" % cluster.metadata.partitioner)
    check(len(cluster.metadata.token_map.ring) == want_nodes * 16 if cluster.metadata.token_map else False,
          "token ring size")

    session.execute("CREATE KEYSPACE py WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}")
    session.execute("CREATE TYPE py.addr (street text, zip int)")
    session.execute("""
        CREATE TABLE py.all_types (
            k int PRIMARY KEY, a ascii, b bigint, bl blob, bo boolean, d date, de decimal, db double,
            du duration, f float, i inet, si smallint, t text, tm time, ts timestamp, tu timeuuid,
            ti tinyint, u uuid, vc varchar, vi varint, l list<int>, s set<text>, m map<text, int>,
            fl frozen<list<text>>, tp tuple<int, text>, ud frozen<addr>, nested map<text, frozen<list<int>>>)""")
    cluster.refresh_schema_metadata()
    ks = cluster.metadata.keyspaces.get("py")
    check(ks is not None, "keyspace py not in metadata")
    if ks is not None:
        check(ks.replication_strategy.replication_factor == 2, "replication factor")
        check("addr" in ks.user_types, "user type addr missing: %s" % list(ks.user_types))
        tbl = ks.tables.get("all_types")
        check(tbl is not None, "table all_types not in metadata")
        if tbl is not None:
            check([c.name for c in tbl.partition_key] == ["k"], "partition key")
            check(tbl.columns["m"].cql_type == "map<text, int>", "m type %r" % tbl.columns["m"].cql_type)
            check(tbl.columns["ud"].cql_type == "frozen<addr>", "ud type %r" % tbl.columns["ud"].cql_type)
            check(len(tbl.columns) == 27, "column count %d" % len(tbl.columns))

    cluster.register_user_type("py", "addr", Addr)
    cols = ["k", "a", "b", "bl", "bo", "d", "de", "db", "du", "f", "i", "si", "t", "tm", "ts", "tu", "ti",
            "u", "vc", "vi", "l", "s", "m", "fl", "tp", "ud", "nested"]
    ins = session.prepare("INSERT INTO py.all_types (%s) VALUES (%s)" % (", ".join(cols), ", ".join("?" * len(cols))))
    check(ins.routing_key_indexes == [0], "routing key indexes %r" % ins.routing_key_indexes)
    tu = uuid.uuid1()
    u = uuid.uuid4()
    ts = datetime.datetime(2024, 5, 6, 7, 8, 9, 123000)
    values = [1, "ascii", -(2 ** 62), b"\x00\xffblob", True, Date(datetime.date(2023, 12, 31)),
              decimal.Decimal("-123.4500"), 2.5, Duration(1, 2, 3000000000), 1.5, "10.1.2.3", -32768, "tëxt ✓",
              Time(datetime.time(13, 14, 15, 16)), ts, tu, 127, u, "varchar", 2 ** 100, [3, 1, 2],
              {"b", "a"}, {"x": 1, "y": 2}, ["p", "q"], (7, "seven"), Addr("main st", 12345),
              {"n": [1, 2, 3]}]
    session.execute(ins, values)
    sel = session.prepare("SELECT %s FROM py.all_types WHERE k = ?" % ", ".join(cols))
    row = session.execute(sel, [1]).one()
    check(row is not None, "row 1 not found")
    if row is not None:
        got = list(row)
        expect = list(values)
        expect[5] = Date(datetime.date(2023, 12, 31))
        expect[21] = {"a", "b"}
        for name, g, e in zip(cols, got, expect):
            if name == "ud":
                ok = g.street == e.street and g.zip == e.zip
            elif name == "s":
                ok = set(g) == e
            elif name == "l" or name == "fl":
                ok = list(g) == e
            elif name == "m" or name == "nested":
                ok = dict((k, list(v) if isinstance(v, list) else v) for k, v in g.items()) == e
            elif name == "tp":
                ok = tuple(g) == e
            elif name == "i":
                ok = str(g) == e
            else:
                ok = g == e
            check(ok, "column %s: got %r, want %r" % (name, g, e))

    # Nulls, and a second row through an unprepared statement.
    session.execute("INSERT INTO py.all_types (k, t) VALUES (2, 'two')")
    row = session.execute("SELECT t, b, l FROM py.all_types WHERE k = 2").one()
    check(row is not None and row.t == "two" and row.b is None and row.l is None, "row 2: %r" % (row,))

    # Tokens: SELECT token(k) must equal the driver's own murmur3 for random keys.
    session.execute("CREATE TABLE py.tok (k blob PRIMARY KEY, v int)")
    tins = session.prepare("INSERT INTO py.tok (k, v) VALUES (?, ?)")
    rnd = random.Random(42)
    keys = set()
    while len(keys) < 1000:
        keys.add(bytes(rnd.getrandbits(8) for _ in range(rnd.randint(1, 40))))
    for i, k in enumerate(sorted(keys)):
        session.execute(tins, [k, i])
    n = 0
    for r in session.execute("SELECT token(k), k FROM py.tok"):
        n += 1
        want = murmur3(r.k)
        check(r.system_token_k == want, "token(%r) = %d, want %d" % (r.k, r.system_token_k, want))
    check(n == 1000, "token scan returned %d rows, want 1000" % n)

    # The driver's paging: 1,000 rows in pages of 64, each row once.
    seen = set()
    for r in session.execute(SimpleStatement("SELECT k FROM py.tok", fetch_size=64)):
        check(r.k not in seen, "paging returned %r twice" % (r.k,))
        seen.add(r.k)
    check(len(seen) == 1000, "paged scan returned %d rows, want 1000" % len(seen))

    # A batch and counters.
    session.execute("CREATE TABLE py.cnt (k text PRIMARY KEY, n counter)")
    b = BatchStatement(batch_type=BatchType.COUNTER)
    inc = session.prepare("UPDATE py.cnt SET n = n + ? WHERE k = ?")
    for i in range(5):
        b.add(inc, (i, "a"))
    session.execute(b)
    row = session.execute("SELECT n FROM py.cnt WHERE k = 'a'").one()
    check(row is not None and row.n == 10, "counter after batch: %r" % (row,))

    # Nulls inside collections. A null literal, or a null bound to a marker
    # inside a collection literal, is refused by the server as Cassandra
    # refuses it; nothing is written.
    session.execute("CREATE TABLE py.coll (k int PRIMARY KEY, m map<text, int>, l list<int>, s set<int>)")
    refused = [
        ("INSERT INTO py.coll (k, m) VALUES (1, {'a': null})", None),
        ("INSERT INTO py.coll (k, l) VALUES (1, [1, null])", None),
        ("INSERT INTO py.coll (k, s) VALUES (1, {null})", None),
        ("UPDATE py.coll SET m = m + {'a': null} WHERE k = 1", None),
        ("INSERT INTO py.coll (k, l) VALUES (1, [1, ?])", [None]),
        ("INSERT INTO py.coll (k, m) VALUES (1, {'a': ?})", [None]),
    ]
    for q, args in refused:
        try:
            if args is None:
                session.execute(q)
            else:
                session.execute(session.prepare(q), args)
            check(False, "%s %r was accepted" % (q, args))
        except InvalidRequest as e:
            check("null is not supported inside collections" in str(e), "%s %r: %s" % (q, args, e))
    check(session.execute("SELECT k FROM py.coll WHERE k = 1").one() is None, "a refused write left a row")
    # None inside a bound collection is no null on the wire: this driver
    # writes it as an empty value, which Cassandra's Int32Type accepts, and
    # reads it back as None.
    session.execute(session.prepare("INSERT INTO py.coll (k, m, l) VALUES (?, ?, ?)"), [2, {"a": None}, [1, None]])
    row = session.execute("SELECT m, l FROM py.coll WHERE k = 2").one()
    check(row is not None and dict(row.m) == {"a": None} and list(row.l) == [1, None],
          "None inside bound collections read back as %r" % (row,))

    cluster.shutdown()
    if failures:
        for f in failures[:50]:
            print("FAIL:", f)
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
