package cql

import "testing"

func TestLexDurationsAndNumbers(t *testing.T) {
	tests := []struct {
		src  string
		kind tokKind
	}{
		{"1h30m", tDuration}, {"P1DT2H", tDuration}, {"P2W", tDuration}, {"P0001-02-03T04:05:06", tDuration},
		{"12mo", tDuration}, {"5ms", tDuration}, {"3us", tDuration}, {"3µs", tDuration}, {"7ns", tDuration},
		{"1y2mo3w4d5h6m7s8ms9us10ns", tDuration}, {"PT5M", tDuration}, {"p1y", tDuration},
		{"42", tInteger}, {"1.5", tFloat}, {"1.", tFloat}, {"1e10", tFloat}, {"1E-3", tFloat}, {"2.5e+3", tFloat},
		{"0x", tHex}, {"0xDEADbeef", tHex},
		{"a1b2c3d4-0000-1000-8000-00000000cafe", tUUID},
		{"p", tIdent}, {"pt", tIdent}, {"P1", tIdent}, {"peers_v2", tIdent}, {"h1", tIdent},
	}
	for _, tc := range tests {
		toks, err := lex(tc.src)
		if err != nil {
			t.Errorf("lex(%q): %v", tc.src, err)
			continue
		}
		if len(toks) != 2 || toks[0].kind != tc.kind || toks[0].end != len(tc.src) {
			t.Errorf("lex(%q) = %+v, want one token of kind %d", tc.src, toks, tc.kind)
		}
	}
}

func TestLexStringsAndComments(t *testing.T) {
	tests := []struct {
		src  string
		want []string // token values, EOF excluded
	}{
		{"'it''s'", []string{"it's"}},
		{"$$it's $ $$", []string{"it's $ "}},
		{`"Quoted""Name"`, []string{`Quoted"Name`}},
		{"MixedCase", []string{"mixedcase"}},
		{"a -- comment\nb", []string{"a", "b"}},
		{"a // comment\nb", []string{"a", "b"}},
		{"a /* multi\nline */ b", []string{"a", "b"}},
		{"a<=b>=c!=d", []string{"a", "<=", "b", ">=", "c", "!=", "d"}},
		{"m[?]", []string{"m", "[", "?", "]"}},
		{":name", []string{":", "name"}},
		{"-- only a comment", nil},
	}
	for _, tc := range tests {
		toks, err := lex(tc.src)
		if err != nil {
			t.Errorf("lex(%q): %v", tc.src, err)
			continue
		}
		var got []string
		for _, tok := range toks[:len(toks)-1] {
			got = append(got, tok.val)
		}
		if len(got) != len(tc.want) {
			t.Errorf("lex(%q) = %q, want %q", tc.src, got, tc.want)
			continue
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("lex(%q) = %q, want %q", tc.src, got, tc.want)
				break
			}
		}
	}
	for _, bad := range []string{"'open", `"open`, `""`, "$$open", "/* open", "a # b", "é"} {
		if _, err := lex(bad); err == nil {
			t.Errorf("lex(%q) succeeded, want an error", bad)
		}
	}
}
