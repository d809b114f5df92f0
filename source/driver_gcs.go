//go:build !nogcs

package source

// gs://bucket/key, with Application Default Credentials
// (GOOGLE_APPLICATION_CREDENTIALS, gcloud's, the metadata server).
// Build with -tags nogcs to leave it out: it is most of what this
// package adds to a binary (the Google API client, gRPC).
import _ "gocloud.dev/blob/gcsblob"
