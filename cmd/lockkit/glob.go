package main

import "strings"

// globMatch reports whether s matches the glob pattern as Redis's KEYS
// and SCAN MATCH read one, byte by byte: '*' matches any bytes, '?' one
// byte, "[abc]", "[a-z]" and "[^abc]" one byte of a class (or not of it),
// and '\' makes the byte after it literal, within a class too.
func globMatch(pattern, s string) bool {
	for len(pattern) > 0 {
		switch pattern[0] {
		case '*':
			for len(pattern) > 0 && pattern[0] == '*' {
				pattern = pattern[1:]
			}
			if pattern == "" {
				return true
			}
			for i := range len(s) + 1 {
				if globMatch(pattern, s[i:]) {
					return true
				}
			}
			return false
		case '?':
			if s == "" {
				return false
			}
			s = s[1:]
			pattern = pattern[1:]
		case '[':
			if s == "" {
				return false
			}
			ok, rest := globClass(pattern[1:], s[0])
			if !ok {
				return false
			}
			s, pattern = s[1:], rest
		default:
			c := pattern[0]
			if c == '\\' && len(pattern) > 1 {
				pattern = pattern[1:]
				c = pattern[0]
			}
			if s == "" || s[0] != c {
				return false
			}
			s, pattern = s[1:], pattern[1:]
		}
	}
	return s == ""
}

// globClass reports whether byte c is in the class that pattern begins
// with (after its '['), and returns what follows the class's ']'. As in
// Redis: a '-' between two bytes makes a range, whatever the second (a
// ']' too), and a class left open runs to the end of the pattern.
func globClass(pattern string, c byte) (bool, string) {
	not := strings.HasPrefix(pattern, "^")
	if not {
		pattern = pattern[1:]
	}
	in := false
	for len(pattern) > 0 && pattern[0] != ']' {
		switch {
		case pattern[0] == '\\' && len(pattern) > 1:
			pattern = pattern[1:]
			in = in || pattern[0] == c
		case len(pattern) > 2 && pattern[1] == '-':
			lo, hi := min(pattern[0], pattern[2]), max(pattern[0], pattern[2])
			pattern = pattern[2:]
			in = in || (lo <= c && c <= hi)
		default:
			in = in || pattern[0] == c
		}
		pattern = pattern[1:]
	}
	return in != not, strings.TrimPrefix(pattern, "]")
}
