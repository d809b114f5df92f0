package split

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestPlanOneSplit(t *testing.T) {
	files := []File{
		{Name: "b.csv", Size: 250, Splittable: true},
		{Name: "a.csv.gz", Size: 1000},
		{Name: "c.csv", Size: 0, Splittable: true},
		{Name: "-", Size: -1},
	}
	plan, err := Plan(files, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]Unit{{
		{File: 0, Name: "-", Start: 0, End: -1, Whole: true},
		{File: 1, Name: "a.csv.gz", Start: 0, End: 1000, Whole: true},
		{File: 2, Name: "b.csv", Start: 0, End: 250, Whole: true},
		{File: 3, Name: "c.csv", Start: 0, End: 0, Whole: true},
	}}
	if !reflect.DeepEqual(plan, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", plan, want)
	}
}

// unitBytes is what a unit weighs in the plan: a stream of unknown size
// as one unit size.
func unitBytes(u Unit, unit int64) int64 {
	if u.End < 0 {
		return unit
	}
	return u.Size()
}

func loadsOf(plan [][]Unit, unit int64) []int64 {
	loads := make([]int64, len(plan))
	for i, units := range plan {
		for _, u := range units {
			loads[i] += unitBytes(u, unit)
		}
	}
	return loads
}

func TestPlanTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []File
		n     int
		unit  int64
		want  [][]Unit
		loads []int64
	}{
		{
			name:  "small file is one whole unit",
			files: []File{{Name: "a", Size: 10, Splittable: true}},
			n:     2, unit: 10,
			want:  [][]Unit{{{File: 0, Name: "a", End: 10, Whole: true}}, nil},
			loads: []int64{10, 0},
		},
		{
			name:  "the stream fills up to the whole unit's level",
			files: []File{{Name: "a", Size: 30, Splittable: true}, {Name: "b.gz", Size: 25}},
			n:     2, unit: 10,
			// b.gz (25) → 0; a's 30 bytes lift both to 27.5: 3 and 27,
			// split 0 taking the odd byte.
			want: [][]Unit{
				{{File: 0, Name: "a", End: 3}, {File: 1, Name: "b.gz", End: 25, Whole: true}},
				{{File: 0, Name: "a", Start: 3, End: 30}},
			},
			loads: []int64{28, 27},
		},
		{
			name:  "one file in equal contiguous shares",
			files: []File{{Name: "a", Size: 35, Splittable: true}},
			n:     2, unit: 10,
			want: [][]Unit{
				{{File: 0, Name: "a", End: 18}},
				{{File: 0, Name: "a", Start: 18, End: 35}},
			},
			loads: []int64{18, 17},
		},
		{
			// 220 MB in 64 MiB units dealt largest first gave one split
			// a 28 MB tail; now each gets a quarter.
			name:  "220 MB over 4",
			files: []File{{Name: "big.csv", Size: 220_000_000, Splittable: true}},
			n:     4, unit: 64 << 20,
			want: [][]Unit{
				{{File: 0, Name: "big.csv", End: 55_000_000}},
				{{File: 0, Name: "big.csv", Start: 55_000_000, End: 110_000_000}},
				{{File: 0, Name: "big.csv", Start: 110_000_000, End: 165_000_000}},
				{{File: 0, Name: "big.csv", Start: 165_000_000, End: 220_000_000}},
			},
			loads: []int64{55_000_000, 55_000_000, 55_000_000, 55_000_000},
		},
		{
			name:  "a piece spans files",
			files: []File{{Name: "b", Size: 15, Splittable: true}, {Name: "a", Size: 25, Splittable: true}},
			n:     3, unit: 10,
			want: [][]Unit{
				{{File: 0, Name: "a", End: 14}},
				{{File: 0, Name: "a", Start: 14, End: 25}, {File: 1, Name: "b", End: 2}},
				{{File: 1, Name: "b", Start: 2, End: 15}},
			},
			loads: []int64{14, 13, 13},
		},
		{
			name:  "a share ending at a file's end leaves it whole",
			files: []File{{Name: "a", Size: 20, Splittable: true}, {Name: "b", Size: 20, Splittable: true}},
			n:     2, unit: 10,
			want: [][]Unit{
				{{File: 0, Name: "a", End: 20, Whole: true}},
				{{File: 1, Name: "b", End: 20, Whole: true}},
			},
			loads: []int64{20, 20},
		},
		{
			name:  "a whole unit above the level keeps its split out of the stream",
			files: []File{{Name: "big.gz", Size: 100}, {Name: "c", Size: 30, Splittable: true}},
			n:     3, unit: 10,
			want: [][]Unit{
				{{File: 0, Name: "big.gz", End: 100, Whole: true}},
				{{File: 1, Name: "c", End: 15}},
				{{File: 1, Name: "c", Start: 15, End: 30}},
			},
			loads: []int64{100, 15, 15},
		},
		{
			name: "the stream fills the gaps between whole units",
			files: []File{{Name: "x.gz", Size: 50}, {Name: "y.gz", Size: 30}, {Name: "z", Size: 40, Splittable: true},
				{Name: "s", Size: 6, Splittable: true}},
			n: 3, unit: 10,
			// x.gz → 0, y.gz → 1, s (not worth a cut) → 2; z lifts 1 and
			// 2 to 38.
			want: [][]Unit{
				{{File: 1, Name: "x.gz", End: 50, Whole: true}},
				{{File: 2, Name: "y.gz", End: 30, Whole: true}, {File: 3, Name: "z", End: 8}},
				{{File: 0, Name: "s", End: 6, Whole: true}, {File: 3, Name: "z", Start: 8, End: 40}},
			},
			loads: []int64{50, 38, 38},
		},
		{
			name:  "odd bytes go to the lowest splits",
			files: []File{{Name: "a", Size: 10, Splittable: true}},
			n:     4, unit: 1,
			want: [][]Unit{
				{{File: 0, Name: "a", End: 3}},
				{{File: 0, Name: "a", Start: 3, End: 6}},
				{{File: 0, Name: "a", Start: 6, End: 8}},
				{{File: 0, Name: "a", Start: 8, End: 10}},
			},
			loads: []int64{3, 3, 2, 2},
		},
		{
			name:  "more splits than bytes",
			files: []File{{Name: "a", Size: 2, Splittable: true}},
			n:     3, unit: 1,
			want:  [][]Unit{{{File: 0, Name: "a", End: 1}}, {{File: 0, Name: "a", Start: 1, End: 2}}, nil},
			loads: []int64{1, 1, 0},
		},
		{
			name:  "a stream of unknown size weighs a unit",
			files: []File{{Name: "a", Size: 30, Splittable: true}, {Name: "-", Size: -1}},
			n:     2, unit: 10,
			want: [][]Unit{
				{{File: 0, Name: "-", End: -1, Whole: true}, {File: 1, Name: "a", End: 10}},
				{{File: 1, Name: "a", Start: 10, End: 30}},
			},
			loads: []int64{20, 20},
		},
		{
			name:  "zero-size files are dealt too",
			files: []File{{Name: "e1", Splittable: true}, {Name: "e2"}, {Name: "e3", Splittable: true}},
			n:     2, unit: 10,
			want: [][]Unit{
				{{File: 0, Name: "e1", Whole: true}, {File: 2, Name: "e3", Whole: true}},
				{{File: 1, Name: "e2", Whole: true}},
			},
			loads: []int64{0, 0},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Plan(tc.files, tc.n, tc.unit)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got\n%+v\nwant\n%+v", got, tc.want)
			}
			if loads := loadsOf(got, tc.unit); !slices.Equal(loads, tc.loads) {
				t.Fatalf("loads %v, want %v", loads, tc.loads)
			}
		})
	}
}

func TestPlanErrors(t *testing.T) {
	ok := []File{{Name: "a", Size: 1, Splittable: true}}
	for _, tc := range []struct {
		files []File
		n     int
		unit  int64
		want  string
	}{
		{ok, 0, 10, "at least 1"},
		{ok, 1, 0, "unit size"},
		{[]File{{Name: "-", Size: -1, Splittable: true}}, 1, 10, "cannot be split"},
		{[]File{{Name: "x", Size: -2}}, 1, 10, "cannot be split"},
	} {
		if _, err := Plan(tc.files, tc.n, tc.unit); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Plan(%v, %d, %d): %v, want %q", tc.files, tc.n, tc.unit, err, tc.want)
		}
	}
}

func randomFiles(r *rand.Rand) []File {
	files := make([]File, r.IntN(12))
	for i := range files {
		f := File{Name: fmt.Sprintf("f%02d.csv", r.IntN(20)), Splittable: r.IntN(4) != 0}
		switch r.IntN(6) {
		case 0:
			f.Size = 0
		case 1:
			f.Size = r.Int64N(100)
		default:
			f.Size = r.Int64N(5000)
		}
		if !f.Splittable && r.IntN(10) == 0 {
			f.Size = -1
		}
		files[i] = f
	}
	return files
}

// TestPlanCoversEveryByteOnce: for many file sets and n in 1..16, every
// byte of every file is in exactly one unit, whole files are whole, each
// split's units are in file then offset order with at most one unit of a
// file, each split's share of the cut files is one contiguous piece of
// them in file order, the balance guarantee holds, and the plan does not
// depend on the order the files come in.
func TestPlanCoversEveryByteOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 15))
	for it := range 3000 {
		files := randomFiles(r)
		n := 1 + r.IntN(16)
		unit := []int64{1, 13, 7, 100, 1000, 1 << 20}[r.IntN(6)]
		plan, err := Plan(files, n, unit)
		if err != nil {
			t.Fatal(err)
		}
		if len(plan) != n {
			t.Fatalf("%d splits, want %d", len(plan), n)
		}
		sorted := SortFiles(files)
		cut := func(f File) bool { return f.Splittable && f.Size > unit }
		// Where each cut file begins in the stream of all of them.
		streamAt := make([]int64, len(sorted))
		var stream int64
		for i, f := range sorted {
			if cut(f) {
				streamAt[i] = stream
				stream += f.Size
			}
		}
		covered := make([][]int64, len(sorted)) // units' [Start, End) per file
		wholeLoads := make([]int64, n)          // bytes of the files not cut
		var largestWhole int64
		var got []bool // whether split i got any of the stream
		for i, units := range plan {
			pieceEnd := int64(-1) // the split's piece of the stream so far ends here
			got = append(got, false)
			for k, u := range units {
				if k > 0 {
					p := units[k-1]
					if p.File >= u.File {
						t.Fatalf("iteration %d: units out of order or two of one file: %+v then %+v", it, p, u)
					}
				}
				f := sorted[u.File]
				if u.Name != f.Name {
					t.Fatalf("unit %+v names file %+v", u, f)
				}
				if u.Whole != (u.Start == 0 && u.End == f.Size) {
					t.Fatalf("unit %+v of %+v: Whole wrong", u, f)
				}
				if !cut(f) {
					if !u.Whole {
						t.Fatalf("iteration %d: %+v cut (unit %d): %+v", it, f, unit, u)
					}
					wholeLoads[i] += unitBytes(u, unit)
					largestWhole = max(largestWhole, unitBytes(u, unit))
				} else {
					if pieceEnd >= 0 && streamAt[u.File]+u.Start != pieceEnd {
						t.Fatalf("iteration %d: split %d's share of the stream is not one piece: %+v", it, i, units)
					}
					pieceEnd = streamAt[u.File] + u.End
					got[i] = true
				}
				covered[u.File] = append(covered[u.File], u.Start, u.End)
			}
		}
		for i, c := range covered {
			// Pairs sorted by start must tile [0, Size).
			type span struct{ a, b int64 }
			var spans []span
			for k := 0; k < len(c); k += 2 {
				spans = append(spans, span{c[k], c[k+1]})
			}
			slices.SortFunc(spans, func(x, y span) int { return int(x.a - y.a) })
			if len(spans) == 0 {
				t.Fatalf("file %+v in no unit", sorted[i])
			}
			if sorted[i].Size <= 0 || !sorted[i].Splittable {
				if len(spans) != 1 {
					t.Fatalf("file %+v in %d units", sorted[i], len(spans))
				}
				continue
			}
			at := int64(0)
			for _, s := range spans {
				if s.a != at || s.b <= s.a {
					t.Fatalf("file %+v: units %v do not tile it", sorted[i], spans)
				}
				at = s.b
			}
			if at != sorted[i].Size {
				t.Fatalf("file %+v: units %v end at %d", sorted[i], spans, at)
			}
		}
		checkBalance(t, fmt.Sprintf("iteration %d", it), loadsOf(plan, unit), wholeLoads, got, stream, largestWhole)
		for i, units := range plan {
			if m := Merge(units); !reflect.DeepEqual(m, units) && len(units) > 0 {
				t.Fatalf("iteration %d: Merge changed split %d's units %+v to %+v", it, i, units, m)
			}
		}
		// The same plan for any order of the files.
		shuffled := slices.Clone(files)
		r.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		again, err := Plan(shuffled, n, unit)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(again, plan) {
			t.Fatalf("iteration %d: plan depends on the files' order:\n%+v\n%+v", it, plan, again)
		}
	}
}

// checkBalance checks Balance's guarantee from the outside: the splits
// that got any of the stream are within a byte of each other and no
// split has fewer bytes than they do (each split has max(L, w_i) bytes,
// to the byte), all are within a byte of each other when the stream
// covers the whole units' imbalance, and otherwise the spread is at most
// the largest whole unit.
func checkBalance(t *testing.T, what string, loads, whole []int64, got []bool, stream, largestWhole int64) {
	t.Helper()
	var lo, hi int64 = -1, -1 // the least and most loaded splits that got some stream
	var gap int64             // bytes that would lift every split to the busiest whole load
	for i, l := range loads {
		gap += slices.Max(whole) - whole[i]
		if got[i] {
			if lo < 0 || l < lo {
				lo = l
			}
			hi = max(hi, l)
		}
	}
	if stream > 0 && lo < 0 {
		t.Fatalf("%s: %d bytes to cut and no split got any", what, stream)
	}
	if hi-lo > 1 {
		t.Fatalf("%s: loads %v (whole units %v, got stream %v): the splits below the level differ by %d", what, loads, whole, got, hi-lo)
	}
	for i, l := range loads {
		if !got[i] && l < lo {
			t.Fatalf("%s: loads %v (whole units %v, got stream %v): split %d is below the level", what, loads, whole, got, i)
		}
		if !got[i] && l != whole[i] {
			t.Fatalf("%s: split %d got no stream but %d bytes beside its whole units' %d", what, i, l, whole[i])
		}
	}
	spread := slices.Max(loads) - slices.Min(loads)
	switch {
	case stream >= gap && spread > 1:
		t.Fatalf("%s: loads %v (whole units %v) differ by %d though the stream's %d bytes cover the gap of %d", what, loads, whole, spread, stream, gap)
	case spread > max(largestWhole, 1):
		t.Fatalf("%s: loads %v spread more than the largest whole unit %d", what, loads, largestWhole)
	}
}

// TestPlanBalance: the guarantee on larger inputs, within 10% of the mean
// once the input has 10 units' worth per split, and what many equal
// units give: all splits equal when the units are files that may be cut,
// one a fifth above the others when they may not and 4·n+1 are dealt.
func TestPlanBalance(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 10))
	for it := range 500 {
		n := 1 + r.IntN(16)
		const unit = 1 << 20
		var files []File
		var total int64
		for total < 10*int64(n)*unit || r.IntN(3) != 0 {
			f := File{Name: fmt.Sprintf("f%d", len(files)), Size: 1 + r.Int64N(8*unit), Splittable: r.IntN(5) != 0}
			if !f.Splittable {
				f.Size = min(f.Size, unit) // compressed files no larger than a unit
			}
			files = append(files, f)
			total += f.Size
		}
		plan, err := Plan(files, n, unit)
		if err != nil {
			t.Fatal(err)
		}
		mean := float64(total) / float64(n)
		loads := loadsOf(plan, unit)
		for i, l := range loads {
			if dev := float64(l)/mean - 1; dev > 0.10 || dev < -0.10 {
				t.Fatalf("iteration %d: split %d of %d has %d bytes, mean %.0f (%.1f%%)", it, i, n, l, mean, 100*dev)
			}
		}
		// The cut bytes are at least half the input, far more than
		// compressed files of a unit each can unbalance: exact.
		if spread := slices.Max(loads) - slices.Min(loads); spread > 1 && 2*cutBytes(files, unit) > total {
			t.Fatalf("iteration %d: loads %v differ by %d", it, loads, spread)
		}
	}
	for n := 1; n <= 16; n++ {
		var files []File
		for i := range 10 * n {
			files = append(files, File{Name: fmt.Sprintf("g%03d.gz", i), Size: 950 + r.Int64N(101)})
		}
		checkWithin(t, files, n, 1000, 0.10)
	}
	var gz, plain []File
	for i := range 4*8 + 1 {
		gz = append(gz, File{Name: fmt.Sprintf("h%02d.gz", i), Size: 1000})
		plain = append(plain, File{Name: fmt.Sprintf("h%02d.csv", i), Size: 1001, Splittable: true})
	}
	plan, _ := Plan(gz, 8, 1000)
	if got := len(plan[0]); got != 5 {
		t.Fatalf("split 0 has %d of 33 equal compressed files, want 5", got)
	}
	plan, _ = Plan(plain, 8, 1000)
	if loads := loadsOf(plan, 1000); slices.Max(loads)-slices.Min(loads) > 1 {
		t.Fatalf("33 equal plain files over 8: loads %v", loads)
	}
}

func cutBytes(files []File, unit int64) int64 {
	var b int64
	for _, f := range files {
		if f.Splittable && f.Size > unit {
			b += f.Size
		}
	}
	return b
}

func checkWithin(t *testing.T, files []File, n int, unit int64, bound float64) {
	t.Helper()
	plan, err := Plan(files, n, unit)
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, f := range files {
		total += f.Size
	}
	mean := float64(total) / float64(n)
	for i, units := range plan {
		var l int64
		for _, u := range units {
			l += u.Size()
		}
		if dev := float64(l)/mean - 1; dev > bound || dev < -bound {
			t.Fatalf("n=%d: split %d has %d bytes, mean %.0f", n, i, l, mean)
		}
	}
}

func TestMerge(t *testing.T) {
	u := func(file int, a, b int64) Unit { return Unit{File: file, Name: fmt.Sprint(file), Start: a, End: b} }
	got := Merge([]Unit{u(0, 0, 10), u(0, 10, 20), u(0, 30, 40), u(1, 0, 5), u(1, 5, 9), u(2, 9, 12)})
	want := []Unit{u(0, 0, 20), u(0, 30, 40), u(1, 0, 9), u(2, 9, 12)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}
	if Merge(nil) != nil {
		t.Fatal("Merge(nil) not nil")
	}
}

func TestParseIndex(t *testing.T) {
	for _, tc := range []struct {
		in   string
		i, n int
		err  string
	}{
		{"0/1", 0, 1, ""},
		{"3/7", 3, 7, ""},
		{" 6 / 7 ", 6, 7, ""},
		{"7/7", 0, 0, "0..6"},
		{"1/0", 0, 0, "at least 1"},
		{"-1/3", 0, 0, "I is not"},
		{"+1/3", 0, 0, "I is not"},
		{"1/x", 0, 0, "N is not"},
		{"3", 0, 0, "want I/N"},
		{"", 0, 0, "want I/N"},
		{"1/2/3", 0, 0, "N is not"},
		{"99999999999999999999/1", 0, 0, "I is not"},
	} {
		i, n, err := ParseIndex(tc.in)
		switch {
		case tc.err == "" && (err != nil || i != tc.i || n != tc.n):
			t.Errorf("ParseIndex(%q) = %d, %d, %v; want %d, %d", tc.in, i, n, err, tc.i, tc.n)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("ParseIndex(%q) error %v, want %q", tc.in, err, tc.err)
		}
	}
}
