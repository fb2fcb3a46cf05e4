; Cairn definition tags for C++.
; Every pattern captures the defining node as @definition.<kind> and its name as @name.
; Qualified names (ns::Type::method) are captured whole; the code layer keeps the last part.

(function_definition
  declarator: (function_declarator
    declarator: [(identifier) (field_identifier) (qualified_identifier) (destructor_name) (operator_name)] @name)) @definition.function

(function_definition
  declarator: (_
    declarator: (function_declarator
      declarator: [(identifier) (field_identifier) (qualified_identifier)] @name))) @definition.function

(declaration
  declarator: (function_declarator
    declarator: [(identifier) (qualified_identifier)] @name)) @definition.function

(field_declaration
  declarator: (function_declarator
    declarator: [(field_identifier) (destructor_name) (operator_name)] @name)) @definition.method

(class_specifier
  name: (_) @name
  body: (_)) @definition.class

(struct_specifier
  name: (_) @name
  body: (_)) @definition.struct

(union_specifier
  name: (_) @name
  body: (_)) @definition.struct

(enum_specifier
  name: (_) @name
  body: (_)) @definition.enum

(namespace_definition
  name: (_) @name) @definition.module

(type_definition
  declarator: (type_identifier) @name) @definition.type

(alias_declaration
  name: (type_identifier) @name) @definition.type
