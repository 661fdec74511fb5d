package store

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"switchboard/store/kv"
)

// PropertyTypes lists the custom property types in the order forms show them.
var PropertyTypes = []string{PropertyText, PropertyNumber, PropertyBoolean, PropertyDate}

// Property is a workspace's custom contact property.
type Property struct {
	ID          string    `json:"id"`
	WorkspaceID string    `json:"workspaceId"`
	Name        string    `json:"name"`
	Type        string    `json:"type"`
	CreatedAt   time.Time `json:"createdAt"`
}

// Custom property types.
const (
	PropertyText    = "text"
	PropertyNumber  = "number"
	PropertyBoolean = "boolean"
	PropertyDate    = "date"
)

var propertyName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// AddProperty defines a custom contact property of the workspace.
func (s *Store) AddProperty(workspaceID, name, typ string) (Property, error) {
	name = strings.TrimSpace(name)
	var errs ValidationError
	if !propertyName.MatchString(name) {
		errs = append(errs, FieldError{"name", "must start with a letter and hold only letters, digits and _ (at most 64)"})
	}
	if !slices.Contains(PropertyTypes, typ) {
		errs = append(errs, FieldError{"type", "must be one of text, number, boolean, date"})
	}
	if errs != nil {
		return Property{}, errs
	}
	p := Property{ID: s.NewID(), WorkspaceID: workspaceID, Name: name, Type: typ, CreatedAt: s.Now()}
	err := s.updateNow(func(tx *wtx) error {
		if _, err := getWorkspace(tx.Tx, workspaceID); err != nil {
			return err
		}
		idx := tx.Bucket(bPropertyName)
		if idxFirst(idx, workspaceID, name) != "" {
			return errorf(ErrConflict, "property %s already exists", name)
		}
		if err := idx.Put(idxKey(workspaceID, name, p.ID), nil); err != nil {
			return err
		}
		return putJSON(tx.Bucket(bProperties), wsKey(workspaceID, p.ID), p)
	})
	return p, err
}

// Properties lists a workspace's custom contact properties, oldest first.
func (s *Store) Properties(workspaceID string) ([]Property, error) {
	var out []Property
	err := s.view(func(tx *kv.Tx) error {
		var err error
		out, err = properties(tx, workspaceID)
		return err
	})
	return out, err
}

func properties(tx *kv.Tx, workspaceID string) ([]Property, error) {
	out := []Property{}
	if _, ok := ParseID(workspaceID); !ok {
		return out, nil
	}
	err := forEachPrefix(tx.Bucket(bProperties), idKey(workspaceID), func(_, v []byte) error {
		var p Property
		if err := jsonUnmarshal(v, &p); err != nil {
			return err
		}
		out = append(out, p)
		return nil
	})
	return out, err
}

// propertyTypes maps a workspace's property names to their types.
func propertyTypes(tx *kv.Tx, workspaceID string) (map[string]string, error) {
	props, err := properties(tx, workspaceID)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(props))
	for _, p := range props {
		m[p.Name] = p.Type
	}
	return m, nil
}

// checkProperties validates keys against the workspace's properties and values against their
// types. A nil value (remove the key) is allowed when allowNull.
func checkProperties(types map[string]string, props map[string]any, allowNull bool) ValidationError {
	var errs ValidationError
	for _, k := range slices.Sorted(maps.Keys(props)) {
		typ, ok := types[k]
		if !ok {
			errs = append(errs, FieldError{"properties." + k, "is not a custom property of this workspace"})
			continue
		}
		v := props[k]
		if v == nil {
			if !allowNull {
				errs = append(errs, FieldError{"properties." + k, "must not be null"})
			}
			continue
		}
		if msg := ValidateProperty(typ, v); msg != "" {
			errs = append(errs, FieldError{"properties." + k, msg})
		}
	}
	return errs
}
