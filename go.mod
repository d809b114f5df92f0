module github.com/cqlload/cqlload

go 1.26.0

require (
	github.com/HdrHistogram/hdrhistogram-go v1.1.2
	github.com/creack/pty v1.1.24
	github.com/datastax/go-cassandra-native-protocol v0.0.0-20240626123646-2abea740da8d
	github.com/gocql/gocql v1.7.0
	github.com/google/uuid v1.6.0
	github.com/klauspost/compress v1.19.1
	github.com/prometheus/client_golang v1.23.2
	github.com/schollz/progressbar/v3 v3.19.0
	github.com/scylladb/gocqlx/v2 v2.8.0
	github.com/spf13/pflag v1.0.9
	go.yaml.in/yaml/v2 v2.4.3
	golang.org/x/sync v0.25.0
	golang.org/x/sys v0.35.0
	golang.org/x/term v0.28.0
	golang.org/x/text v0.44.0
	golang.org/x/time v0.14.0
	gonum.org/v1/plot v0.17.0
	gopkg.in/inf.v0 v0.9.1
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/mitchellh/colorstring v0.0.0-20190213212951-d06e56a500db // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_model v0.6.2 // indirect
	github.com/prometheus/common v0.66.1 // indirect
	github.com/prometheus/procfs v0.16.1 // indirect
	github.com/rivo/uniseg v0.4.7 // indirect
	github.com/scylladb/go-reflectx v1.0.1 // indirect
	golang.org/x/image v0.30.0 // indirect
	google.golang.org/protobuf v1.36.8 // indirect
)

replace github.com/gocql/gocql => github.com/scylladb/gocql v1.19.0
