#!/usr/bin/env bash
# make demo: a 3-node cqlsim, the demo schema, testdata/ loaded with a
# progress bar, the summary, and the row counts read back.
set -euo pipefail
cd "$(dirname "$0")/.."
port=${DEMO_PORT:-0} # 0: a free one, which cqlsim reports
log=$(mktemp)
bin/cqlsim --nodes 3 --port "$port" --schema testdata/demo.cql >"$log" 2>&1 &
sim=$!
trap 'kill $sim 2>/dev/null; wait $sim 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  grep -q '^ready' "$log" && break
  kill -0 $sim 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
grep -q '^ready' "$log" || { echo "cqlsim did not start:"; cat "$log"; exit 1; }
if [ "$port" = 0 ]; then
  port=$(sed -n 's/^node 1 .* listening on .*:\([0-9][0-9]*\)$/\1/p' "$log")
fi
cat "$log"
echo
echo '$ cqlload 127.0.0.1 '"$port"' -e "COPY demo.users FROM '"'"'testdata/users.csv'"'"' WITH HEADER = true"'
bin/cqlload 127.0.0.1 "$port" --progress bar --count -e "COPY demo.users FROM 'testdata/users.csv' WITH HEADER = true"
echo
echo '$ cqlload --port '"$port"' --table demo.events --header true testdata/events.csv.gz'
bin/cqlload --port "$port" --progress bar --count --table demo.events --header true testdata/events.csv.gz
