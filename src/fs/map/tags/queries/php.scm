; Supplement to tree-sitter-php's tags query, which misses enums and constants, and calls,
; `new` and supertypes written with a plain name (its patterns expect a qualified one).

(enum_declaration
  name: (name) @name) @definition.enum

(const_declaration
  (const_element
    (name) @name)) @definition.constant

(function_call_expression
  function: (name) @name) @reference.call

(object_creation_expression
  (name) @name) @reference.class

(base_clause
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.class

; Type uses: declared types, traits used, and the class of a static call or constant.
(named_type
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.type

(use_declaration
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.type

(scoped_call_expression
  scope: [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.class

(class_constant_access_expression
  .
  [
    (name) @name
    (qualified_name (name) @name)
  ]) @reference.class
