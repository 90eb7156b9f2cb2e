package profile

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
)

// SummarySchema is the JSON Schema of summary.json.
//
//go:embed summary.schema.json
var SummarySchema []byte

// ValidateSummary checks a summary.json document against SummarySchema.
// It implements the subset of JSON Schema the schema uses (type, enum,
// required, properties, additionalProperties, items, minItems, minimum and
// local $ref), so no schema library is needed.
func ValidateSummary(doc []byte) error {
	var schema, v any
	if err := json.Unmarshal(SummarySchema, &schema); err != nil {
		return fmt.Errorf("profile: schema: %w", err)
	}
	if err := json.Unmarshal(doc, &v); err != nil {
		return fmt.Errorf("profile: summary: %w", err)
	}
	root := schema.(map[string]any)
	return validate(root, root, v, "$")
}

func validate(root, s map[string]any, v any, path string) error {
	if ref, ok := s["$ref"].(string); ok {
		name := strings.TrimPrefix(ref, "#/$defs/")
		def, ok := root["$defs"].(map[string]any)[name].(map[string]any)
		if !ok {
			return fmt.Errorf("%s: unknown $ref %q", path, ref)
		}
		s = def
	}
	if t, ok := s["type"]; ok {
		var types []string
		switch t := t.(type) {
		case string:
			types = []string{t}
		case []any:
			for _, x := range t {
				types = append(types, x.(string))
			}
		}
		if !slices.ContainsFunc(types, func(t string) bool { return hasType(v, t) }) {
			return fmt.Errorf("%s: %v is not of type %v", path, v, types)
		}
	}
	if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, v) {
		return fmt.Errorf("%s: %v is not one of %v", path, v, enum)
	}
	if min, ok := s["minimum"].(float64); ok {
		if x, ok := v.(float64); ok && x < min {
			return fmt.Errorf("%s: %v is below the minimum %v", path, x, min)
		}
	}
	switch v := v.(type) {
	case map[string]any:
		for _, r := range asSlice(s["required"]) {
			if _, ok := v[r.(string)]; !ok {
				return fmt.Errorf("%s: missing %q", path, r)
			}
		}
		props, _ := s["properties"].(map[string]any)
		extra, _ := s["additionalProperties"].(map[string]any)
		for k, x := range v {
			if ps, ok := props[k].(map[string]any); ok {
				if err := validate(root, ps, x, path+"."+k); err != nil {
					return err
				}
			} else if extra != nil {
				if err := validate(root, extra, x, path+"."+k); err != nil {
					return err
				}
			}
		}
	case []any:
		if n, ok := s["minItems"].(float64); ok && float64(len(v)) < n {
			return fmt.Errorf("%s: %d items, want at least %v", path, len(v), n)
		}
		if is, ok := s["items"].(map[string]any); ok {
			for i, x := range v {
				if err := validate(root, is, x, fmt.Sprintf("%s[%d]", path, i)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func asSlice(x any) []any {
	s, _ := x.([]any)
	return s
}

func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		x, ok := v.(float64)
		return ok && x == math.Trunc(x)
	}
	return false
}
