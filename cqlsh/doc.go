// Package cqlsh resolves what a cqlsh user writes into loader.Options: a
// COPY … FROM statement (or a script of one, after USE and CONSISTENCY),
// the cqlshrc's [connection], [authentication], [ssl] and [copy]
// sections, cqlsh's credentials file, CQLSH_HOST and CQLSH_PORT, with
// cqlsh's precedence: defaults < CONFIGFILE's (or else the cqlshrc's)
// [copy] sections < WITH < flags. A Go program can load as cqlsh's COPY
// FROM would, without the cqlload command.
package cqlsh
