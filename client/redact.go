package client

import (
	"reflect"
	"strings"
	"sync"
)

// Redaction: a service may echo the caller's token back (in an error
// message, a customer reference, a note, a display name: a bug, a proxy's
// debugging, or an attack), and whatever it sends is stored in the cache,
// exported and printed. The client is the one part that knows the token,
// so it takes the token out of every string of an answer where it decodes
// it (redactValue), before anything else sees the answer.
//
// The token is matched whole: an occurrence counts when it is not glued to
// a letter or a digit on a side where the token itself starts or ends with
// one, so a token "x" leaves "x509" alone, while "Bearer tok-abc." and
// "token=tok-abc;" lose it.

const redacted = "[redacted]"

// redact returns s with every occurrence of the token (whole, for a short
// one: see whole) replaced by [redacted].
func redact(s string, tok Secret) string {
	return redactToken(s, tok.Reveal())
}

func redactToken(s, tok string) string {
	if tok == "" || len(s) < len(tok) {
		return s
	}
	var b strings.Builder
	from := 0 // s[:from] is settled
	for i := 0; i+len(tok) <= len(s); {
		j := strings.Index(s[i:], tok)
		if j < 0 {
			break
		}
		at, end := i+j, i+j+len(tok)
		if whole(s, tok, at, end) {
			b.WriteString(s[from:at])
			b.WriteString(redacted)
			from, i = end, end
			continue
		}
		i = at + 1
	}
	if from == 0 {
		return s
	}
	b.WriteString(s[from:])
	return b.String()
}

// whole reports whether s[at:end], an occurrence of tok, is the token on
// its own rather than part of a longer word. A token of the length the
// console accepts (MinTokenLength) is never part of a word by chance: every
// occurrence of it is the token, glued to letters or not. Only a shorter
// one (in a test, or a value the configuration refused) is matched as a
// whole word, so that a token "x" leaves "x509" alone.
func whole(s, tok string, at, end int) bool {
	if len(tok) >= MinTokenLength {
		return true
	}
	if at > 0 && isWordByte(tok[0]) && isWordByte(s[at-1]) {
		return false
	}
	if end < len(s) && isWordByte(tok[len(tok)-1]) && isWordByte(s[end]) {
		return false
	}
	return true
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// redactValue takes the token out of every string reachable from v (a
// pointer to a decoded answer): struct fields, slices, maps (keys and
// values) and interfaces. Unexported fields (time.Time's) are left alone.
func redactValue(v any, tok Secret) {
	if t := tok.Reveal(); t != "" {
		scrub(reflect.ValueOf(v), t)
	}
}

func scrub(v reflect.Value, tok string) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			scrub(v.Elem(), tok)
		}
	case reflect.Interface:
		if v.IsNil() || !v.CanSet() {
			return
		}
		c := settableCopy(v.Elem())
		scrub(c, tok)
		v.Set(c)
	case reflect.Struct:
		if !holdsText(v.Type()) {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if f := v.Field(i); f.CanSet() {
				scrub(f, tok)
			}
		}
	case reflect.Slice, reflect.Array:
		if !holdsText(v.Type()) {
			return
		}
		for i := 0; i < v.Len(); i++ {
			scrub(v.Index(i), tok)
		}
	case reflect.Map:
		if v.IsNil() || !holdsText(v.Type()) {
			return
		}
		for _, k := range v.MapKeys() {
			val, nk := v.MapIndex(k), k
			switch {
			case k.Kind() == reflect.String: // the usual key: no copy unless it changes
				if r := redactToken(k.String(), tok); r != k.String() {
					nk = reflect.New(k.Type()).Elem()
					nk.SetString(r)
				}
			case holdsText(k.Type()):
				nk = settableCopy(k)
				scrub(nk, tok)
			}
			if holdsText(val.Type()) {
				val = settableCopy(val)
				scrub(val, tok)
			} else if nk.Equal(k) {
				continue // nothing of this entry can hold the token
			}
			if !nk.Equal(k) {
				v.SetMapIndex(k, reflect.Value{})
			}
			v.SetMapIndex(nk, val)
		}
	case reflect.String:
		if s := v.String(); v.CanSet() {
			if r := redactToken(s, tok); r != s {
				v.SetString(r)
			}
		}
	}
}

// textTypes caches holdsText: answers are decoded into a few types, many
// times. Only final answers are stored, so a concurrent reader never sees
// a guess.
var textTypes sync.Map // reflect.Type -> bool

// holdsText reports whether a value of type t may hold a string that
// redaction can change (an exported string field, an element, a key, an
// interface), so that numbers, times and their containers are skipped.
func holdsText(t reflect.Type) bool {
	if b, ok := textTypes.Load(t); ok {
		return b.(bool)
	}
	b := decideText(t, map[reflect.Type]bool{})
	textTypes.Store(t, b)
	return b
}

// decideText is holdsText without the cache; a type met again while it is
// being decided (a recursive type) counts as holding text, which only
// costs a walk.
func decideText(t reflect.Type, visiting map[reflect.Type]bool) bool {
	if visiting[t] {
		return true
	}
	visiting[t] = true
	defer delete(visiting, t)
	switch t.Kind() {
	case reflect.String, reflect.Interface:
		return true
	case reflect.Pointer, reflect.Slice, reflect.Array:
		return decideText(t.Elem(), visiting)
	case reflect.Map:
		return decideText(t.Key(), visiting) || decideText(t.Elem(), visiting)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() && decideText(f.Type, visiting) {
				return true
			}
		}
	}
	return false
}

// settableCopy is a copy of v that can be changed and set back.
func settableCopy(v reflect.Value) reflect.Value {
	c := reflect.New(v.Type()).Elem()
	c.Set(v)
	return c
}
