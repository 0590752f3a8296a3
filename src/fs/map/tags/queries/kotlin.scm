; The whole of Kotlin's tags query: tree-sitter-kotlin-ng ships none. The grammar names
; everything `identifier`, so each pattern says which one it means by its place.

; Types: classes, interfaces, enum and data classes, objects and named companions.
(class_declaration
  "interface"
  name: (identifier) @name) @definition.interface

(class_declaration
  name: (identifier) @name) @definition.class

(object_declaration
  name: (identifier) @name) @definition.class

(companion_object
  name: (identifier) @name) @definition.class

(type_alias
  type: (identifier) @name) @definition.type

; Functions and methods, wherever they are (nested ones are placed as such).
(function_declaration
  name: (identifier) @name) @definition.function

; Properties at file level and in class bodies only: a `val` in a function body is a local.
(source_file
  (property_declaration
    (variable_declaration
      .
      (identifier) @name)) @definition.property)

(class_body
  (property_declaration
    (variable_declaration
      .
      (identifier) @name)) @definition.property)

(enum_class_body
  (property_declaration
    (variable_declaration
      .
      (identifier) @name)) @definition.property)

; Calls: `f()`, `Type(…)` and `x.f()`.
(call_expression
  .
  (identifier) @name) @reference.call

(call_expression
  .
  (navigation_expression
    (identifier) @name .)) @reference.call

; Type uses: supertypes, parameter, property and return types, type arguments.
(user_type
  (identifier) @name) @reference.type
