package deploy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v2"
)

// compose is the part of the Compose format the file may use; decoding
// strictly makes a misspelt key an error rather than a silently ignored
// setting.
type compose struct {
	Services map[string]struct {
		Image       string            `yaml:"image"`
		Command     string            `yaml:"command"`
		Environment map[string]string `yaml:"environment"`
		Ports       []string          `yaml:"ports"`
		Volumes     []string          `yaml:"volumes"`
		Healthcheck struct {
			Test        []string `yaml:"test"`
			Interval    string   `yaml:"interval"`
			Timeout     string   `yaml:"timeout"`
			Retries     int      `yaml:"retries"`
			StartPeriod string   `yaml:"start_period"`
		} `yaml:"healthcheck"`
	} `yaml:"services"`
}

func TestComposeFile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "docker-compose.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var c compose
	if err := yaml.UnmarshalStrict(b, &c); err != nil {
		t.Fatalf("docker-compose.yml: %v", err)
	}
	wantPorts := map[string][]string{
		"scylla":    {"127.0.0.1:9042:9042", "127.0.0.1:19042:19042"},
		"cassandra": {"127.0.0.1:9043:9042"},
	}
	if len(c.Services) != len(wantPorts) {
		t.Fatalf("services %d, want scylla and cassandra", len(c.Services))
	}
	for name, want := range wantPorts {
		s, ok := c.Services[name]
		if !ok {
			t.Fatalf("no service %s", name)
		}
		if strings.Join(s.Ports, " ") != strings.Join(want, " ") {
			t.Errorf("%s publishes %v, want %v (loopback only)", name, s.Ports, want)
		}
		for _, p := range s.Ports {
			if !strings.HasPrefix(p, "127.0.0.1:") {
				t.Errorf("%s publishes %s beyond loopback", name, p)
			}
		}
		if !contains(s.Volumes, "./testdata:/testdata:ro") {
			t.Errorf("%s does not mount testdata/ read-only: %v", name, s.Volumes)
		}
		hc := strings.Join(s.Healthcheck.Test, " ")
		if !strings.Contains(hc, "cqlsh") || s.Healthcheck.Retries == 0 {
			t.Errorf("%s's health check does not wait for CQL: %q", name, hc)
		}
	}
	cmd := strings.Fields(c.Services["scylla"].Command)
	for _, want := range [][2]string{{"--smp", "2"}, {"--overprovisioned", "1"}} {
		if !hasFlag(cmd, want[0], want[1]) {
			t.Errorf("scylla command %q lacks %s %s", c.Services["scylla"].Command, want[0], want[1])
		}
	}
	if _, err := os.Stat(filepath.Join("..", "testdata", "demo.cql")); err != nil {
		t.Errorf("the mounted testdata/ has no demo.cql: %v", err)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func hasFlag(args []string, name, value string) bool {
	for i := 0; i+1 < len(args); i++ {
		if args[i] == name && args[i+1] == value {
			return true
		}
	}
	return false
}
