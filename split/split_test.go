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
		{File: 2, Name: "b.csv", Start: 0, End: 100},
		{File: 2, Name: "b.csv", Start: 100, End: 200},
		{File: 2, Name: "b.csv", Start: 200, End: 250},
		{File: 3, Name: "c.csv", Start: 0, End: 0, Whole: true},
	}}
	if !reflect.DeepEqual(plan, want) {
		t.Fatalf("got\n%+v\nwant\n%+v", plan, want)
	}
	merged := Merge(plan[0])
	wantMerged := []Unit{want[0][0], want[0][1], {File: 2, Name: "b.csv", Start: 0, End: 250}, want[0][5]}
	if !reflect.DeepEqual(merged, wantMerged) {
		t.Fatalf("Merge: got\n%+v\nwant\n%+v", merged, wantMerged)
	}
}

func TestPlanTable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files []File
		n     int
		unit  int64
		want  [][]Unit
	}{
		{
			name:  "small file is one whole unit",
			files: []File{{Name: "a", Size: 10, Splittable: true}},
			n:     2, unit: 10,
			want: [][]Unit{{{File: 0, Name: "a", End: 10, Whole: true}}, nil},
		},
		{
			name:  "largest first to the least loaded, ties to the lowest index",
			files: []File{{Name: "a", Size: 30, Splittable: true}, {Name: "b.gz", Size: 25}},
			n:     2, unit: 10,
			// b.gz (25) → 0; a's three units (10 each) → 1, 1, 1.
			want: [][]Unit{
				{{File: 1, Name: "b.gz", End: 25, Whole: true}},
				{{File: 0, Name: "a", End: 10}, {File: 0, Name: "a", Start: 10, End: 20}, {File: 0, Name: "a", Start: 20, End: 30}},
			},
		},
		{
			name:  "units of one file spread",
			files: []File{{Name: "a", Size: 35, Splittable: true}},
			n:     2, unit: 10,
			want: [][]Unit{
				{{File: 0, Name: "a", End: 10}, {File: 0, Name: "a", Start: 20, End: 30}},
				{{File: 0, Name: "a", Start: 10, End: 20}, {File: 0, Name: "a", Start: 30, End: 35}},
			},
		},
		{
			name:  "zero-size files are dealt too",
			files: []File{{Name: "e1", Splittable: true}, {Name: "e2"}, {Name: "e3", Splittable: true}},
			n:     2, unit: 10,
			want: [][]Unit{
				{{File: 0, Name: "e1", Whole: true}, {File: 2, Name: "e3", Whole: true}},
				{{File: 1, Name: "e2", Whole: true}},
			},
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
// split's units are in file then offset order, the balance bound holds,
// and the plan does not depend on the order the files come in.
func TestPlanCoversEveryByteOnce(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 15))
	for it := range 2000 {
		files := randomFiles(r)
		n := 1 + r.IntN(16)
		unit := []int64{13, 7, 100, 1000, 1 << 20}[r.IntN(5)]
		plan, err := Plan(files, n, unit)
		if err != nil {
			t.Fatal(err)
		}
		if len(plan) != n {
			t.Fatalf("%d splits, want %d", len(plan), n)
		}
		sorted := SortFiles(files)
		covered := make([][]int64, len(sorted)) // units' [Start, End) per file
		var loads []int64
		var total, largest int64
		for _, units := range plan {
			var l int64
			for k, u := range units {
				if k > 0 {
					p := units[k-1]
					if p.File > u.File || p.File == u.File && p.Start >= u.Start {
						t.Fatalf("iteration %d: units out of order: %+v then %+v", it, p, u)
					}
				}
				f := sorted[u.File]
				if u.Name != f.Name {
					t.Fatalf("unit %+v names file %+v", u, f)
				}
				if u.Whole != (u.Start == 0 && u.End == f.Size) {
					t.Fatalf("unit %+v of %+v: Whole wrong", u, f)
				}
				if !f.Splittable && !u.Whole {
					t.Fatalf("unsplittable %+v cut: %+v", f, u)
				}
				if u.Size() > unit && !u.Whole {
					t.Fatalf("unit %+v larger than %d", u, unit)
				}
				covered[u.File] = append(covered[u.File], u.Start, u.End)
				w := u.Size()
				if u.End < 0 {
					w = unit
				}
				l += w
				largest = max(largest, w)
			}
			loads = append(loads, l)
			total += l
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
		if len(loads) > 0 && largest > 0 {
			lo, hi := slices.Min(loads), slices.Max(loads)
			if hi-lo > largest {
				t.Fatalf("iteration %d: loads %v spread more than the largest unit %d", it, loads, largest)
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

// TestPlanBalance: the documented bound (within the largest unit of the
// mean, so within 10% with at least 10·n units' worth of bytes), and
// what ≥ 4·n similar units give.
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
		for i, units := range plan {
			var l int64
			for _, u := range units {
				l += u.Size()
			}
			if dev := float64(l)/mean - 1; dev > 0.10 || dev < -0.10 {
				t.Fatalf("iteration %d: split %d of %d has %d bytes, mean %.0f (%.1f%%)", it, i, n, l, mean, 100*dev)
			}
		}
	}
	// At least 4·n units of similar size (±5%), at least 10·n of them:
	// within 10%; exactly 4·n+1 equal ones: one split has a fifth more.
	for n := 1; n <= 16; n++ {
		var files []File
		for i := range 10 * n {
			files = append(files, File{Name: fmt.Sprintf("g%03d.gz", i), Size: 950 + r.Int64N(101)})
		}
		checkWithin(t, files, n, 1000, 0.10)
	}
	var files []File
	for i := range 4*8 + 1 {
		files = append(files, File{Name: fmt.Sprintf("h%02d.gz", i), Size: 1000})
	}
	plan, _ := Plan(files, 8, 1000)
	if got := len(plan[0]); got != 5 {
		t.Fatalf("split 0 has %d of 33 equal units, want 5", got)
	}
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
