//go:build gcs

package source

// gs://bucket/key, with Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's, the metadata server), in a
// build with -tags gcs. It is not in the default build: the Google API
// client and gRPC take the binary from 24 to 70 MB, and the collector's
// scan of their globals costs every load (about 15 MiB of peak RSS and a
// fifth more CPU per row on the benchmark's narrow rows, with Azure's).
import _ "gocloud.dev/blob/gcsblob"
