; The whole C tags query (tree-sitter-c's own is not run). Its faults, mended here: it tagged
; `enum kind k;` and `union u v;` (uses of a type) as definitions, a prototype as a function
; definition, and a function by its declarator alone, so that what a body holds (a `#define`,
; an `enum`) read as an item rather than as nested in the function.

; A function definition, tagged whole: its body holds nothing a reader looks up as an item.
(function_definition
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.function

; Declarations: outlined and looked up, but no item (the definition is elsewhere).
; A prototype.
(declaration
  declarator: [
    (function_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (function_declarator declarator: (identifier) @name))
    (pointer_declarator
      declarator: (pointer_declarator
        declarator: (function_declarator declarator: (identifier) @name)))
  ]) @definition.declaration

; An `extern` variable.
((declaration
  (storage_class_specifier) @local.reference
  declarator: [
    (identifier) @name
    (pointer_declarator declarator: (identifier) @name)
    (array_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  ]) @definition.declaration
  (#eq? @local.reference "extern"))

; An include guard: `#ifndef NAME` then, at once, `#define NAME` with no value (a default
; value, `#ifndef SIZE` then `#define SIZE 64`, is a constant).
(preproc_ifdef
  name: (identifier) @local.reference
  .
  (preproc_def name: (identifier) @name !value) @definition.declaration
  (#eq? @local.reference @name))

; Types with a body (a bodiless `struct s` or `enum e` is a use).
(struct_specifier name: (type_identifier) @name body: (_)) @definition.class

(union_specifier name: (type_identifier) @name body: (_)) @definition.class

(enum_specifier name: (type_identifier) @name body: (_)) @definition.type

; Typedefs: a name, a pointer's name, a function type's name and a function pointer's.
(type_definition
  declarator: [
    (type_identifier) @name
    (pointer_declarator declarator: (type_identifier) @name)
    (function_declarator declarator: (type_identifier) @name)
    (function_declarator
      declarator: (parenthesized_declarator
        (pointer_declarator declarator: (type_identifier) @name)))
  ]) @definition.type

; Macros.
(preproc_function_def
  name: (identifier) @name) @definition.macro

(preproc_def
  name: (identifier) @name) @definition.constant

; Calls and type uses.
(call_expression
  function: (identifier) @name) @reference.call

(call_expression
  function: (field_expression
    field: (field_identifier) @name)) @reference.call

((type_identifier) @name) @reference.type
