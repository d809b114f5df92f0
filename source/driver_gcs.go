//go:build gcs

package source

// gs://bucket/key, with Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's, the metadata server), in a
// build with -tags gcs. It is not in the default build: the Google API
// client and gRPC make the binary much larger, and the collector's scan
// of their globals costs every load memory and CPU per row (the figures
// are in docs/benchmarks.md).
import _ "gocloud.dev/blob/gcsblob"
