// Package cairn is the vocabulary of cairn, a cross-session memory for AI
// coding agents: the Memory and what is said about it (queries, hits,
// errors), the per-type policies, and the contracts that storage backends
// and transports implement.
//
// The package imports only the standard library. Rules that must behave the
// same on every backend live in package engine; backends (package sqlite and
// others) only store and fetch.
package cairn
