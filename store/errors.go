package store

import (
	"errors"
	"fmt"
)

// Sentinel errors. Store functions wrap them in *Error, whose message is safe to show a client.
var (
	ErrNotFound  = errors.New("not found")
	ErrForbidden = errors.New("forbidden")
	ErrConflict  = errors.New("conflict")
	ErrOptedOut  = errors.New("opted out")
	ErrLocked    = errors.New("database is in use by another process")
)

// Error is a failure whose Msg may be shown to an API client; Err classifies it.
type Error struct {
	Err error
	Msg string
}

func (e *Error) Error() string { return e.Msg }

func (e *Error) Unwrap() error { return e.Err }

func errorf(kind error, format string, args ...any) error {
	return &Error{Err: kind, Msg: fmt.Sprintf(format, args...)}
}

// FieldError is one failing field of a request.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// ValidationError lists every failing field of a request; the API answers it with 400.
type ValidationError []FieldError

func (v ValidationError) Error() string {
	if len(v) == 0 {
		return "validation failed"
	}
	return fmt.Sprintf("validation failed: %s: %s", v[0].Field, v[0].Message)
}

func isNotFound(err error) bool { return errors.Is(err, ErrNotFound) }
