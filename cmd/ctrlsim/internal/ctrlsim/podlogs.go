package main

// Finding shard outputs in logs: `run --json-markers` prints its JSON between two
// marker lines, and a log (one pod's, or `kubectl logs --prefix` over all the pods
// of a Job, each line led by "[pod/NAME/CONTAINER] ") holds it among other lines.

import (
	"fmt"
	"strings"
)

// A markedBlock is the text between a begin and an end marker, its lines' prefix
// removed.
type markedBlock struct {
	from string // file:line of the begin marker, and the prefix if any
	text string
}

// markedBlocks returns the blocks of log in the order they end. A block's lines
// are those after its begin marker that start with the marker's prefix (the text
// before it on its line) up to the end marker with that prefix; lines with
// another prefix belong to other pods' blocks or to none. A begin marker with no
// end is a truncated shard output: an error.
func markedBlocks(file, log string) ([]markedBlock, error) {
	type open struct {
		line int
		text strings.Builder
	}
	blocks := map[string]*open{} // by prefix
	var out []markedBlock
	for n, line := range strings.Split(log, "\n") {
		line = strings.TrimRight(line, "\r")
		if prefix, ok := strings.CutSuffix(line, jsonBegin); ok {
			if b := blocks[prefix]; b != nil {
				return nil, usagef("%s:%d: a json begin marker before the end of the one at line %d (a truncated shard output?)", file, n+1, b.line)
			}
			blocks[prefix] = &open{line: n + 1}
			continue
		}
		prefix, ok := longestOpenPrefix(line, blocks)
		if !ok {
			continue
		}
		b, rest := blocks[prefix], line[len(prefix):]
		if rest == jsonEnd {
			out = append(out, markedBlock{from: origin(file, b.line, prefix), text: b.text.String()})
			delete(blocks, prefix)
			continue
		}
		b.text.WriteString(rest)
		b.text.WriteByte('\n')
	}
	first := 0
	var where string
	for prefix, b := range blocks { // lint:order-independent the earliest is kept
		if first == 0 || b.line < first {
			first, where = b.line, origin(file, b.line, prefix)
		}
	}
	if first > 0 {
		return nil, usagef("%s: a json begin marker with no end marker (a truncated log?)", where)
	}
	return out, nil
}

// longestOpenPrefix is the longest prefix of an open block that line starts with.
func longestOpenPrefix[T any](line string, blocks map[string]T) (string, bool) {
	best, found := "", false
	for p := range blocks { // lint:order-independent the longest is kept
		if strings.HasPrefix(line, p) && (!found || len(p) > len(best)) {
			best, found = p, true
		}
	}
	return best, found
}

func origin(file string, line int, prefix string) string {
	if p := strings.TrimSpace(prefix); p != "" {
		return fmt.Sprintf("%s:%d %s", file, line, p)
	}
	return fmt.Sprintf("%s:%d", file, line)
}
