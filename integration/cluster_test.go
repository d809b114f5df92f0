package integration

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"
)

// The suite runs against each cluster that clusters returns:
//
//   - CQL_HOSTS (comma-separated host or host:port) names one already
//     running, and it is the only one used;
//   - otherwise, with a Docker engine, Apache Cassandra and ScyllaDB are
//     started in containers, one after the other (CASSANDRA_IMAGE and
//     SCYLLA_IMAGE override the images);
//   - otherwise there is nothing to run against: under `make integration`
//     (CQLLOAD_INTEGRATION=1) that fails the run, and a plain `go test`
//     skips with the same message.

const (
	defaultCassandraImage = "cassandra:4.1"
	defaultScyllaImage    = "scylladb/scylla:6.2"
)

// noCluster is what the run says when it has nothing to run against.
const noCluster = "no cluster for the integration suite: CQL_HOSTS is not set and no Docker engine answers. " +
	"Either name a running cluster (CQL_HOSTS=host[:port],... make integration; make up starts one with Docker Compose), " +
	"or run it where a Docker engine answers, and it starts Cassandra and ScyllaDB itself"

// cluster is one target of the suite. hosts starts it if needed and
// returns its contact points; the cluster lives until the test ends.
type cluster struct {
	name  string
	hosts func(t *testing.T) []string
}

func clusters(t *testing.T) []cluster {
	t.Helper()
	if env := strings.TrimSpace(os.Getenv("CQL_HOSTS")); env != "" {
		var hosts []string
		for h := range strings.SplitSeq(env, ",") {
			if h = strings.TrimSpace(h); h != "" {
				hosts = append(hosts, h)
			}
		}
		return []cluster{{name: "CQL_HOSTS", hosts: func(*testing.T) []string { return hosts }}}
	}
	if err := dockerAvailable(); err != nil {
		if os.Getenv("CQLLOAD_INTEGRATION") == "1" {
			t.Fatalf("%s (Docker: %v)", noCluster, err)
		}
		t.Skipf("%s (Docker: %v)", noCluster, err)
	}
	return []cluster{
		{name: "cassandra", hosts: func(t *testing.T) []string {
			return startContainer(t, image("CASSANDRA_IMAGE", defaultCassandraImage),
				testcontainers.WithEnv(map[string]string{
					"MAX_HEAP_SIZE":          "1G",
					"HEAP_NEWSIZE":           "200M",
					"CASSANDRA_CLUSTER_NAME": "cqlload",
				}))
		}},
		{name: "scylladb", hosts: func(t *testing.T) []string {
			return startContainer(t, image("SCYLLA_IMAGE", defaultScyllaImage),
				testcontainers.WithCmd("--smp", "1", "--memory", "1G", "--overprovisioned", "1", "--developer-mode", "1"))
		}},
	}
}

func image(env, def string) string {
	if v := os.Getenv(env); v != "" {
		return v
	}
	return def
}

// dockerAvailable asks the engine testcontainers would use for its info,
// as `docker info` does. testcontainers panics when it finds no engine
// configuration at all; that is an answer too.
func dockerAvailable() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	p, err := testcontainers.ProviderDefault.GetProvider()
	if err != nil {
		return err
	}
	defer p.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return p.Health(ctx)
}

// startContainer starts a single-node cluster from img and returns its
// CQL endpoint on the host once cqlsh inside it answers.
func startContainer(t *testing.T, img string, opts ...testcontainers.ContainerCustomizer) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	start := time.Now()
	opts = append(opts,
		testcontainers.WithExposedPorts("9042/tcp"),
		testcontainers.WithWaitStrategyAndDeadline(5*time.Minute,
			wait.ForListeningPort("9042/tcp"),
			wait.ForExec([]string{"cqlsh", "-e", "SELECT release_version FROM system.local"}).
				WithPollInterval(2*time.Second).
				WithStartupTimeout(5*time.Minute),
		),
	)
	c, err := testcontainers.Run(ctx, img, opts...)
	testcontainers.CleanupContainer(t, c)
	if err != nil {
		t.Fatalf("start %s: %v", img, err)
	}
	ep, err := c.PortEndpoint(ctx, "9042/tcp", "")
	if err != nil {
		t.Fatalf("%s: CQL port: %v", img, err)
	}
	t.Logf("%s ready at %s after %v", img, ep, time.Since(start).Round(time.Second))
	return []string{ep}
}
