package cairn

import (
	"errors"
	"fmt"
)

// Error codes. Every error returned across a package boundary carries one,
// so transports can map it once (to an exit status, an HTTP status, a tool
// error) without reading messages.
const (
	EINVALID  = "invalid"   // the caller's input is wrong; the message says how to fix it
	ENOTFOUND = "not_found" // the named thing does not exist
	ECONFLICT = "conflict"  // the write contradicts what is stored (e.g. an id taken)
	// EUNAUTHORIZED: the caller did not say who it is, or its credentials
	// are not valid (an unknown or revoked token).
	EUNAUTHORIZED = "unauthorized"
	// EFORBIDDEN: the caller is known but may not do this (a token of
	// another project, a read-only token asked to write).
	EFORBIDDEN   = "forbidden"
	EUNAVAILABLE = "unavailable" // the store or a model endpoint cannot be reached right now
	EINTERNAL    = "internal"    // a bug or an unexpected failure; logged once at the edge
)

// Error is cairn's error: a code for programs and a message for people.
// Message is one sentence a person can act on; Err, when set, is the cause
// kept for operators and errors.Is/As.
type Error struct {
	Code    string
	Message string
	Err     error
}

func (e *Error) Error() string {
	switch {
	case e.Message != "" && e.Err != nil:
		return e.Message + ": " + e.Err.Error()
	case e.Message != "":
		return e.Message
	case e.Err != nil:
		return e.Err.Error()
	}
	return e.Code
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the given code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WrapError returns an *Error with code and message whose cause is err.
func WrapError(code string, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// ErrorCode returns the code of the first *Error in err's chain, EINTERNAL
// for any other non-nil error, and "" for nil.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Code != "" {
		return e.Code
	}
	return EINTERNAL
}

// ErrorMessage returns the message a person should see: the *Error's full
// text, or a generic sentence for internal errors so that no driver detail
// leaks to users.
func ErrorMessage(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Code != EINTERNAL {
		return e.Error()
	}
	return "internal error: " + err.Error()
}
