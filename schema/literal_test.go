package schema

import (
	"fmt"
	"sync"
	"testing"
)

func TestCollectionValues(t *testing.T) {
	runConvCases(t, DefaultFormats(), []convCase{
		{"list<int>", "[]", "[]"},
		{"list<int>", "[1, 2, 3]", "[1 2 3]"},
		{"list<int>", " [ 1 ,2,  3 ] ", "[1 2 3]"},
		// cqlsh's split() takes any bracket for any collection.
		{"list<int>", "{1, 2}", "[1 2]"},
		{"list<int>", "(1, 2)", "[1 2]"},
		{"set<int>", "(3, 1)", "[3 1]"},
		{"map<text, int>", "['a': 1]", "map[a:1]"},
		{"map<text, int>", "('a': 1, 'b': 2)", "map[a:1 b:2]"},
		{"list<int>", "[-1, '2']", "[-1 2]"},
		{"list<text>", "['a', 'b c', 'it''s']", "[a b c it's]"},
		{"list<text>", `["a", "say \"hi\"", "tab\there", "\u00e9\ud83d\ude00"]`, "[a say \"hi\" tab\there é😀]"},
		{"list<text>", "['', 'x']", "[ x]"},
		{"list<int>", "[1, 2,]", "[1 2]"}, // a trailing comma, as cqlsh reads it
		{"list<text>", "['a', ]", "[a]"},
		{"list<text>", "['a',,'b']", "[a  b]"},
		{"map<text, int>", "{'a': 1,}", "map[a:1]"},
		{"list<text>", "[bare, words]", "[bare words]"},
		{"list<text>", "['a,b', 'c]d', 'e''f']", "[a,b c]d e'f]"},
		{"set<text>", "{'b', 'a'}", "[b a]"},
		{"set<int>", "[3, 1]", "[3 1]"},
		{"set<uuid>", "{01234567-89ab-cdef-0123-456789abcdef}", "[01234567-89ab-cdef-0123-456789abcdef]"},
		{"list<timestamp>", "['2020-01-02 03:04:05.000000+0000', '1970-01-01']", "[2020-01-02 03:04:05 +0000 UTC 1970-01-01 00:00:00 +0000 UTC]"},
		{"list<boolean>", "[True, false]", "[true false]"},
		{"list<blob>", "[0x01, 0xff]", "[[1] [255]]"},
		{"list<double>", "[1.5, NaN, -Infinity]", "[1.5 NaN -Inf]"},
		{"list<time>", "[10:00:00, '11:00:00.5']", "[10h0m0s 11h0m0.5s]"},
		{"map<text, int>", "{}", "map[]"},
		{"map<text, int>", "{'a': 1, 'b': 2}", "map[a:1 b:2]"},
		{"map<text, int>", `{"a": 1, "b":2}`, "map[a:1 b:2]"},
		{"map<int, text>", "{1:'x',2:'y'}", "map[1:x 2:y]"},
		{"map<int, boolean>", "{1: True}", "map[1:true]"},
		{"map<time, int>", "{10:00:00: 1, '11:00:00': 2}", "map[10h0m0s:1 11h0m0s:2]"},
		{"map<inet, text>", "{::1: 'lo', 10.0.0.1: 'a'}", "map[10.0.0.1:a ::1:lo]"},
		{"map<timestamp, int>", "{'2020-01-02 00:00:00+0000': 1}", "map[2020-01-02 00:00:00 +0000 UTC:1]"},
		{"map<text, frozen<list<int>>>", "{'a': [1, 2], 'b': []}", "map[a:[1 2] b:[]]"},
		{"frozen<map<text, list<int>>>", "{'a': [1]}", "map[a:[1]]"},
		{"list<frozen<set<text>>>", "[{'a'}, {'b', 'c'}]", "[[a] [b c]]"},
		{"list<frozen<list<frozen<list<int>>>>>", "[[[1], [2, 3]], []]", "[[[1] [2 3]] []]"},
		{"tuple<int, text>", "(1, 'a')", "[1 a]"},
		{"tuple<int, text>", "{1, 'a'}", "[1 a]"}, // cqlsh takes any bracket
		{"tuple<int, text>", "(1, null)", "[1 <nil>]"},
		{"tuple<int, text>", "(, 'a')", "[<nil> a]"},
		{"tuple<int, text>", "(1)", "[1 <nil>]"},
		// cqlsh COPY TO writes null components as Python's None.
		{"tuple<int, timestamp, boolean>", "(None, 'None', None)", "[<nil> <nil> <nil>]"},
		{"tuple<text, int>", "('None', 1)", "[None 1]"},
		{"tuple<text, int>", "(None, 1)", "[None 1]"}, // bare text stays text
		{"tuple<int, text, boolean>", "(1, 'a', True)", "[1 a true]"},
		{"tuple<int, frozen<list<text>>>", "(1, ['x', 'y'])", "[1 [x y]]"},
		{"frozen<tuple<int, text>>", "[1, 'a']", "[1 a]"},
		{"list<frozen<tuple<int, int>>>", "[(1, 2), (3, 4)]", "[[1 2] [3 4]]"},
		{"vector<float, 3>", "[1.5, -2, 3e2]", "[1.5 -2 300]"},
		{"vector<int, 2>", "[1, 2]", "[1 2]"},
		{"vector<text, 2>", "['a', 'bc']", "[a bc]"},
		{"vector<smallint, 2>", "[1, -1]", "[1 -1]"},
	})
}

func TestCollectionErrors(t *testing.T) {
	runErrCases(t, DefaultFormats(), []errCase{
		{"list<int>", "", `invalid list<int> "": at offset 0: expected '[' or '{' or '(', found the end`},
		{"list<int>", "1, 2", `invalid list<int> "1, 2": at offset 0: expected '[' or '{' or '(', found '1'`},
		{"list<int>", "[1, 2}", `invalid list<int> "[1, 2}": at offset 5: expected ',' or ']', found '}'`},
		{"list<int>", "[1, 2", `invalid list<int> "[1, 2": at offset 5: expected ',' or ']', found the end`},
		{"list<int>", "[1, x]", `invalid list<int> "[1, x]": element 2: invalid int "x": not a number`},
		{"list<int>", "[1, 3000000000]", `invalid list<int> "[1, 3000000000]": element 2: invalid int "3000000000": out of range [-2147483648, 2147483647]`},
		{"list<int>", "[1, null]", `invalid list<int> "[1, null]": element 2: null is not allowed inside a list, set or map`},
		{"list<int>", "[1,,2]", `invalid list<int> "[1,,2]": element 2: invalid int "": empty value`},
		{"list<int>", "[,]", `invalid list<int> "[,]": element 1: invalid int "": empty value`},
		{"list<int>", "[1] x", `invalid list<int> "[1] x": at offset 4: unexpected "x" after the value`},
		{"list<int>", "[1 2]", `invalid list<int> "[1 2]": element 1: invalid int "1 2": not a number`},
		{"list<text>", "['abc]", `invalid list<text> "['abc]": element 1: at offset 1: unterminated '-quoted string`},
		{"list<text>", `["a\q"]`, `invalid list<text> "[\"a\\q\"]": element 1: at offset 5: invalid escape \q`},
		{"list<text>", `["\ud800"]`, `invalid list<text> "[\"\\ud800\"]": element 1: at offset 8: lone surrogate in \u escape`},
		{"list<text>", `["\ud800\u0041"]`, `invalid list<text> "[\"\\ud800\\u0041\"]": element 1: at offset 14: lone surrogate in \u escape`},
		{"list<text>", `["\u12"]`, `invalid list<text> "[\"\\u12\"]": element 1: at offset 4: invalid \u escape`},
		{"list<int>", "[1)", `invalid list<int> "[1)": at offset 2: expected ',' or ']', found ')'`},
		{"set<int>", "{1, [2]}", `invalid set<int> "{1, [2]}": element 2: at offset 4: unexpected '['`},
		{"map<text, int>", "{'a' 1}", `invalid map<text, int> "{'a' 1}": entry 1: at offset 5: expected ':', found '1'`},
		{"map<text, int>", "{'a': null}", `invalid map<text, int> "{'a': null}": value 1: null is not allowed inside a list, set or map`},
		{"map<text, int>", "{null: 1}", `invalid map<text, int> "{null: 1}": key 1: null is not allowed inside a list, set or map`},
		{"tuple<int, int>", "(1, 2, 3)", `invalid tuple<int, int> "(1, 2, 3)": more than the 2 components of tuple<int, int>`},
		{"vector<float, 3>", "[1, 2]", `invalid vector<float, 3> "[1, 2]": 2 elements, vector<float, 3> needs 3`},
		{"vector<float, 2>", "[1, 2, 3]", `invalid vector<float, 2> "[1, 2, 3]": more than 2 elements`},
		{"vector<float, 2>", "[1, null]", `invalid vector<float, 2> "[1, null]": element 2: null is not allowed in a vector`},
		{"list<int>", "[1]\x00", `invalid list<int> "[1]\x00": at offset 3: unexpected "\x00" after the value`},
		{"list<ascii>", "['é']", `invalid list<ascii> "['é']": element 1: invalid ascii "é": not ASCII`},
	})
}

func TestUDTValues(t *testing.T) {
	runConvCases(t, DefaultFormats(), []convCase{
		{"frozen<address>", "{street: 'Main', no: 3, tags: {'a'}}", "map[no:3 street:Main tags:[a]]"},
		{"frozen<address>", "{no: 3, street: 'Main'}", "map[no:3 street:Main tags:<nil>]"},
		{"frozen<address>", "{street: 'Main'}", "map[no:<nil> street:Main tags:<nil>]"},
		{"frozen<address>", "[street: 'Main']", "map[no:<nil> street:Main tags:<nil>]"}, // cqlsh takes any bracket
		{"frozen<address>", "{}", "map[no:<nil> street:<nil> tags:<nil>]"},
		{"frozen<address>", "{street: null, no: }", "map[no:<nil> street:<nil> tags:<nil>]"},
		{"frozen<address>", "{street: '', no: 1}", "map[no:1 street: tags:<nil>]"},
		{"frozen<address>", `{"street": "Main", "no": 3}`, "map[no:3 street:Main tags:<nil>]"},
		{"frozen<address>", "{'street': 'Main', NO: 3}", "map[no:3 street:Main tags:<nil>]"},
		{"frozen<person>", "{name: 'Ann', home: {street: 'Main', no: 1}, \"Nick\": 'a'}", "map[Nick:a home town:<nil> home:map[no:1 street:Main tags:<nil>] name:Ann]"},
		{"frozen<person>", "{home town: 'Oslo', Nick: 'b'}", "map[Nick:b home town:Oslo home:<nil> name:<nil>]"},
		{"list<frozen<address>>", "[{no: 1}, {no: 2}]", "[map[no:1 street: tags:[]] map[no:2 street: tags:[]]]"},
	})
	runErrCases(t, DefaultFormats(), []errCase{
		{"frozen<address>", "{city: 'x'}", `invalid frozen<address> "{city: 'x'}": user-defined type address has no field "city"`},
		{"frozen<address>", "{no: 1, no: 2}", `invalid frozen<address> "{no: 1, no: 2}": field no given twice`},
		{"frozen<address>", "{no: x}", `invalid frozen<address> "{no: x}": field no: invalid int "x": not a number`},
		{"frozen<address>", "{no 1}", `invalid frozen<address> "{no 1}": user-defined type address has no field "no 1"`},
		{"frozen<address>", "{'no' 1}", `invalid frozen<address> "{'no' 1}": field no: at offset 6: expected ':', found '1'`},
		{"frozen<address>", "{: 1}", `invalid frozen<address> "{: 1}": at offset 1: expected a field name, found ':'`},
		{"frozen<address>", "(1, 2)", `invalid frozen<address> "(1, 2)": user-defined type address has no field "1"`},
	})
}

func TestNullMarkerInsideUDTsAndTuples(t *testing.T) {
	f := DefaultFormats()
	f.NullMarker = `\N`
	runConvCases(t, f, []convCase{
		{"frozen<address>", `{street: \N, no: 3, tags: \N}`, "map[no:3 street:<nil> tags:<nil>]"},
		{"frozen<address>", `{street: '\N', no: }`, `map[no:<nil> street:\N tags:<nil>]`},
		{"tuple<int, text>", `(\N, \N)`, "[<nil> <nil>]"},
		{"tuple<int, text>", `(1, null)`, "[1 <nil>]"},
	})
	// Lists cannot hold nulls, so there the marker is just text.
	runConvCases(t, f, []convCase{
		{"list<text>", `[\N]`, `[\N]`},
	})
}

// TestCompositeConverterConcurrent runs one composite converter from a few
// goroutines at once: its recycled parsers must not be shared between
// calls (run with -race).
func TestCompositeConverterConcurrent(t *testing.T) {
	conv, err := NewConverter(mustType(t, "map<text, frozen<address>>"), DefaultFormats())
	if err != nil {
		t.Fatal(err)
	}
	inputs := []string{"{'a': {no: 1}}", "{'b': {street: 'x', no: 2}, 'c': {}}", "{'d': {no: x}}", "{}"}
	want := make([]string, len(inputs))
	for i, in := range inputs {
		out, err := conv(nil, []byte(in))
		want[i] = fmt.Sprintf("%x %v", out, err)
	}
	const workers = 4
	errs := make(chan string, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 200 {
				i := (w + k) % len(inputs)
				out, err := conv(nil, []byte(inputs[i]))
				if got := fmt.Sprintf("%x %v", out, err); got != want[i] {
					errs <- fmt.Sprintf("%q: got %s, want %s", inputs[i], got, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
