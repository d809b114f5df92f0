//go:build !gcs && !azure

package source

import (
	"context"
	"fmt"
	"net/url"
)

// openGocloud opens a bucket of a scheme this build does not have.
func openGocloud(_ context.Context, u *url.URL, _ Config) (bucket, error) {
	tag := map[string]string{"gs": "gcs", "azblob": "azure"}[u.Scheme]
	if tag == "" {
		return nil, fmt.Errorf("no store for %s:// URLs", u.Scheme)
	}
	return nil, fmt.Errorf("%s:// is not in this build of cqlload: build it with -tags %s (see docs/storage-and-splitting.md)", u.Scheme, tag)
}
