"""Check, with the DataStax Python driver, the writes a migration relies on.

Usage: python3 pydriver_writes.py HOST PORT

USING TIMESTAMP/TTL with named and positional bind markers, writetime()
and ttl(), collection and counter updates, deletions, conditional writes
and batches (was_applied and the current values), and functions in
values. Exits 0 and prints OK when every check passes; otherwise prints
what differed and exits 1. cqlsim's Go tests run it (TestPythonDriver).
"""
import datetime
import sys
import uuid

from cassandra import ConsistencyLevel, InvalidRequest
from cassandra.cluster import Cluster
from cassandra.query import BatchStatement, BatchType, SimpleStatement

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)


def refused(session, query, args, want):
    try:
        if args is None:
            session.execute(query)
        else:
            session.execute(session.prepare(query), args)
        check(False, "%s %r was accepted" % (query, args))
    except InvalidRequest as e:
        check(want in str(e), "%s %r: %s; want %r" % (query, args, e, want))


def main():
    host, port = sys.argv[1], int(sys.argv[2])
    cluster = Cluster([host], port=port)
    session = cluster.connect()
    session.execute("CREATE KEYSPACE mig WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 2}")
    session.execute("CREATE TABLE mig.t (k int, c int, v text, w int, PRIMARY KEY (k, c))")
    session.execute("CREATE TABLE mig.coll (k int PRIMARY KEY, l list<int>, s set<text>, m map<text, int>)")
    session.execute("CREATE TABLE mig.cnt (k int PRIMARY KEY, n counter)")
    session.execute("CREATE TABLE mig.fn (k uuid PRIMARY KEY, c timeuuid, ts timestamp, d date)")

    # USING TIMESTAMP and TTL with named markers, bound by name (a dict).
    ins = session.prepare("INSERT INTO mig.t (k, c, v) VALUES (:k, :c, :v) USING TIMESTAMP :ts AND TTL :ttl")
    names = [c.name for c in ins.column_metadata]
    check(names == ["k", "c", "v", "ts", "ttl"], "named bind metadata %r" % names)
    check(ins.routing_key_indexes == [0], "routing key indexes %r" % ins.routing_key_indexes)
    session.execute(ins, {"ttl": 300, "ts": 1000, "v": "a", "c": 1, "k": 1})
    upd = session.prepare("UPDATE mig.t USING TTL ? AND TIMESTAMP ? SET v = ? WHERE k = ? AND c = ?")
    names = [c.name for c in upd.column_metadata]
    check(names == ["[ttl]", "[timestamp]", "v", "k", "c"], "positional bind metadata %r" % names)
    check(upd.routing_key_indexes == [3], "update routing key indexes %r" % upd.routing_key_indexes)
    session.execute(upd, [0, 900, "older", 1, 1])  # older: loses
    row = session.execute("SELECT v, writetime(v) AS wt, TTL(v) FROM mig.t WHERE k = 1 AND c = 1").one()
    check(row is not None and row.v == "a" and row.wt == 1000 and 290 <= row.ttl_v <= 300,
          "after an older update: %r" % (row,))
    session.execute(upd, [None, 2000, "newer", 1, 1])  # a null TTL is none
    row = session.execute("SELECT v, writetime(v), ttl(v) FROM mig.t WHERE k = 1 AND c = 1").one()
    check(row is not None and row.v == "newer" and row.writetime_v == 2000 and row.ttl_v is None,
          "after a newer update: %r" % (row,))
    refused(session, "INSERT INTO mig.t (k, c, v) VALUES (?, ?, ?) USING TIMESTAMP ?", [2, 1, "x", None],
            "Invalid null value of timestamp")
    refused(session, "INSERT INTO mig.t (k, c, v) VALUES (?, ?, ?) USING TTL ?", [2, 1, "x", -5],
            "A TTL must be greater or equal to 0")
    refused(session, "SELECT writetime(k) FROM mig.t", None, "Cannot use selection function writeTime on PRIMARY KEY part k")
    refused(session, "SELECT ttl(l) FROM mig.coll", None, "Cannot use selection function ttl on non-frozen collection l")

    # Collection and counter updates.
    for q, args in [
        ("UPDATE mig.coll SET l = l + ? WHERE k = ?", [[1, 2], 1]),
        ("UPDATE mig.coll SET l = ? + l WHERE k = ?", [[0], 1]),
        ("UPDATE mig.coll SET l[?] = ? WHERE k = ?", [0, 9, 1]),
        ("UPDATE mig.coll SET s = s + ? WHERE k = ?", [{"b", "a"}, 1]),
        ("UPDATE mig.coll SET s = s - ? WHERE k = ?", [{"b"}, 1]),
        ("UPDATE mig.coll SET m = m + ? WHERE k = ?", [{"x": 1, "y": 2}, 1]),
        ("UPDATE mig.coll SET m[?] = ? WHERE k = ?", ["z", 3, 1]),
        ("DELETE m[?] FROM mig.coll WHERE k = ?", ["x", 1]),
        ("UPDATE mig.cnt SET n = n + ? WHERE k = ?", [5, 1]),
        ("UPDATE mig.cnt SET n = n - ? WHERE k = ?", [2, 1]),
    ]:
        session.execute(session.prepare(q), args)
    row = session.execute("SELECT l, s, m FROM mig.coll WHERE k = 1").one()
    check(row is not None and list(row.l) == [9, 1, 2] and set(row.s) == {"a"} and dict(row.m) == {"y": 2, "z": 3},
          "collections %r" % (row,))
    row = session.execute("SELECT n FROM mig.cnt WHERE k = 1").one()
    check(row is not None and row.n == 3, "counter %r" % (row,))

    # Deletions: a cell, a row, a range, with USING TIMESTAMP.
    fill = session.prepare("INSERT INTO mig.t (k, c, v, w) VALUES (?, ?, 'x', 1) USING TIMESTAMP 100")
    for c in range(5):
        session.execute(fill, [3, c])
    session.execute("DELETE w FROM mig.t WHERE k = 3 AND c = 0")
    session.execute("DELETE FROM mig.t WHERE k = 3 AND c = 1")
    session.execute(session.prepare("DELETE FROM mig.t USING TIMESTAMP ? WHERE k = ? AND c >= ? AND c < ?"), [200, 3, 2, 4])
    session.execute("DELETE FROM mig.t USING TIMESTAMP 50 WHERE k = 3 AND c = 4")  # older: nothing
    rows = [(r.c, r.w) for r in session.execute("SELECT c, w FROM mig.t WHERE k = 3")]
    check(rows == [(0, None), (4, 1)], "after deletions %r" % rows)

    # Conditional writes: was_applied and the current values.
    r = session.execute("INSERT INTO mig.t (k, c, v, w) VALUES (4, 1, 'a', 1) IF NOT EXISTS")
    check(r.was_applied, "first IF NOT EXISTS not applied")
    r = session.execute("INSERT INTO mig.t (k, c, v, w) VALUES (4, 1, 'b', 2) IF NOT EXISTS")
    row = r.one()
    check(not r.was_applied and row.v == "a" and row.w == 1 and row.k == 4, "second IF NOT EXISTS: %r" % (row,))
    cond = session.prepare("UPDATE mig.t SET v = :v WHERE k = :k AND c = :c IF v = :old")
    check([c.name for c in cond.column_metadata] == ["v", "k", "c", "old"], "condition bind names")
    cond.serial_consistency_level = ConsistencyLevel.LOCAL_SERIAL
    r = session.execute(cond, {"v": "c", "k": 4, "c": 1, "old": "zzz"})
    row = r.one()
    check(not r.was_applied and list(row._fields) == ["applied", "v"] and row.v == "a",
          "failed IF v = : %r" % (row,))
    r = session.execute(cond, {"v": "c", "k": 4, "c": 1, "old": "a"})
    check(r.was_applied, "IF v = 'a' not applied")
    r = session.execute(SimpleStatement("DELETE FROM mig.t WHERE k = 4 AND c = 1 IF EXISTS",
                                        serial_consistency_level=ConsistencyLevel.SERIAL))
    check(r.was_applied, "DELETE IF EXISTS not applied")
    r = session.execute("DELETE FROM mig.t WHERE k = 4 AND c = 1 IF EXISTS")
    check(not r.was_applied, "second DELETE IF EXISTS applied")
    refused(session, "UPDATE mig.t USING TIMESTAMP 5 SET v = 'x' WHERE k = 4 AND c = 1 IF v = 'y'", None,
            "Cannot provide custom timestamp for conditional updates")
    refused(session, "UPDATE mig.cnt SET n = n + 1 WHERE k = 1 IF EXISTS", None,
            "Conditional updates are not supported on counter tables")

    b = BatchStatement(batch_type=BatchType.LOGGED)
    b.add(session.prepare("INSERT INTO mig.t (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS"), [5, 1, "a"])
    b.add(session.prepare("INSERT INTO mig.t (k, c, v) VALUES (?, ?, ?)"), [5, 2, "b"])
    check(session.execute(b).was_applied, "conditional batch not applied")
    b = BatchStatement(batch_type=BatchType.LOGGED)
    b.add(session.prepare("UPDATE mig.t SET v = ? WHERE k = ? AND c = ? IF v = ?"), ["x", 5, 1, "wrong"])
    b.add(session.prepare("INSERT INTO mig.t (k, c, v) VALUES (?, ?, ?)"), [5, 3, "c"])
    r = session.execute(b)
    applied = r.was_applied
    rows = list(r)
    check(not applied and [(x.k, x.c, x.v) for x in rows] == [(5, 1, "a")],
          "failed conditional batch: %r" % rows)
    check(session.execute("SELECT v FROM mig.t WHERE k = 5 AND c = 3").one() is None, "a failed batch wrote")
    b = BatchStatement(batch_type=BatchType.LOGGED)
    b.add(session.prepare("INSERT INTO mig.t (k, c, v) VALUES (?, ?, ?) IF NOT EXISTS"), [6, 1, "a"])
    b.add(session.prepare("INSERT INTO mig.t (k, c, v) VALUES (?, ?, ?)"), [7, 1, "a"])
    try:
        session.execute(b)
        check(False, "a conditional batch over two partitions was accepted")
    except InvalidRequest as e:
        check("Batch with conditions cannot span multiple partitions" in str(e), "two-partition batch: %s" % e)

    # Functions in values, the primary key included.
    before = datetime.datetime.utcnow() - datetime.timedelta(seconds=2)
    session.execute("INSERT INTO mig.fn (k, c, ts, d) VALUES (uuid(), now(), toTimestamp(now()), currentDate())")
    session.execute(session.prepare("INSERT INTO mig.fn (k, c, ts, d) VALUES (uuid(), currentTimeUUID(), currentTimestamp(), toDate(now())) USING TTL ?"), [60])
    rows = list(session.execute("SELECT k, c, ts, d FROM mig.fn"))
    check(len(rows) == 2, "function rows %r" % rows)
    for r in rows:
        check(isinstance(r.k, uuid.UUID) and r.k.version == 4 and r.c.version == 1, "uuids %r" % (r,))
        check(r.ts is not None and r.ts >= before.replace(microsecond=0), "timestamp %r" % (r,))
    refused(session, "INSERT INTO mig.t (k, c, v) VALUES (now(), 1, 'x')", None,
            "Type error: cannot assign result of function system.now (type timeuuid) to k (type int)")

    cluster.shutdown()
    if failures:
        for f in failures[:50]:
            print("FAIL:", f)
        sys.exit(1)
    print("OK")


if __name__ == "__main__":
    main()
