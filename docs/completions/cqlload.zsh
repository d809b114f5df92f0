#compdef cqlload
# zsh completion for cqlload. Generated from the option table by
# `cqlload --generate zsh`; do not edit.

_arguments \
  '--hosts=[comma-separated contact points, host or host\:port]:string: ' \
  '--port=[CQL native port]:int: ' \
  '(-u --username)'{-u+,--username=}'[user name; on a terminal, the password is asked for when none is given]:string: ' \
  '(-p --password)'{-p+,--password=}'[password]:string: ' \
  '--password-file=[read the password from this file'\''s first line]:path:_files' \
  '--insecure-password-without-warning[no warning for a password given with -p, as cqlsh'\''s flag]' \
  '--ssl[connect with TLS]' \
  '--ssl-ca=[CA certificate file to verify the nodes]:path:_files' \
  '--ssl-cert=[client certificate file]:path:_files' \
  '--ssl-key=[client key file]:path:_files' \
  '--ssl-no-verify[do not verify node certificates]' \
  '--ssl-server-name=[check every node'\''s certificate against this name, and send it as the TLS server name]:string: ' \
  '--connect-timeout=[connection timeout]:duration: ' \
  '--request-timeout=[longest an attempt waits for its answer, time the process was stopped left out]:duration: ' \
  '--dc=[local data center\: coordinators are chosen there]:string: ' \
  '--cqlshrc=[cqlsh'\''s configuration file\: \[connection\], \[authentication\], \[ssl\] and \[copy\] sections; flags win, and '\'''\'' reads none]:path:_files' \
  '--credentials=[cqlsh'\''s credentials file\: username and password under \[PlainTextAuthProvider\]; flags win, and it wins over the cqlshrc; '\'''\'' reads none]:path:_files' \
  '--consistency=[write consistency level]:level: ' \
  '(-e --execute)'{-e+,--execute=}'[a cqlsh COPY ... FROM statement]:string: ' \
  '(-f --file)'{-f+,--file=}'[read the COPY statement from this file, as cqlsh -f runs a script]:path:_files' \
  '--table=[the table to load, as keyspace.table, named as in CQL\: "MyKs"."MyTable" for names with capitals]:string: ' \
  '--columns=[comma-separated columns in file order, read as COPY'\''s column list\: bare names lower-cased, "Quoted" ones exact, which may hold commas]:string: ' \
  '(-k --keyspace)'{-k+,--keyspace=}'[keyspace of a COPY statement that names none]:string: ' \
  '--write-split-plan=[with --split I/N\: find the record starts at every cut of the N splits, write them to this file for --split-plan, and load nothing]:path:_files' \
  '--max-rows=[records read per file at most; -1 = all]:int: ' \
  '--skip-rows=[records skipped at the start of each file]:int: ' \
  '--skip-cols=[comma-separated columns of the file not to load]:list: ' \
  '--config-file=[cqlshrc-style file whose \[copy\], \[copy-from\], \[copy\:ks.t\] and \[copy-from\:ks.t\] sections hold options]:path:_files' \
  '--flush-interval=[a stream silent this long has the rows read so far sent; 0 waits for full chunks]:duration: ' \
  '--store-connect-timeout=[longest a connection to an object store may take\: the dial and the TLS handshake]:duration: ' \
  '--store-timeout=[longest a request to an object store waits for a byte; a store that has answered nothing yet fails at once, a later stall is retried from the byte reached]:duration: ' \
  '--readers=[places of the input read at once\: a large file is cut into stripes read side by side, so that a file in token order keeps every node busy; 1 reads each file from start to end]:int: ' \
  '--stripe-size=[with --readers, the smallest stripe\: a file under two of them is read from start to end]:bytes: ' \
  '--repeat=[read the input this many times, keys unchanged\: a file makes a sustained load]:int: ' \
  '--split=[load split I of N of the inputs\: N runs with the same inputs load every record exactly once]:I/N: ' \
  '--split-size=[with --split, the size up to which an uncompressed file goes to one split whole; larger ones are cut where the splits'\'' shares meet, so that the splits'\'' bytes balance]:bytes: ' \
  '--split-plan=[with --split, take the record starts at the cuts from this split plan instead of searching each cut file'\''s prefix for them]:path:_files' \
  '--verify-buffer=[compressed bytes of a gzip member or zstd frame checked before its rows are sent; 0 = none]:bytes: ' \
  '--header=[the first line of each file holds column names]:true or false:(true false)' \
  '--delimiter=[field delimiter]:char: ' \
  '--quote=[quote character]:char: ' \
  '--escape=[escape character inside quoted fields; empty for none]:char: ' \
  '--encoding=[input encoding\: utf-8, latin-1, utf-16, utf-16le, utf-16be]:text: ' \
  '--max-record-bytes=[a record longer than this is rejected whole, its first --max-error-record-bytes in the error file]:bytes: ' \
  '--null=[the text of a null value, quoted or not]:text: ' \
  '--null-mode=[null\: write nulls as cqlsh does; unset\: leave those columns unset]:null or unset:(null unset)' \
  '--datetime-format=[timestamp format, strftime syntax as in cqlsh]:text: ' \
  '--timezone=[time zone of timestamps that carry none]:zone: ' \
  '--decimal-sep=[decimal separator]:text: ' \
  '--thousands-sep=[thousands separator]:text: ' \
  '--bool-style=[true and false words, comma separated]:text: ' \
  '--cqlsh-escapes=[the input was written by cqlsh COPY TO\: undo its backslash escapes inside text]:true or false:(true false)' \
  '--ttl=[time to live of written rows in seconds; -1 = none]:int: ' \
  '--writetime-field=[a field of the input, not a column, that gives each row'\''s write time\: microseconds since the epoch, as writetime returns them, or a timestamp; an empty field keeps the run'\''s own]:name: ' \
  '--ttl-field=[a field of the input, not a column, that gives each row'\''s TTL in seconds; an empty field takes --ttl'\''s]:name: ' \
  '--workers=[parse/convert workers]:int: ' \
  '--chunk-size=[records per chunk handed to a worker]:int: ' \
  '--ingest-rate=[rows per second at most; 0 = unlimited]:int: ' \
  '--min-batch-size=[a partition with at least this many rows gets batches of its own]:int: ' \
  '--max-batch-size=[rows per batch at most]:int: ' \
  '--max-batch-bytes=[serialized value bytes per batch at most]:bytes: ' \
  '--max-in-flight=[requests awaiting one node at once at most]:int: ' \
  '--adaptive=[each node'\''s limit on requests in flight follows its latency, up to --max-in-flight, and a node that sheds or times out requests is paced at the rate it takes; false\: fixed at --max-in-flight, nothing paced]:true or false:(true false)' \
  '--duration=[stop sending after this long\: an orderly end, the rows left counted as rows_not_sent_by_duration; 0 = no limit]:duration: ' \
  '--dry-run[connect, check the table, read and convert the input, write the error file and summary, send nothing]' \
  '--dry-run-rows=[with --dry-run\: read at most this many records per file]:int: ' \
  '--max-attempts=[attempts per batch for retryable errors at most; 0 = as many as --retry-window allows]:int: ' \
  '--retry-window=[how long a failing batch is retried, and how long the run waits while no node answers]:duration: ' \
  '--max-parse-errors=[abort after this many rows fail to parse; -1 = no limit]:int: ' \
  '--max-insert-errors=[abort after this many rows fail to insert or are left unknown; -1 = no limit]:int: ' \
  '--err-file=[file receiving rejected rows]:path:_files' \
  '--max-error-record-bytes=[of a record longer than --max-record-bytes, the error file keeps this many bytes and a marker of the cut; -1 = the whole record, kept in a temporary file until written]:bytes: ' \
  '--resume=[checkpoint file\: records how far the run got; if it exists, what it says is done is skipped]:path:_files' \
  '--summary-json=[write the summary as JSON to this file]:path:_files' \
  '--progress=[progress display\: auto, bar, log, none]:auto or bar or log or none:(auto bar log none)' \
  '--metrics-addr=[serve Prometheus metrics of the run at http\://HOST\:PORT/metrics]:string: ' \
  '--count[after loading, read back SELECT count of the table]' \
  '(-v --verbose)'{-v,--verbose}'[also print the driver'\''s log to standard error]' \
  '--version[print the version of cqlload, its Go and its driver, and exit]' \
  '(-h --help)'{-h,--help}'[show this help]' \
  '--report-frequency=[seconds between progress reports]:seconds: ' \
  '--rate-file=[file to append progress lines to, every REPORTFREQUENCY]:path:_files' \
  '--histogram-log=[write request latencies to this file in HdrHistogram'\''s interval log format, one histogram a second]:path:_files' \
  '*:input file:_files'
