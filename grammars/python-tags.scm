; Cairn definition tags for Python.
; Every pattern captures the defining node as @definition.<kind> and its name as @name.
; References are collected lexically by the repository map, so none are listed here.

(class_definition
  name: (identifier) @name) @definition.class

(function_definition
  name: (identifier) @name) @definition.function

(module
  (expression_statement
    (assignment
      left: (identifier) @name) @definition.constant))
