package app

import (
	"strings"
	"testing"
)

func TestReadLines(t *testing.T) {
	long := strings.Repeat("x", 300)
	tests := []struct {
		name string
		in   string
		want []inputLine
	}{
		{"lines", "a\nb\r\nc", []inputLine{{text: "a"}, {text: "b"}, {text: "c"}}},
		{"empty lines kept", "\n\nz\n", []inputLine{{text: ""}, {text: ""}, {text: "z"}}},
		{"too long skipped, reading goes on", "a\n" + long + "\nb\n", []inputLine{{text: "a"}, {tooLong: 300}, {text: "b"}}},
		{"exactly max kept", strings.Repeat("y", 100) + "\n", []inputLine{{text: strings.Repeat("y", 100)}}},
		{"too long at EOF", long, []inputLine{{tooLong: 300}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []inputLine
			// A tiny buffer would hide isPrefix handling: use the real reader with a small max.
			if err := readLines(strings.NewReader(tt.in), 100, func(l inputLine) bool { got = append(got, l); return true }); err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %d lines %+v, want %+v", len(got), got, tt.want)
			}
			for i := range got {
				if got[i] != tt.want[i] {
					t.Errorf("line %d = %+v, want %+v", i, got[i], tt.want[i])
				}
			}
		})
	}
}
