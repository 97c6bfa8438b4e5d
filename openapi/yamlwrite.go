package openapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v4"
)

// writeYAML writes a YAML node tree in block style with a two-space
// indent, each line starting with prefix (first line: firstPrefix). It
// writes the subset of YAML a document needs: strings that could read as
// anything else are written as JSON strings (a JSON string is a YAML
// double-quoted scalar), numbers, booleans and null as JSON writes them.
// It replaces the yaml package's emitter, which took three times as long
// as the whole JSON rendering and held the document's events in memory.
func writeYAML(b *bytes.Buffer, sp *splicer, n *yaml.Node, indent int, firstPrefix string) error {
	n = sp.part(n)
	for n.Kind == yaml.DocumentNode || n.Kind == yaml.AliasNode {
		if n.Kind == yaml.AliasNode {
			n = n.Alias
		} else if len(n.Content) != 1 {
			return fmt.Errorf("document with %d roots", len(n.Content))
		} else {
			n = n.Content[0]
		}
	}
	return writeBlock(b, sp, n.Kind, sp.flatten(n), indent, firstPrefix)
}

// writeBlock writes the entries of a mapping or sequence, one a line.
func writeBlock(b *bytes.Buffer, sp *splicer, kind yaml.Kind, content []*yaml.Node, indent int, firstPrefix string) error {
	pad := strings.Repeat("  ", indent)
	first := true
	line := func() {
		if first {
			b.WriteString(firstPrefix)
			first = false
			return
		}
		b.WriteString(pad)
	}
	switch kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(content); i += 2 {
			line()
			if err := yamlScalar(b, content[i]); err != nil {
				return err
			}
			b.WriteByte(':')
			if err := yamlValue(b, sp, content[i+1], indent); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for _, c := range content {
			line()
			b.WriteByte('-')
			if err := yamlValue(b, sp, c, indent); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("a %v node where a collection belongs", kind)
	}
	return nil
}

// yamlValue writes the value after "key:" or "-": a scalar or an empty
// collection on the same line, a collection on the lines below.
func yamlValue(b *bytes.Buffer, sp *splicer, v *yaml.Node, indent int) error {
	v = sp.part(v)
	if v.Kind == yaml.AliasNode {
		v = v.Alias
	}
	if v.Kind == yaml.ScalarNode {
		b.WriteByte(' ')
		if err := yamlScalar(b, v); err != nil {
			return err
		}
		b.WriteByte('\n')
		return nil
	}
	content := sp.flatten(v)
	switch {
	case len(content) == 0 && v.Kind == yaml.MappingNode:
		b.WriteString(" {}\n")
	case len(content) == 0:
		b.WriteString(" []\n")
	default:
		b.WriteByte('\n')
		return writeBlock(b, sp, v.Kind, content, indent+1, strings.Repeat("  ", indent+1))
	}
	return nil
}

// plainRe is what a string may look like to go unquoted: it starts with
// a letter or a slash, so it cannot read as a number, and holds no
// character that means something in YAML.
var plainRe = regexp.MustCompile(`^[A-Za-z/][A-Za-z0-9_./{}\-]*( [A-Za-z0-9_./{}\-]+)*$`)

// versionRe is a dotted version such as 3.1.0, which no YAML reader takes
// for a number.
var versionRe = regexp.MustCompile(`^[0-9]+(\.[0-9]+){2,}$`)

// yamlWords are the plain scalars a YAML 1.1 or 1.2 reader takes for
// something other than a string.
var yamlWords = map[string]bool{"true": true, "false": true, "yes": true, "no": true, "on": true, "off": true,
	"y": true, "n": true, "null": true}

func yamlScalar(b *bytes.Buffer, n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("a %v node where a scalar belongs", n.Kind)
	}
	if n.Tag == "!!str" {
		s := n.Value
		if (plainRe.MatchString(s) && !yamlWords[strings.ToLower(s)] && !strings.ContainsAny(s, "{}")) || versionRe.MatchString(s) {
			b.WriteString(s)
			return nil
		}
		// A JSON string is a YAML double-quoted scalar; < > & are left as
		// they are (JSON's \u003c would be valid but hard to read).
		var q bytes.Buffer
		enc := json.NewEncoder(&q)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			return err
		}
		b.Write(bytes.TrimSuffix(q.Bytes(), []byte("\n")))
		return nil
	}
	return writeScalar(b, n)
}
