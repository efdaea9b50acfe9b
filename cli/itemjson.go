package cli

import (
	"math"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/trustscreen/reviewer/policy"
	"github.com/trustscreen/reviewer/review"
)

// `items --json` writes tens of thousands of rows. Going through toJSON,
// encoding/json and appendIndent cost a dozen allocations and a
// reflective walk per row, more than SQLite's own work; appendItemJSON
// writes the same bytes straight into the output buffer. toJSON and
// encoding/json stay the definition of the output: a test holds this
// encoder to them (itemjson_internal_test.go), and a row this encoder
// cannot write exactly as they would (a time outside RFC 3339's range, a
// layer that is not a finite number) goes through them. Weighed again
// against encoding/json alone (docs/performance.md, "Weighed again"): the
// listing needs it to stay within 2.0x of sqlite3 -json.

// appendItemJSON appends v as one element of the `items --json` array (the
// object only, at the array's depth: "  {\n    ...\n  }" without the first
// indent) exactly as encoding/json would write toJSON(v), indented by
// appendIndent. ok is false when it cannot: dst is then to be dropped and
// the row written by the encoder.
func appendItemJSON(dst []byte, v *review.ItemView) (_ []byte, ok bool) {
	dst = append(dst, "{\n    \"id\": "...)
	dst = appendJSONString(dst, v.ID)
	dst = append(dst, ",\n    \"batch_id\": "...)
	dst = appendJSONString(dst, v.BatchID)
	dst = append(dst, ",\n    \"customer_ref\": "...)
	dst = appendJSONString(dst, v.CustomerRef)
	dst = append(dst, ",\n    \"file_name\": "...)
	dst = appendJSONString(dst, v.FileName)
	dst = append(dst, ",\n    \"kind\": "...)
	dst = appendJSONString(dst, string(v.Kind))
	dst = append(dst, ",\n    \"status\": "...)
	dst = appendJSONString(dst, string(v.Status))
	checked := v.Checked()
	dst = append(dst, ",\n    \"risk_score\": "...)
	if checked && v.RiskScore != nil {
		dst = strconv.AppendInt(dst, int64(*v.RiskScore), 10)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, ",\n    \"recommendation\": "...)
	if checked {
		dst = appendJSONStringOrNull(dst, string(v.Recommendation))
	} else {
		dst = append(dst, "null"...)
	}
	if checked && len(v.Layers) > 0 {
		dst = append(dst, ",\n    \"layers\": {"...)
		if dst, ok = appendLayers(dst, v.Layers); !ok {
			return dst, false
		}
		dst = append(dst, "\n    }"...)
	}
	dst = append(dst, ",\n    \"error_code\": "...)
	dst = appendJSONStringOrNull(dst, string(v.ErrorCode))
	dst = append(dst, ",\n    \"reported_code\": "...)
	dst = appendJSONStringOrNull(dst, v.ReportedCode)
	if v.Problem != "" {
		dst = append(dst, ",\n    \"problem\": "...)
		dst = appendJSONString(dst, v.Problem)
	}
	dst = append(dst, ",\n    \"retryable\": "...)
	dst = strconv.AppendBool(dst, v.Retryable)
	dst = append(dst, ",\n    \"next_action\": "...)
	dst = appendJSONString(dst, string(v.Next.Kind))
	if !v.Next.Until.IsZero() {
		dst = append(dst, ",\n    \"wait_until\": "...)
		if dst, ok = appendJSONTime(dst, v.Next.Until); !ok {
			return dst, false
		}
	}
	dst = append(dst, ",\n    \"open_action\": "...)
	if st := v.OpenAction(); st != "" {
		dst = append(dst, "{\n      \"kind\": "...)
		dst = appendJSONString(dst, string(v.Action.Kind))
		dst = append(dst, ",\n      \"state\": "...)
		dst = appendJSONString(dst, string(st))
		dst = append(dst, ",\n      \"idempotency_key\": "...)
		dst = appendJSONString(dst, v.Action.Key)
		dst = append(dst, "\n    }"...)
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, ",\n    \"updated_at\": "...)
	if dst, ok = appendJSONTime(dst, v.UpdatedAt); !ok {
		return dst, false
	}
	dst = append(dst, ",\n    \"explanation\": "...)
	dst = appendJSONString(dst, policy.Describe(v.Item))
	// teamFields (claims.go)
	dst = append(dst, ",\n    \"revision\": "...)
	if v.Revision > 0 {
		dst = strconv.AppendInt(dst, v.Revision, 10)
	} else {
		dst = append(dst, "null"...)
	}
	if c := v.LiveClaim(v.At); c != nil {
		dst = append(dst, ",\n    \"claimed_by\": "...)
		dst = appendJSONString(dst, c.Reviewer)
		dst = append(dst, ",\n    \"claim_expires_at\": "...)
		if dst, ok = appendJSONTime(dst, c.ExpiresAt); !ok {
			return dst, false
		}
	} else {
		dst = append(dst, ",\n    \"claimed_by\": null,\n    \"claim_expires_at\": null"...)
	}
	dst = append(dst, ",\n    \"status_since\": "...)
	if !v.StatusSince.IsZero() {
		if dst, ok = appendJSONTime(dst, v.StatusSince); !ok {
			return dst, false
		}
	} else {
		dst = append(dst, "null"...)
	}
	dst = append(dst, ",\n    \"notes_count\": "...)
	dst = strconv.AppendInt(dst, int64(v.Notes), 10)
	dst = appendDecisionJSON(dst, v.Item) // decide.go
	return append(dst, "\n  }"...), true
}

// appendLayers appends the members of a layers map at depth 3, as
// encoding/json writes a map[string]float64: keys sorted, floats as its
// floatEncoder writes them. ok is false for a value it would refuse (NaN,
// an infinity).
func appendLayers(dst []byte, layers map[string]float64) ([]byte, bool) {
	var buf [8]string
	keys := buf[:0]
	for k := range layers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for i, k := range keys {
		f := layers[k]
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return dst, false
		}
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, "\n      "...)
		dst = appendJSONString(dst, k)
		dst = append(dst, ": "...)
		dst = appendJSONFloat(dst, f)
	}
	return dst, true
}

// appendJSONFloat is encoding/json's floatEncoder for a finite float64.
func appendJSONFloat(dst []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(dst)
		if n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst
}

// appendJSONTime appends t as time.Time.MarshalJSON writes it. ok is false
// where MarshalJSON fails (a year outside 0-9999, a zone offset of 24
// hours or more): the same checks, on the same RFC 3339 text.
func appendJSONTime(dst []byte, t time.Time) ([]byte, bool) {
	dst = append(dst, '"')
	n0 := len(dst)
	dst = t.AppendFormat(dst, time.RFC3339Nano)
	switch {
	case len(dst) < n0+len("9999-") || dst[n0+len("9999")] != '-':
		return dst, false
	case dst[len(dst)-1] != 'Z':
		c := dst[len(dst)-len("Z07:00")]
		tz := dst[len(dst)-len("07:00"):]
		if ('0' <= c && c <= '9') || 10*(tz[0]-'0')+(tz[1]-'0') >= 24 {
			return dst, false
		}
	}
	return append(dst, '"'), true
}

// appendJSONStringOrNull is a *string field: null for "" (strPtr).
func appendJSONStringOrNull(dst []byte, s string) []byte {
	if s == "" {
		return append(dst, "null"...)
	}
	return appendJSONString(dst, s)
}

// appendJSONString appends s quoted as encoding/json writes a string with
// HTML escaping on (json.Encoder's default): \" \\ \b \f \n \r \t, other
// control characters and < > & as \u00XX, an invalid UTF-8 byte as
// \ufffd, U+2028 and U+2029 as \u2028 and \u2029; everything else as is.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if jsonSafe[b] {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '\\', '"':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[b>>4], hexDigits[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		if c == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if c == '\u2028' || c == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[c&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

const hexDigits = "0123456789abcdef"

// jsonSafe[b] is whether encoding/json writes the ASCII byte b as is with
// HTML escaping on (its htmlSafeSet): not a control character, not " or
// \, not < > &. DEL (0x7f) is written as is.
var jsonSafe = func() (t [utf8.RuneSelf]bool) {
	for b := 0x20; b < utf8.RuneSelf; b++ {
		t[b] = b != '"' && b != '\\' && b != '<' && b != '>' && b != '&'
	}
	return t
}()
