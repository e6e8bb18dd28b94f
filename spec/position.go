package spec

// Position returns where the value at path was written in the loaded file, e.g.
// "nodes[1].transitions[0].on" or "evidence[2].levels[0]"; a mapping key's position when the
// value has none (an empty value). ok is false for a spec built in code or a path not in the
// file (a default).
func (s *Spec) Position(path string) (p Pos, ok bool) {
	if s == nil || s.src == nil {
		return Pos{}, false
	}
	if p, ok = s.src.val[path]; ok {
		return p, true
	}
	p, ok = s.src.key[path]
	return p, ok
}
