package csvparse_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/cqlload/cqlload/csvparse"
)

// One goroutine splits; workers (here, the same loop) parse chunks.
func Example() {
	const data = "id,name\n1,\"Smith, J.\"\n2,\"say \\\"hi\\\"\"\n3,\"bad\"quote\n"
	src := csvparse.Source{Name: "people.csv", Size: int64(len(data)), Open: func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader(data)), nil
	}}
	d := csvparse.DefaultDialect()
	d.Header = true
	s := csvparse.NewSplitter([]csvparse.Source{src}, d, 2, 0)
	defer s.Close()
	for {
		c, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("chunk %d: %d records from line %d, header %q\n", c.Seq, c.Records, c.FirstLine, c.Header)
		r := csvparse.NewReader(c, d)
		for {
			rec, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				fmt.Printf("  rejected %q: %v\n", r.Raw(), err)
				continue
			}
			fmt.Printf("  line %d: %q\n", rec.Line, rec.Fields)
		}
	}
	// Output:
	// chunk 0: 2 records from line 2, header ["id" "name"]
	//   line 2: ["1" "Smith, J."]
	//   line 3: ["2" "say \"hi\""]
	// chunk 1: 1 records from line 4, header ["id" "name"]
	//   rejected "3,\"bad\"quote": people.csv:4:8: extraneous or missing " in quoted field
}
