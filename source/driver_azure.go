//go:build azure

package source

// azblob://container/key, with AZURE_STORAGE_ACCOUNT and
// AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or
// AZURE_STORAGE_CONNECTION_STRING, or else DefaultAzureCredential, in a
// build with -tags azure (see driver_gcs.go for why not by default).
import _ "gocloud.dev/blob/azureblob"
