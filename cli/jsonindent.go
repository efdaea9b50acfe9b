package cli

// appendIndent appends compact JSON (as json.Marshal writes it: no space
// outside strings) to dst indented exactly as json.Indent would, with
// prefix and indent. It is a plain loop over the bytes: json.Indent runs its
// validating scanner on every byte, which was most of the cost of a long
// `items --json`.
func appendIndent(dst, src []byte, prefix, indent string) []byte {
	depth := 0
	inString, escaped := false, false
	newline := func() {
		dst = append(dst, '\n')
		dst = append(dst, prefix...)
		for range depth {
			dst = append(dst, indent...)
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inString {
			// Copy up to the closing quote in one go.
			j := i
			for j < len(src) && (escaped || src[j] != '"') {
				escaped = !escaped && src[j] == '\\'
				j++
			}
			if j < len(src) {
				j++ // the quote
				inString = false
			}
			dst = append(dst, src[i:j]...)
			i = j - 1
			continue
		}
		switch c {
		case '"':
			inString = true
			dst = append(dst, c)
		case '{', '[':
			dst = append(dst, c)
			if i+1 < len(src) && (src[i+1] == '}' || src[i+1] == ']') {
				dst = append(dst, src[i+1])
				i++
				continue
			}
			depth++
			newline()
		case '}', ']':
			depth--
			newline()
			dst = append(dst, c)
		case ',':
			dst = append(dst, c)
			newline()
		case ':':
			dst = append(dst, ':', ' ')
		default:
			dst = append(dst, c)
		}
	}
	return dst
}
