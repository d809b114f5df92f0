// Package split plans how N processes share one input set exactly
// (--split I/N): every record is loaded by exactly one split.
//
// The work is cut into units: a whole file, or for an uncompressed file
// (File.Splittable) a byte range of about the unit size (--split-size).
// The plan depends only on the files' names and sizes and on N and the
// unit size, never on timing, the order the files were listed in or map
// order, so every process computes the same plan on its own and takes
// its part of it.
//
// A unit [Start, End) of a file holds the records whose first byte lies
// in it: the process moves both ends to the next record start with
// csvparse.FindRecordStart, which both neighbours compute alike, and
// Merge lets it read adjacent units of a file as one range.
//
// # Balance
//
// Units are dealt longest first, each to the split with the fewest bytes
// so far (ties to the one with fewer units, so empty files spread too,
// then to the lowest index). After every step the most and least
// loaded splits differ by at most the largest unit (a unit only goes to
// the least loaded split), so every split's bytes lie within the largest
// unit of the mean. With units of at most the unit size u, that is within
// 10% of the mean once the input holds at least 10·N·u bytes; with fewer
// units than that the bound is what it is: 4·N+1 equal units give one
// split 5 and the others 4.
package split

import (
	"cmp"
	"container/heap"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// DefaultUnitSize is --split-size's default.
const DefaultUnitSize = 64 << 20

// File is one input.
type File struct {
	Name string
	// Size is the file's size in bytes; -1 for a stream of unknown size,
	// which must not be Splittable (it weighs as one unit when dealt).
	Size int64
	// Splittable: the file may be cut into byte ranges (uncompressed, a
	// byte-compatible encoding, a regular file); else it is one unit.
	Splittable bool
}

// Unit is a piece of work: the bytes [Start, End) of a file.
type Unit struct {
	File  int    // index into the sorted files (SortFiles)
	Name  string // the file's name
	Start int64  // offset of the first byte
	End   int64  // offset past the last byte; Size (-1 if unknown) for a whole file
	// Whole means the unit is the whole file: read it as usual, header
	// and all, rather than as a range.
	Whole bool
}

// Size returns the unit's bytes, 0 for a stream of unknown size.
func (u Unit) Size() int64 { return max(u.End-u.Start, 0) }

// SortFiles returns a copy of files in plan order: by name, then size,
// then unsplittable first. Entries equal in all three are interchangeable.
func SortFiles(files []File) []File {
	out := slices.Clone(files)
	slices.SortStableFunc(out, func(a, b File) int {
		if c := strings.Compare(a.Name, b.Name); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Size, b.Size); c != 0 {
			return c
		}
		switch {
		case a.Splittable == b.Splittable:
			return 0
		case b.Splittable:
			return -1
		}
		return 1
	})
	return out
}

// Plan cuts the files into units of unitSize bytes (the last of a file
// shorter; a file no larger than unitSize, an unsplittable one or an
// empty one is a single whole unit) and deals them to n splits, balancing
// bytes (see Balance). Unit.File indexes SortFiles(files). Each split's
// units are in file order, then offset order, so a process reads its
// files one after another; a split may get no unit when there are fewer
// units than splits.
func Plan(files []File, n int, unitSize int64) ([][]Unit, error) {
	if n < 1 {
		return nil, fmt.Errorf("split: %d splits, want at least 1", n)
	}
	if unitSize < 1 {
		return nil, fmt.Errorf("split: unit size %d, want at least 1 byte", unitSize)
	}
	sorted := SortFiles(files)
	var units []Unit
	for i, f := range sorted {
		switch {
		case f.Size < -1 || f.Size == -1 && f.Splittable:
			return nil, fmt.Errorf("split: %s: size %d cannot be split", f.Name, f.Size)
		case !f.Splittable || f.Size <= unitSize:
			units = append(units, Unit{File: i, Name: f.Name, Start: 0, End: f.Size, Whole: true})
		default:
			for s := int64(0); s < f.Size; s += unitSize {
				units = append(units, Unit{File: i, Name: f.Name, Start: s, End: min(s+unitSize, f.Size)})
			}
		}
	}
	weight := func(u Unit) int64 {
		if u.End < 0 {
			return unitSize // unknown size
		}
		return u.Size()
	}
	order := slices.Clone(units)
	slices.SortStableFunc(order, func(a, b Unit) int {
		return cmp.Compare(weight(b), weight(a)) // stable: file then offset order among equals
	})
	plan := make([][]Unit, n)
	loads := make(loadHeap, n)
	for i := range loads {
		loads[i] = load{split: i}
	}
	for _, u := range order {
		l := &loads[0]
		plan[l.split] = append(plan[l.split], u)
		l.bytes += weight(u)
		l.units++
		heap.Fix(&loads, 0)
	}
	for _, p := range plan {
		slices.SortFunc(p, func(a, b Unit) int {
			if c := cmp.Compare(a.File, b.File); c != 0 {
				return c
			}
			return cmp.Compare(a.Start, b.Start)
		})
	}
	return plan, nil
}

type load struct {
	bytes int64
	units int
	split int
}

// loadHeap orders splits by bytes, then units, then index: the top is
// where the next unit goes.
type loadHeap []load

func (h loadHeap) Len() int { return len(h) }
func (h loadHeap) Less(i, j int) bool {
	if h[i].bytes != h[j].bytes {
		return h[i].bytes < h[j].bytes
	}
	if h[i].units != h[j].units {
		return h[i].units < h[j].units
	}
	return h[i].split < h[j].split
}
func (h loadHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *loadHeap) Push(x any)   { *h = append(*h, x.(load)) }
func (h *loadHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Merge joins runs of units of one file that follow each other (one's
// End is the next's Start) into one range, so a split that got units 3
// and 4 of a file reads [u3.Start, u4.End) once. units must be in plan
// order (file, then offset), as Plan returns them; the result is a new
// slice.
func Merge(units []Unit) []Unit {
	var out []Unit
	for _, u := range units {
		if k := len(out) - 1; k >= 0 && out[k].File == u.File && out[k].End == u.Start && !out[k].Whole && !u.Whole {
			out[k].End = u.End
			continue
		}
		out = append(out, u)
	}
	return out
}

// ParseIndex parses --split's "I/N": split I (0-based) of N.
func ParseIndex(s string) (i, n int, err error) {
	bad := func(why string) (int, int, error) {
		return 0, 0, fmt.Errorf("--split %q: %s", s, why)
	}
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return bad("want I/N, e.g. 0/4 for the first of four splits")
	}
	i, erri := atoi(strings.TrimSpace(a))
	n, errn := atoi(strings.TrimSpace(b))
	switch {
	case errn != nil:
		return bad("N is not a whole number")
	case n < 1:
		return bad("N must be at least 1")
	case erri != nil:
		return bad("I is not a whole number")
	case i >= n:
		return bad(fmt.Sprintf("I must be in 0..%d (splits count from 0)", n-1))
	}
	return i, n, nil
}

var errNotNumber = errors.New("not a whole number")

// atoi accepts only decimal digits: no sign, no spaces.
func atoi(s string) (int, error) {
	if s == "" || strings.TrimLeft(s, "0123456789") != "" {
		return 0, errNotNumber
	}
	return strconv.Atoi(s)
}
