//go:build !noazure

package source

// azblob://container/key, with AZURE_STORAGE_ACCOUNT and
// AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or
// AZURE_STORAGE_CONNECTION_STRING, or else DefaultAzureCredential.
// Build with -tags noazure to leave it out.
import _ "gocloud.dev/blob/azureblob"
