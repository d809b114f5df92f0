package cqlsim

import (
	"context"
	"os/exec"
	"strconv"
	"testing"
)

func TestPySmoke(t *testing.T) {
	cl, err := Start(context.Background(), Config{Nodes: 3, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	out, err := exec.Command("/usr/bin/python3", "testdata/pydriver_check.py", "127.0.0.1", strconv.Itoa(cl.Port())).CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatal(err)
	}
}
