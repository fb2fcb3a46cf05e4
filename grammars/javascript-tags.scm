; Cairn definition tags for JavaScript (also compiled with typescript-tags.scm for TS/TSX).
; Every pattern captures the defining node as @definition.<kind> and its name as @name.

(class_declaration
  name: (_) @name) @definition.class

(class
  name: (_) @name) @definition.class

(method_definition
  name: (_) @name) @definition.method

[
  (function_declaration
    name: (identifier) @name)
  (generator_function_declaration
    name: (identifier) @name)
] @definition.function

(lexical_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (class)]) @definition.function)

(variable_declaration
  (variable_declarator
    name: (identifier) @name
    value: [(arrow_function) (function_expression) (class)]) @definition.function)

(assignment_expression
  left: [
    (identifier) @name
    (member_expression
      property: (property_identifier) @name)
  ]
  right: [(arrow_function) (function_expression)]) @definition.function

(pair
  key: (property_identifier) @name
  value: [(arrow_function) (function_expression)]) @definition.function
