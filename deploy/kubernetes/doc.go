// Package kubernetes tests the manifests of this directory, which run
// cqlload as a Kubernetes Indexed Job: each document is decoded strictly
// into its k8s.io/api type, and the command line each pod would run is
// checked against the flags of the cqlload built from this repository.
// It is a module of its own so that the main module does not depend on
// the Kubernetes API packages.
package kubernetes
