//go:build gcs

package source

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestGCSStoreTimeout: a gs:// store that accepts connections and
// answers nothing fails the stat and the listing within the store
// timeout, the driver's own retries included, naming the option.
func TestGCSStoreTimeout(t *testing.T) {
	addr, _ := silentStore(t)
	t.Setenv("STORAGE_EMULATOR_HOST", addr)
	const timeout = 300 * time.Millisecond
	for _, item := range []string{"gs://bkt/a.csv", "gs://bkt/data/*.csv"} {
		t.Run(item, func(t *testing.T) {
			start := time.Now()
			_, err := ExpandObjectsConfig(context.Background(), []string{item}, nil, Config{Timeout: timeout})
			took := time.Since(start)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range []string{item, "no answer within 300ms (--store-timeout)"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
			t.Logf("after %v: %v", took.Round(time.Millisecond), err)
			if took > timeout+time.Second {
				t.Errorf("gave up after %v, want within %v", took, timeout+time.Second)
			}
		})
	}
}
