package chaos

import (
	"os"
	"testing"

	"github.com/cqlload/cqlload/internal/proctest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	proctest.RemoveBuild()
	os.Exit(code)
}
