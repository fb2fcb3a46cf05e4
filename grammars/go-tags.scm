; Cairn definition tags for Go.
; Every pattern captures the defining node as @definition.<kind> and its name as @name.

(function_declaration
  name: (identifier) @name) @definition.function

(method_declaration
  name: (field_identifier) @name) @definition.method

(type_spec
  name: (type_identifier) @name) @definition.type

(method_elem
  name: (field_identifier) @name) @definition.method
