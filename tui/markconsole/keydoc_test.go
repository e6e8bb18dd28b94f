package markconsole_test

import (
	"os"
	"strings"
	"testing"

	"github.com/examtui/examtui/tui/markconsole"
)

// Every key of the console is in docs/marking.md's key table, as its help writes it.
func TestKeysDocumented(t *testing.T) {
	src, err := os.ReadFile("../../docs/marking.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(src)
	start := strings.Index(doc, "## The marking console")
	if start < 0 {
		t.Fatal(`docs/marking.md has no "The marking console" section`)
	}
	var table []string
	for _, l := range strings.Split(doc[start:], "\n") {
		if strings.HasPrefix(l, "| `") {
			table = append(table, strings.NewReplacer("`", "", "–", "-", ", ", "/").Replace(strings.SplitN(l, "|", 3)[1]))
		}
	}
	keys := strings.Join(table, " ")
	for _, group := range markconsole.DefaultKeyMap().FullHelp() {
		for _, b := range group {
			if k := b.Help().Key; !strings.Contains(keys, " "+k+" ") && !strings.Contains(keys, "/"+k+" ") && !strings.Contains(keys, " "+k+"/") {
				t.Errorf("key %q (%s) is not in docs/marking.md's key table %q", k, b.Help().Desc, keys)
			}
		}
	}
}
