package uvfits

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// FITS headers and character columns hold printable ASCII only (bytes 32
// to 126, FITS 4.0 §4.1.2.3, §7.3.3.1): astropy replaces other bytes by
// '?' with a warning, and a control character makes pyuvdata fail to
// open the file. A value that breaks this is refused, naming the field
// and the character, rather than transliterated: a transliterated name
// would differ from the same run's UVH5, which keeps UTF-8.

// maxCardString is the most characters one card's quoted value holds
// (columns 11 to 80 less the two quotes), each ' counted twice.
const maxCardString = 68

// StringError is the refusal of a string that a FITS header or table
// cannot hold as it is.
type StringError struct {
	Key   string // the keyword or column, e.g. TELESCOP or ANNAME
	What  string // where the value comes from, e.g. "the telescope name"
	Value string
	Why   string
}

func (e *StringError) Error() string {
	return fmt.Sprintf("%s (%s) %q: %s (the same run to .uvh5 keeps it as it is)", e.Key, e.What, e.Value, e.Why)
}

// checkPrintable refuses a value with a byte outside ASCII 32–126, naming
// the first such character and where it is.
func checkPrintable(key, what, v string) error {
	for i := 0; i < len(v); i++ {
		if b := v[i]; b >= 32 && b <= 126 {
			continue
		}
		r, _ := utf8.DecodeRuneInString(v[i:])
		desc := fmt.Sprintf("%q (U+%04X)", r, r)
		if r == utf8.RuneError {
			desc = fmt.Sprintf("the byte 0x%02X (not UTF-8)", v[i])
		}
		return &StringError{Key: key, What: what, Value: v,
			Why: fmt.Sprintf("%s at byte %d is not printable ASCII, and FITS headers and character columns hold only ASCII 32–126: write it in ASCII", desc, i+1)}
	}
	return nil
}

// stringCards is KEY = 'value' as FITS writes it: quotes doubled, and a
// value longer than one card continued on CONTINUE cards (the long-string
// convention, FITS 4.0 §4.2.1.2) when long is true. The standard keeps
// that convention off its own reserved keywords (OBJECT, TELESCOP, …):
// for those (long false) a value too long for one card is refused. So
// are the values that astropy 5.2, pyuvdata's FITS reader, reads back
// wrong although the standard allows them (misreadByAstropy).
func stringCards(key, what, v string, long bool) ([]card, error) {
	if err := checkPrintable(key, what, v); err != nil {
		return nil, err
	}
	q := strings.ReplaceAll(v, "'", "''")
	if len(q) > maxCardString && !long {
		return nil, &StringError{Key: key, What: what, Value: v,
			Why: fmt.Sprintf("%d characters (each ' counted twice) do not fit the %d of one card, and FITS does not allow its CONTINUE convention on the standard keyword %s: shorten it", len(q), maxCardString, key)}
	}
	if why := misreadByAstropy(v, len(q) > maxCardString); why != "" {
		return nil, &StringError{Key: key, What: what, Value: v, Why: why}
	}
	if len(q) <= maxCardString {
		return []card{kv(key, v)}, nil
	}
	var out []card
	prefix := fmt.Sprintf("%-8s= ", key)
	for q != "" {
		n := min(len(q), maxCardString-1) // room for the '&'
		part, amp := q[:n], "&"
		if n == len(q) && !strings.HasSuffix(strings.TrimRight(part, " "), "&") {
			amp = ""
		}
		out = append(out, padCard(prefix+"'"+part+amp+"'"))
		q, prefix = q[n:], "CONTINUE  "
		if q == "" && amp != "" {
			// The value ends in '&' (trailing blanks are not part of a
			// FITS string): a last, empty card keeps the reader from
			// taking that '&' for the convention's.
			out = append(out, padCard(prefix+"''"))
		}
	}
	return out, nil
}

// misreadByAstropy says why astropy 5.2 would read v back wrong, or ""
// when it reads it whole. It takes a quote followed by blanks and '/'
// for the value's end and the rest for a comment ("y'/x" reads "y'"),
// and it rejoins a continued value with its quotes undoubled before
// parsing it again, so that any quote in one breaks it.
func misreadByAstropy(v string, continued bool) string {
	if continued && strings.Contains(v, "'") {
		return "a value continued over CONTINUE cards cannot hold a ' (astropy, pyuvdata's FITS reader, reads it back cut): shorten it to 68 characters or drop the quotes"
	}
	for i := 0; i < len(v); i++ {
		if v[i] != '\'' {
			continue
		}
		j := i + 1
		for j < len(v) && v[j] == ' ' {
			j++
		}
		if j < len(v) && v[j] == '/' {
			return fmt.Sprintf("the ' at byte %d followed by '/' reads in astropy (pyuvdata's FITS reader) as the end of the value and the start of a comment: drop the quote or the '/'", i+1)
		}
	}
	return ""
}
