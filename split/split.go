// Package split plans how N processes share one input set exactly
// (--split I/N): every record is loaded by exactly one split.
//
// The work is cut into units: a whole file, or for an uncompressed file
// (File.Splittable) larger than the unit size (--split-size) a byte range
// of it. The plan depends only on the files' names and sizes and on N
// and the unit size, never on timing, the order the files were listed in
// or map order, so every process computes the same plan on its own and
// takes its part of it.
//
// A unit [Start, End) of a file holds the records whose first byte lies
// in it: the process moves its start to the next record start with
// csvparse.FindRecordStart, and parses on past End to the end of the
// record that straddles it (csvparse.Source.Until), where the next
// split's FindRecordStart(End) begins.
//
// # Balance
//
// The plan is made in two passes. First the whole units are dealt: files
// that cannot be cut (compressed ones, streams) and those no larger than
// the unit size, which are not worth a cut (each cut costs the two
// neighbouring splits a record-boundary search, which may read the
// file's prefix). They go longest first, each to the split with the
// fewest bytes so far (ties to the one with fewer units, so empty files
// spread too, then to the lowest index); a stream of unknown size weighs
// as one unit size.
//
// Then the bytes of the larger cuttable files, taken as one stream in
// file order, are poured into the splits like water: the level L is
// where the splits' deficits below L add up to the stream's bytes, and
// each split below L, in index order, gets the next piece of the stream,
// as long as its deficit. A piece may span files (the tail of one, the
// head of the next). Where L is not a whole number, the first splits
// below it, by index, get a byte more than the others, so that the
// pieces add up to the stream.
//
// So split i ends with max(L, w_i) bytes, to the byte, where w_i is what
// its whole units hold: the splits that got any of the stream are within
// one byte of each other, a split that got none has at least as many
// bytes as they do, and all splits are within one byte of each other
// whenever the cuttable bytes cover the whole units' imbalance (the
// bytes that would lift every split to the busiest one). When they do
// not, the bound of the first pass holds: a unit only goes to the least
// loaded split, so the busiest and the idlest split differ by at most
// the largest whole unit, and the stream only narrows that.
//
// The stream is cut at most N-1 times. A split gets one contiguous piece
// of it, so at most one range of any file, and only the piece's two ends
// can fall inside a file: a process searches for one record boundary
// (two in a transcoded encoding) however many files are cut.
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

// PlanVersion names how Plan deals the inputs. A checkpoint records it:
// a split planned another way covers other ranges. Change it whenever
// Plan's output for the same inputs changes.
const PlanVersion = "2"

// DefaultUnitSize is --split-size's default: a cuttable file of at most
// this many bytes goes to one split whole.
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

// Plan deals the files to n splits, balancing bytes (see Balance):
// files that are not Splittable and Splittable ones of at most unitSize
// bytes (empty ones too) are single whole units; the larger Splittable
// files are cut where the splits' shares of them meet. Unit.File indexes
// SortFiles(files). Each split's units are in file order, then offset
// order, so a process reads its files one after another; a split holds
// at most one unit of each file, and may get no unit when there are
// fewer units than splits.
func Plan(files []File, n int, unitSize int64) ([][]Unit, error) {
	if n < 1 {
		return nil, fmt.Errorf("split: %d splits, want at least 1", n)
	}
	if unitSize < 1 {
		return nil, fmt.Errorf("split: unit size %d, want at least 1 byte", unitSize)
	}
	sorted := SortFiles(files)
	var whole []Unit
	var stream []int // indexes of the files to cut, in file order
	var streamBytes int64
	for i, f := range sorted {
		switch {
		case f.Size < -1 || f.Size == -1 && f.Splittable:
			return nil, fmt.Errorf("split: %s: size %d cannot be split", f.Name, f.Size)
		case !f.Splittable || f.Size <= unitSize:
			whole = append(whole, Unit{File: i, Name: f.Name, Start: 0, End: f.Size, Whole: true})
		default:
			stream = append(stream, i)
			streamBytes += f.Size
		}
	}
	weight := func(u Unit) int64 {
		if u.End < 0 {
			return unitSize // unknown size
		}
		return u.Size()
	}
	slices.SortStableFunc(whole, func(a, b Unit) int {
		return cmp.Compare(weight(b), weight(a)) // stable: file order among equals
	})
	plan := make([][]Unit, n)
	loads := make(loadHeap, n)
	for i := range loads {
		loads[i] = load{split: i}
	}
	for _, u := range whole {
		l := &loads[0]
		plan[l.split] = append(plan[l.split], u)
		l.bytes += weight(u)
		l.units++
		heap.Fix(&loads, 0)
	}
	loaded := make([]int64, n)
	for _, l := range loads {
		loaded[l.split] = l.bytes
	}
	pour(plan, sorted, stream, fill(loaded, streamBytes))
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

// fill returns how many bytes of a stream of s bytes each split gets so
// that the splits with the fewest bytes rise to one level L: split i
// gets max(L - loads[i], 0), rounded so that the shares add up to s
// (the first splits below L, by index, get L's fraction rounded up).
func fill(loads []int64, s int64) []int64 {
	share := make([]int64, len(loads))
	if s <= 0 {
		return share
	}
	low := make([]int, len(loads)) // split indexes, fewest bytes first
	for i := range low {
		low[i] = i
	}
	slices.SortStableFunc(low, func(a, b int) int { return cmp.Compare(loads[a], loads[b]) })
	// With the k least loaded splits below it, the level is
	// (s + their bytes) / k; the next split is below the level too when
	// its bytes are less than that. Ties never straddle the last one
	// taken: a split as loaded as one below the level is below it.
	k, sum := 1, s+loads[low[0]]
	for k < len(low) {
		w := loads[low[k]]
		if q, r := sum/int64(k), sum%int64(k); q < w || q == w && r == 0 {
			break
		}
		k++
		sum += loads[low[k-1]]
	}
	level, extra := sum/int64(k), sum%int64(k)
	below := slices.Clone(low[:k])
	slices.Sort(below)
	for j, i := range below {
		share[i] = level - loads[i]
		if int64(j) < extra {
			share[i]++
		}
	}
	return share
}

// pour hands the files of stream (indexes into sorted, in order), read
// as one run of bytes, to the splits in index order, share[i] bytes to
// split i: each split gets one contiguous piece, cut into a unit per
// file it touches.
func pour(plan [][]Unit, sorted []File, stream []int, share []int64) {
	f, at := 0, int64(0) // the stream's position: file stream[f], offset at
	for i, want := range share {
		for want > 0 {
			file := sorted[stream[f]]
			end := min(at+want, file.Size)
			plan[i] = append(plan[i], Unit{File: stream[f], Name: file.Name, Start: at, End: end,
				Whole: at == 0 && end == file.Size})
			want -= end - at
			if at = end; at == file.Size {
				f, at = f+1, 0
			}
		}
	}
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
// slice. Plan gives a split at most one unit of a file, so on its
// output Merge changes nothing; it is for units put together otherwise.
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
