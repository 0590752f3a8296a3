; The whole of Swift's tags query (the grammar crate's own does not fit the map: see
; `grammar.rs`).

; Types: `class`, `struct`, `enum` and `actor` are all class declarations to the grammar; an
; `extension` is one too, named by a `user_type`, and defines nothing new.
(class_declaration
  name: (type_identifier) @name) @definition.class

(protocol_declaration
  name: (type_identifier) @name) @definition.interface

(typealias_declaration
  name: (type_identifier) @name) @definition.type

; Functions and methods, wherever they are (nested ones are placed as such).
(function_declaration
  name: (simple_identifier) @name) @definition.function

(protocol_function_declaration
  name: (simple_identifier) @name) @definition.method

(init_declaration
  name: "init" @name) @definition.method

; Properties at file level and in type bodies only: a `let` in a function body is a local.
(source_file
  (property_declaration
    name: (pattern
      bound_identifier: (simple_identifier) @name)) @definition.property)

(class_body
  (property_declaration
    name: (pattern
      bound_identifier: (simple_identifier) @name)) @definition.property)

(enum_class_body
  (property_declaration
    name: (pattern
      bound_identifier: (simple_identifier) @name)) @definition.property)

(protocol_property_declaration
  name: (pattern
    bound_identifier: (simple_identifier) @name)) @definition.property

; Calls: `f()`, `Type(…)`, `x.f()`, and with a trailing closure. The grammar reads a
; subscript (`items[key]`) as a call too; its brackets tell it apart.
(call_expression
  .
  (simple_identifier) @name
  .
  (call_suffix
    [
      (value_arguments "(")
      (lambda_literal)
    ])) @reference.call

(call_expression
  .
  (navigation_expression
    suffix: (navigation_suffix
      suffix: (simple_identifier) @name))
  .
  (call_suffix
    [
      (value_arguments "(")
      (lambda_literal)
    ])) @reference.call

; Every other type name is a use.
((type_identifier) @name) @reference.type
