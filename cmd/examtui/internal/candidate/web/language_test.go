package web_test

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/examtui/examtui/cmd/examtui/internal/candidate/web/webtest"
	"github.com/examtui/examtui/examples"
	"github.com/examtui/examtui/internal/browsertest"
	"github.com/examtui/examtui/internal/testutil"
	"github.com/examtui/examtui/runtime"
	"github.com/examtui/examtui/runtime/headless"
	"github.com/examtui/examtui/spec/lang"
)

// domText is every text of the page a person can read or hear: the text nodes of the body (of
// hidden sections too: they are shown later), the attributes a screen reader reads, the title.
const domText = `(() => {
	const out = [document.title];
	const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
	while (walk.nextNode()) out.push(walk.currentNode.nodeValue);
	for (const el of document.body.querySelectorAll("*")) {
		for (const a of ["aria-label", "title", "placeholder", "alt"]) {
			const v = el.getAttribute(a);
			if (v) out.push(v);
		}
	}
	return out.join("\n");
})()`

// englishWords are words of the English interface no other shipped language writes as words.
var englishWords = regexp.MustCompile(`(?i)\b(the|you|your|and|of|to|is|not|was|exam|examiner|join|send|left|time|press|click|connected)\b`)

// noEnglish fails the test where the page, shown in own's language, still holds English: one
// of the English pack's page strings (less what own writes the same: "Question") or an English
// word.
func noEnglish(t *testing.T, p *browsertest.Page, own *lang.Pack, when string) {
	t.Helper()
	text := browsertest.Eval[string](p, domText)
	en := lang.English()
	for _, k := range lang.PageKeys {
		if en.Page[k] == own.Page[k] {
			continue
		}
		// The words before a placeholder ("About " of "About {minutes} min left…") are too
		// short to tell; the longest fixed part is what a literal left in English would show.
		var frag string
		for _, part := range regexp.MustCompile(`\{[a-z]+\}`).Split(en.Page[k], -1) {
			if len(strings.TrimSpace(part)) > len(frag) {
				frag = strings.TrimSpace(part)
			}
		}
		if len(frag) >= 5 && strings.Contains(text, frag) && !strings.Contains(own.Page[k], frag) {
			t.Errorf("%s: the %s page shows the English %s %q", when, own.Language, k, frag)
		}
	}
	if m := englishWords.FindAllString(text, -1); len(m) > 0 {
		t.Errorf("%s: the %s page shows English words %q in:\n%s", when, own.Language, m, text)
	}
}

// checkDirection: <html lang dir> are the pack's, and the page is laid out in its direction: a
// right-to-left page starts its lines at the right (the heading's text ends near the right of
// the main column), a left-to-right one at the left.
func checkDirection(t *testing.T, p *browsertest.Page, own *lang.Pack) {
	t.Helper()
	want := string(lang.LTR)
	if own.RTL() {
		want = string(lang.RTL)
	}
	got := browsertest.Eval[string](p, `document.documentElement.lang + " " + document.documentElement.dir + " " + getComputedStyle(document.querySelector("main")).direction`)
	if got != own.Language+" "+want+" "+want {
		t.Errorf("lang, dir and the main column's direction: %q, want %s %s %s", got, own.Language, want, want)
	}
	gap := browsertest.Eval[float64](p, `(() => {
		const main = document.querySelector("main").getBoundingClientRect();
		const r = document.createRange();
		r.selectNodeContents(document.querySelector("h1"));
		const h = r.getBoundingClientRect();
		const pad = parseFloat(getComputedStyle(document.querySelector("main")).paddingInlineStart);
		return document.documentElement.dir === "rtl" ? main.right - pad - h.right : h.left - main.left - pad;
	})()`)
	if gap < -1 || gap > 2 {
		t.Errorf("the heading's text starts %.0f px from the main column's start edge (%s), want 0", gap, want)
	}
}

// languageRoom is an example exam of another language than English with its site and browser;
// the candidate types the script's answers.
func languageRoom(t *testing.T, script string) (*room, *lang.Pack, []string) {
	t.Helper()
	s, err := headless.LoadScriptFS(examples.FS, script)
	if err != nil {
		t.Fatal(err)
	}
	exam, err := s.CompileSpec()
	if err != nil {
		t.Fatal(err)
	}
	own, err := lang.Lookup(exam.Language)
	if err != nil {
		t.Fatal(err)
	}
	said := s.Said()
	return newRoomOf(t, filepath.Join("..", "..", "..", "..", "..", "examples", s.Spec), &webtest.Answers{Said: said}), own, said
}

// openIn opens a new link for identity with ?lang=tag and takes the page up to Join, checking
// at the recording notice and at the microphone check that it is laid out in own's direction,
// holds no English and that axe-core finds nothing.
func (r *room) openIn(t *testing.T, identity, tag string, own *lang.Pack) *browsertest.Page {
	t.Helper()
	p := r.browser.Open(t, r.site.link(r.site.code(t, identity))+"?lang="+tag)
	p.WaitText("#notice-title", own.Page["noticeTitle"], waitExam)
	checkDirection(t, p, own)
	noEnglish(t, p, own, "the recording notice")
	checkAccessibility(t, p)
	acknowledge(p)
	p.WaitTrue(`!document.querySelector("#join").disabled`, waitExam, "the Join button to be enabled (microphone open)")
	noEnglish(t, p, own, "the microphone check")
	return p
}

// progress is the page's "question N of M" figure in own's language.
func progress(own *lang.Pack, n, of int) string {
	return strings.NewReplacer("{current}", fmt.Sprint(n), "{total}", fmt.Sprint(of)).Replace(own.Page["progress"])
}

// TestPageInFrench: the French oral through the page opened from a link in French: every word
// of the interface is French (no English page string or word in the page at any step: the
// notice, the microphone check, the exam, a command taken, the end), axe-core finds nothing, and
// no English line is spoken. With -update it writes docs/images/candidate-fr.png.
func TestPageInFrench(t *testing.T) {
	r, fr, said := languageRoom(t, "oral-fr-b2-script.yaml")
	p := r.openIn(t, "cand-fr", "fr", fr)
	p.Click("#join")
	p.WaitText("#progress", progress(fr, 1, 4), waitExam)
	p.WaitText("#state", fr.Page["stateInProgress"], waitExam)
	if got := browsertest.Eval[string](p, `document.querySelector("#progress").getAttribute("aria-label")`); got != "question 1 sur 4" {
		t.Errorf("the progress figure reads %q, want question 1 sur 4", got)
	}
	r.exam.quiet(t, 0)
	for i, line := range said {
		before := r.exam.count(runtime.EventSpoken)
		p.Record("#answer-note")
		p.Type("#answer", line)
		switch i {
		case 0:
			p.WaitShown("#answer-note", fr.Page["sent"]+" "+line, waitExam)
			p.WaitText("#progress", progress(fr, 2, 4), waitExam)
		case 1: // "Pouvez-vous répéter la question, s'il vous plaît ?"
			p.WaitShown("#answer-note", fr.Page["commandTaken"], waitExam)
			noEnglish(t, p, fr, "a command taken")
		}
		r.exam.quiet(t, before)
		if i == 0 {
			noEnglish(t, p, fr, "question 2")
			checkAccessibility(t, p)
			screenshot(t, p, "candidate-fr.png")
		}
	}
	p.WaitText("#ended", fr.Page["endedTitle"], waitExam)
	p.WaitText("#state", fr.Page["stateFinished"], waitExam)
	noEnglish(t, p, fr, "the end")
	en := lang.English()
	for _, s := range r.exam.spokenTexts(t) {
		for _, k := range lang.LineKeys {
			if strings.Contains(s, en.Line(k)) {
				t.Errorf("the English line %s was spoken: %q", k, s)
			}
		}
	}
}

// TestPageInArabic: the Arabic oral through the page opened from a link in Arabic: the page is
// right to left (<html dir="rtl">, lines starting at the right), every word Arabic, axe-core
// finds nothing. With -update it writes docs/images/candidate-ar.png.
func TestPageInArabic(t *testing.T) {
	r, ar, said := languageRoom(t, "oral-ar-script.yaml")
	p := r.openIn(t, "cand-ar", "ar-EG", ar)
	p.Click("#join")
	p.WaitText("#progress", progress(ar, 1, 3), waitExam)
	r.exam.quiet(t, 0)
	p.Record("#answer-note")
	p.Type("#answer", said[0])
	p.WaitText("#progress", progress(ar, 2, 3), waitExam)
	r.exam.quiet(t, r.exam.count(runtime.EventSpoken)-1)
	p.WaitShown("#answer-note", ar.Page["sent"]+" "+said[0], waitExam)
	checkDirection(t, p, ar)
	noEnglish(t, p, ar, "question 2")
	checkAccessibility(t, p)
	// The captions and the answer box take the direction of their own text (dir="auto").
	if got := browsertest.Eval[string](p, `getComputedStyle(document.querySelector("#captions p")).direction + " " + document.querySelector("#answer").dir`); got != "rtl auto" {
		t.Errorf("caption direction and answer box dir: %q, want rtl auto", got)
	}
	screenshot(t, p, "candidate-ar.png")
}

// screenshot writes docs/images/NAME at 480×800 when the test runs with -update.
func screenshot(t *testing.T, p *browsertest.Page, name string) {
	t.Helper()
	if !testutil.Updating() {
		return
	}
	p.SetViewport(480, 800)
	p.Screenshot(filepath.Join("..", "..", "..", "..", "..", "docs", "images", name))
}
